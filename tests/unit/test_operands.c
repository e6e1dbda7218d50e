/* test_operands.c — unit test of host/operands.c (host->operands): the
 * registers an instruction reads and writes and its memory operands with
 * effective addresses, on hand-assembled bytes and fake registers.
 *
 * Standalone: exit 0 when every check passes, 1 otherwise. Reached through
 * the public host table (asmspy_host_api()), as a plugin reaches it. */
#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* user_regs_struct indexes */
enum {
  R15 = 0,
  R14,
  R13,
  R12,
  RBP,
  RBX,
  R11,
  R10,
  R9,
  R8,
  RAX,
  RCX,
  RDX,
  RSI,
  RDI,
  ORIG_RAX,
  RIP,
  CS,
  EFLAGS,
  RSP,
  SS,
  FS_BASE,
  GS_BASE
};

static struct asmspy_regs regs;

static int has(const uint8_t *list, unsigned n, int g) {
  for (unsigned i = 0; i < n; i++)
    if (list[i] == g) return 1;
  return 0;
}

static int decode(uint64_t ip, const uint8_t *b, size_t n, struct asmspy_operands *o) {
  memset(o, 0, sizeof *o);
  ASMSPY_INIT_HEADER(o);
  regs.gpr[RIP] = regs.ip = ip;
  return asmspy_host_api()->operands(ip, b, n, &regs, o);
}

int main(void) {
  const struct asmspy_host_api *h = asmspy_host_api();
  CHECK(ASMSPY_HAS(h, operands) && h->operands, "host table has operands()");
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  regs.ngpr = 27;
  regs.gpr[RBP] = 0x7ffd1000;
  regs.gpr[RSP] = 0x7ffd0f00;
  regs.gpr[RBX] = 0x1000;
  regs.gpr[RCX] = 3;
  regs.gpr[RAX] = 41;
  regs.gpr[FS_BASE] = 0x7f0000001000;
  struct asmspy_operands o;
  const uint64_t ip = 0x401000;

  /* mov rax, qword ptr [rbp - 8] */
  static const uint8_t mov_load[] = {0x48, 0x8b, 0x45, 0xf8};
  CHECK(decode(ip, mov_load, sizeof mov_load, &o) == 4, "length 4");
  CHECK(strcmp(o.text, "mov rax, qword ptr [rbp - 8]") == 0, "text '%s'", o.text);
  CHECK(has(o.read, o.nread, RBP) && !has(o.read, o.nread, RAX), "reads rbp, not rax");
  CHECK(o.nwritten == 1 && o.written[0] == RAX, "writes rax only (n=%u)", o.nwritten);
  CHECK(o.nmem == 1 && o.mem[0].addr == 0x7ffd1000 - 8 && o.mem[0].size == 8 &&
            o.mem[0].access == ASMSPY_MEM_READ,
        "mem [rbp-8] read 8: n=%u addr=0x%llx size=%u access=%u", o.nmem,
        (unsigned long long)o.mem[0].addr, o.mem[0].size, o.mem[0].access);
  CHECK(o.abi_version == ASMSPY_ABI_VERSION && o.struct_size == sizeof o, "header filled");

  /* add eax, 1 */
  static const uint8_t add[] = {0x83, 0xc0, 0x01};
  CHECK(decode(ip, add, sizeof add, &o) == 3, "add length 3");
  CHECK(has(o.read, o.nread, RAX), "add reads rax");
  CHECK(has(o.written, o.nwritten, RAX) && has(o.written, o.nwritten, EFLAGS),
        "add writes rax + flags");
  CHECK(!has(o.read, o.nread, EFLAGS), "add does not read flags");
  CHECK(o.nmem == 0, "add: no memory");

  /* push rbp */
  static const uint8_t push[] = {0x55};
  CHECK(decode(ip, push, sizeof push, &o) == 1, "push length 1");
  CHECK(has(o.read, o.nread, RBP) && has(o.read, o.nread, RSP), "push reads rbp, rsp");
  CHECK(has(o.written, o.nwritten, RSP), "push writes rsp");
  CHECK(o.nmem == 1 && o.mem[0].addr == 0x7ffd0f00 - 8 && o.mem[0].size == 8 &&
            o.mem[0].access == ASMSPY_MEM_WRITE,
        "push writes [rsp-8]: n=%u addr=0x%llx access=%u", o.nmem,
        (unsigned long long)o.mem[0].addr, o.mem[0].access);

  /* ret */
  static const uint8_t ret[] = {0xc3};
  CHECK(decode(ip, ret, sizeof ret, &o) == 1, "ret length 1");
  CHECK(has(o.read, o.nread, RSP) && has(o.written, o.nwritten, RSP), "ret reads/writes rsp");
  CHECK(o.nmem == 1 && o.mem[0].addr == 0x7ffd0f00 && o.mem[0].size == 8 &&
            o.mem[0].access == ASMSPY_MEM_READ,
        "ret reads [rsp]");

  /* pop rbx */
  static const uint8_t pop[] = {0x5b};
  CHECK(decode(ip, pop, sizeof pop, &o) == 1, "pop length 1");
  CHECK(has(o.written, o.nwritten, RBX) && has(o.written, o.nwritten, RSP), "pop writes rbx rsp");
  CHECK(o.nmem == 1 && o.mem[0].addr == 0x7ffd0f00 && o.mem[0].access == ASMSPY_MEM_READ,
        "pop reads [rsp]");

  /* call rel32 */
  static const uint8_t call[] = {0xe8, 0xfb, 0x00, 0x00, 0x00};
  CHECK(decode(ip, call, sizeof call, &o) == 5, "call length 5");
  CHECK(has(o.written, o.nwritten, RSP), "call writes rsp");
  CHECK(o.nmem == 1 && o.mem[0].addr == 0x7ffd0f00 - 8 && o.mem[0].access == ASMSPY_MEM_WRITE,
        "call writes [rsp-8]");

  /* jne: reads the flags */
  static const uint8_t jne[] = {0x75, 0x0e};
  CHECK(decode(ip, jne, sizeof jne, &o) == 2, "jne length 2");
  CHECK(has(o.read, o.nread, EFLAGS), "jne reads flags");

  /* mov dword ptr [rip + 0x10], eax */
  static const uint8_t mov_rip[] = {0x89, 0x05, 0x10, 0x00, 0x00, 0x00};
  CHECK(decode(ip, mov_rip, sizeof mov_rip, &o) == 6, "rip-relative length 6");
  CHECK(has(o.read, o.nread, RAX), "reads rax (eax)");
  CHECK(o.nmem == 1 && o.mem[0].addr == ip + 6 + 0x10 && o.mem[0].size == 4 &&
            o.mem[0].access == ASMSPY_MEM_WRITE,
        "writes [next ip + 0x10] 4 bytes: addr=0x%llx size=%u access=%u",
        (unsigned long long)o.mem[0].addr, o.mem[0].size, o.mem[0].access);
  CHECK(!has(o.written, o.nwritten, RAX), "a store writes no register");

  /* lea rdi, [rbx + rcx*4 + 8] */
  static const uint8_t lea[] = {0x48, 0x8d, 0x7c, 0x8b, 0x08};
  CHECK(decode(ip, lea, sizeof lea, &o) == 5, "lea length 5");
  CHECK(o.nmem == 0, "lea touches no memory (n=%u)", o.nmem);
  CHECK(has(o.read, o.nread, RBX) && has(o.read, o.nread, RCX), "lea reads rbx rcx");
  CHECK(o.nwritten == 1 && o.written[0] == RDI, "lea writes rdi");

  /* mov rax, qword ptr fs:[0x28] */
  static const uint8_t fs[] = {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00};
  CHECK(decode(ip, fs, sizeof fs, &o) == 9, "fs load length 9");
  CHECK(o.nmem == 1 && o.mem[0].addr == 0x7f0000001000 + 0x28 && o.mem[0].size == 8 &&
            o.mem[0].access == ASMSPY_MEM_READ,
        "reads fs_base + 0x28: addr=0x%llx", (unsigned long long)o.mem[0].addr);
  CHECK(has(o.written, o.nwritten, RAX), "writes rax");

  /* xor eax, eax: a zero idiom reads nothing but writes rax + flags */
  static const uint8_t xor_[] = {0x31, 0xc0};
  CHECK(decode(ip, xor_, sizeof xor_, &o) == 2, "xor length 2");
  CHECK(!has(o.read, o.nread, RAX), "zero idiom does not read rax");
  CHECK(has(o.written, o.nwritten, RAX) && has(o.written, o.nwritten, EFLAGS),
        "xor writes rax flags");

  /* undecodable */
  static const uint8_t bad[] = {0x06};
  CHECK(decode(ip, bad, sizeof bad, &o) == 0, "undecodable -> 0");

  /* a caller with a shorter struct: nothing written past its struct_size */
  unsigned char buf[sizeof(struct asmspy_operands) + 16];
  memset(buf, 0xab, sizeof buf);
  struct asmspy_operands *shortp = (struct asmspy_operands *)buf;
  shortp->abi_version = ASMSPY_ABI_VERSION;
  shortp->struct_size = (uint32_t)offsetof(struct asmspy_operands, text);
  h->operands(ip, mov_load, sizeof mov_load, &regs, shortp);
  CHECK(buf[offsetof(struct asmspy_operands, text)] == 0xab, "writes only within struct_size");
  CHECK(shortp->nmem == 1, "short struct still filled");

  return check_summary("test_operands");
}
