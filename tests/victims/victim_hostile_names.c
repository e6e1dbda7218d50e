/* victim_hostile_names: a JIT-like target whose /tmp/perf-<pid>.map names
 * its code with terminal control bytes (the escape-injection tests).
 *
 * It copies a small loop into an anonymous executable page,
 *     xor eax, eax; mov ecx, 32; L: add eax, ecx; dec ecx; jnz L; ret
 * (99 instructions a call), writes one perf-map line naming that page with
 * HOSTILE_NAME below (ESC sequences, BEL, CR, DEL, a UTF-8 C1 CSI and a raw
 * 0x9b byte), and calls the page in a loop that never sleeps: nearly every
 * instruction it executes is inside the hostile-named function, so any
 * stream of ~100 steps, or any call graph, names it.
 *
 * Output: line 1 the pid, line 2 "jit 0x<addr> <len>" (after the map is
 * written). The map is left behind; the test removes it.
 * Usage: victim_hostile_names [iterations=-1 (forever)] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* What a hostile (or careless) JIT could write: colour the terminal red,
 * ring the bell, return the cursor, set the window title (OSC ... BEL). */
#define HOSTILE_NAME                                                                               \
  "evil\x1b[31mRED\x1b[0m\x07"                                                                     \
  "bell\rCR\x7f"                                                                                   \
  "del\xc2\x9b"                                                                                    \
  "2J\x9b"                                                                                         \
  "raw\x1b]0;pwned\x07"                                                                            \
  "end"

volatile long sink;

static void die(const char *what) {
  perror(what);
  exit(1);
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : -1;
  static const uint8_t code_bytes[] = {
      0x31, 0xc0,                   /* xor eax, eax */
      0xb9, 0x20, 0x00, 0x00, 0x00, /* mov ecx, 32 */
      0x01, 0xc8,                   /* L: add eax, ecx */
      0xff, 0xc9,                   /* dec ecx */
      0x75, 0xfa,                   /* jnz L */
      0xc3,                         /* ret */
  };
  long page = sysconf(_SC_PAGESIZE);
  uint8_t *code =
      mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) die("mmap");
  memcpy(code, code_bytes, sizeof code_bytes);
  if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) != 0) die("mprotect");
  long (*fn)(void) = (long (*)(void))(uintptr_t)code;

  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  FILE *map = fopen(path, "w");
  if (!map) die(path);
  fprintf(map, "%lx %zx %s\n", (unsigned long)(uintptr_t)code, sizeof code_bytes, HOSTILE_NAME);
  if (fclose(map) != 0) die(path);

  printf("%d\njit 0x%lx %zu\n", (int)getpid(), (unsigned long)(uintptr_t)code, sizeof code_bytes);
  fflush(stdout);
  for (long i = 0; iterations < 0 || i < iterations; i++) sink += fn();
  return 0;
}
