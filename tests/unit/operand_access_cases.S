/* operand_access_cases.S: the corpus for test_operand_access.c. Each CASE
 * is one instruction, assembled here by GNU as (not by Capstone), with the
 * access of its memory operand and that operand's size in bytes as the
 * Intel SDM vol. 2 defines them: R read, W written, RW both, N none (a
 * hint). The code is never run: the test decodes its bytes.
 *
 * A case's record in section oa_cases: {start, end, access, size, text};
 * a REGS case's in oa_regcases: {start, end, must write, must not write,
 * text}, masks of user_regs_struct indexes (rax 10, rbx 5, rcx 11, rdx 12,
 * eflags 18). */
#define R 1
#define W 2
#define RW 3
#define N 0
#define STR(...) #__VA_ARGS__
#define CASE(acc, size, ...)                                                   \
  .pushsection oa_cases, "aw";                                           \
  .quad 100f, 101f, acc, size, 102f;                                           \
  .popsection;                                                                 \
  .pushsection .rodata.oa_text, "a";                                           \
  102: .asciz STR(__VA_ARGS__);                                                \
  .popsection;                                                                 \
  100: __VA_ARGS__;                                                            \
  101:

#define RCASE(wr, notwr, ...)                                                  \
  .pushsection oa_regcases, "aw";                                              \
  .quad 100f, 101f, wr, notwr, 102f;                                           \
  .popsection;                                                                 \
  .pushsection .rodata.oa_text, "a";                                           \
  102: .asciz STR(__VA_ARGS__);                                                \
  .popsection;                                                                 \
  100: __VA_ARGS__;                                                            \
  101:
#define RAX (1 << 10)
#define RBX (1 << 5)
#define RCX (1 << 11)
#define RDX (1 << 12)
#define FLAGS (1 << 18)

        .intel_syntax noprefix
        .section .text.oa_corpus, "ax"
        .globl oa_corpus_start
oa_corpus_start:
/* compares and tests: the memory is only read (Capstone 4: test [m], imm writes) */
CASE(R, 1, test byte ptr [rax], 1)
CASE(R, 4, test dword ptr [rax], ebx)
CASE(R, 8, cmp qword ptr [rax], 5)
CASE(R, 4, cmp ebx, dword ptr [rax])
CASE(R, 2, cmp word ptr [rax], bx)
CASE(R, 4, bt dword ptr [rax], 3)
CASE(R, 4, bt dword ptr [rax], ebx)
CASE(R, 8, ucomisd xmm0, qword ptr [rax])
CASE(R, 8, comisd xmm0, qword ptr [rax])
CASE(R, 4, ucomiss xmm0, dword ptr [rax])
CASE(R, 4, comiss xmm0, dword ptr [rax])
CASE(R, 8, vucomisd xmm0, qword ptr [rax])
CASE(R, 4, vcomiss xmm0, dword ptr [rax])
CASE(R, 16, ptest xmm0, xmmword ptr [rax])
CASE(R, 32, vptest ymm0, ymmword ptr [rax])
CASE(R, 16, vtestps xmm0, xmmword ptr [rax])
CASE(R, 8, fcom qword ptr [rax])
CASE(R, 8, fcomp qword ptr [rax])
CASE(R, 4, ficom dword ptr [rax])
CASE(R, 1, cmpsb)
CASE(R, 1, scasb)
/* loads */
CASE(R, 8, push qword ptr [rax])
CASE(R, 4, mov ebx, dword ptr [rax])
CASE(R, 1, movzx ebx, byte ptr [rax])
CASE(R, 4, movbe ebx, dword ptr [rax])
CASE(R, 8, movq xmm0, qword ptr [rax])
CASE(R, 16, movaps xmm0, xmmword ptr [rax])
CASE(R, 64, vmovdqu64 zmm1, zmmword ptr [rax])
CASE(R, 8, fld qword ptr [rax])
CASE(R, 4, fild dword ptr [rax])
CASE(R, 2, fldcw word ptr [rax])
CASE(R, 4, ldmxcsr dword ptr [rax])
CASE(R, 8, call qword ptr [rax])
CASE(R, 8, jmp qword ptr [rax])
CASE(R, 4, div dword ptr [rax])
CASE(R, 4, imul ebx, dword ptr [rax])
CASE(R, 8, addsd xmm0, qword ptr [rax])
CASE(R, 1, pinsrb xmm0, byte ptr [rax], 1)
CASE(R, 1, lodsb)
/* stores: the memory is only written (Capstone 4: many "read") */
CASE(W, 4, mov dword ptr [rax], ebx)
CASE(W, 8, pop qword ptr [rax])
CASE(W, 1, sete byte ptr [rax])
CASE(W, 4, movbe dword ptr [rax], ebx)
CASE(W, 8, movq qword ptr [rax], xmm0)
CASE(W, 4, movd dword ptr [rax], xmm0)
CASE(W, 8, movhps qword ptr [rax], xmm0)
CASE(W, 8, movlps qword ptr [rax], xmm0)
CASE(W, 16, movaps xmmword ptr [rax], xmm0)
CASE(W, 16, movdqu xmmword ptr [rax], xmm0)
CASE(W, 8, movsd qword ptr [rax], xmm0)
CASE(W, 32, vmovdqu ymmword ptr [rax], ymm1)
CASE(W, 64, vmovdqu64 zmmword ptr [rax], zmm1)
CASE(W, 64, vmovaps zmmword ptr [rax], zmm1)
CASE(W, 16, vmaskmovps xmmword ptr [rax], xmm1, xmm2)
CASE(W, 1, pextrb byte ptr [rax], xmm0, 1)
CASE(W, 4, pextrd dword ptr [rax], xmm0, 1)
CASE(W, 16, vextracti128 xmmword ptr [rax], ymm0, 1)
CASE(W, 8, fst qword ptr [rax])
CASE(W, 8, fstp qword ptr [rax])
CASE(W, 4, fistp dword ptr [rax])
CASE(W, 8, fisttp qword ptr [rax])
CASE(W, 2, fnstcw word ptr [rax])
CASE(W, 2, fnstsw word ptr [rax])
CASE(W, 4, stmxcsr dword ptr [rax])
CASE(W, 512, fxsave [rax])
CASE(W, 8, movnti qword ptr [rax], rbx)
CASE(W, 1, stosb)
CASE(W, 8, stosq)
/* read-modify-write */
CASE(RW, 4, add dword ptr [rax], ebx)
CASE(RW, 4, inc dword ptr [rax])
CASE(RW, 4, not dword ptr [rax])
CASE(RW, 4, neg dword ptr [rax])
CASE(RW, 1, or byte ptr [rax], 1)
CASE(RW, 4, lock add dword ptr [rax], 1)
CASE(RW, 4, shl dword ptr [rax], 1)
CASE(RW, 4, rol dword ptr [rax], cl)
CASE(RW, 4, rcl dword ptr [rax], 1)
CASE(RW, 4, shld dword ptr [rax], ebx, 3)
CASE(RW, 4, bts dword ptr [rax], 3)
CASE(RW, 4, btr dword ptr [rax], ebx)
CASE(RW, 4, btc dword ptr [rax], 3)
CASE(RW, 4, xadd dword ptr [rax], ebx)
CASE(RW, 4, xchg dword ptr [rax], ebx)
CASE(RW, 4, cmpxchg dword ptr [rax], ebx)
CASE(RW, 8, cmpxchg8b qword ptr [rax])
CASE(RW, 16, cmpxchg16b xmmword ptr [rax])
/* hints: an address, no data */
CASE(N, 0, prefetcht0 byte ptr [rax])
CASE(N, 0, prefetchnta byte ptr [rax])
CASE(N, 0, clflush byte ptr [rax])
CASE(N, 0, lea rbx, [rax])
CASE(N, 0, nop dword ptr [rax])
/* registers: a compare writes only the flags (Capstone 4: test al, 1 writes al);
 * cmpxchg loads rax on a mismatch and compares with it */
RCASE(FLAGS, RAX, test al, 1)
RCASE(FLAGS, RAX | RBX, test eax, ebx)
RCASE(FLAGS, RAX, cmp eax, 5)
RCASE(FLAGS, RAX, bt eax, 3)
RCASE(FLAGS, RAX | RBX, bt eax, ebx)
RCASE(FLAGS | RAX, 0, bts eax, 3)
RCASE(FLAGS | RAX | RBX, RCX, cmpxchg ebx, ecx)
RCASE(FLAGS | RAX | RDX, RBX | RCX, cmpxchg8b qword ptr [rsi])
RCASE(FLAGS | RAX, 0, rol eax, cl)
RCASE(FLAGS | RAX, 0, rcl eax, 1)
        .globl oa_corpus_end
oa_corpus_end:
        .section .note.GNU-stack, "", @progbits
