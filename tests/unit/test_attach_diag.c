/* Unit test of the attach diagnostics: the 32-bit tracee check (this
 * machine's kernel cannot even exec an i386 binary, so the refusal path is
 * tested on ELF files here) and the EPERM explanation's content. */
#include "host/host.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define EXPECT(cond, what)                                                                         \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL: %s\n", what);                                                         \
      failures++;                                                                                  \
    } else {                                                                                       \
      printf("ok: %s\n", what);                                                                    \
    }                                                                                              \
  } while (0)

static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len) abort();
  fclose(f);
}

int main(void) {
  char dir[] = "/tmp/asmspy-diag.XXXXXX";
  if (!mkdtemp(dir)) return 99;
  char p32[256], p64[256], junk[256], shortf[256];
  snprintf(p32, sizeof p32, "%s/i386", dir);
  snprintf(p64, sizeof p64, "%s/x86_64", dir);
  snprintf(junk, sizeof junk, "%s/junk", dir);
  snprintf(shortf, sizeof shortf, "%s/short", dir);
  Elf32_Ehdr e32;
  memset(&e32, 0, sizeof e32);
  memcpy(e32.e_ident, ELFMAG, SELFMAG);
  e32.e_ident[EI_CLASS] = ELFCLASS32;
  e32.e_machine = EM_386;
  write_file(p32, &e32, sizeof e32);
  Elf64_Ehdr e64;
  memset(&e64, 0, sizeof e64);
  memcpy(e64.e_ident, ELFMAG, SELFMAG);
  e64.e_ident[EI_CLASS] = ELFCLASS64;
  write_file(p64, &e64, sizeof e64);
  write_file(junk, "#!/bin/sh\necho hi\n", 18);
  write_file(shortf, "\177EL", 3);
  EXPECT(elf_file_is_32bit(p32) == 1, "an ELFCLASS32 file is 32-bit");
  EXPECT(elf_file_is_32bit(p64) == 0, "an ELFCLASS64 file is not");
  EXPECT(elf_file_is_32bit("/proc/self/exe") == 0, "this test binary is not");
  EXPECT(elf_file_is_32bit(junk) == 0, "a script is not");
  EXPECT(elf_file_is_32bit(shortf) == 0, "a truncated header is not");
  EXPECT(elf_file_is_32bit("/nonexistent") == 0, "a missing file is not");

  char why[512];
  attach_explain(getpid(), why, sizeof why);
  EXPECT(strstr(why, "uid") && (strstr(why, "Yama") || strstr(why, "no Yama")),
         "the EPERM explanation names uids and Yama");
  printf("explanation: %s\n", why);
  unlink(p32), unlink(p64), unlink(junk), unlink(shortf), rmdir(dir);
  return failures ? 1 : 0;
}
