/* cc_dispatch: where translated code leaves for C (a block not translated
 * yet, an indirect branch, a check at the scope's end or at a syscall).
 *
 * Entered on this thread's private stack (the exit stub saved the
 * program's rsp in cc_tls.s_rsp and pushed the stub index), so nothing is
 * ever written below the program's rsp: its red zone is safe. Layout above
 * rsp on entry: [idx] [&cc_tls] [exit tail] [xsave area] (cache.c).
 *
 * Every register and rflags is saved and restored. The lookup fast path
 * (cc_fast, compiled general-registers-only) runs with only the GPRs
 * saved; anything slower (cc_dispatch_c: Capstone, memcpy, which use
 * vector registers) runs between xsave and xrstor of the full extended
 * state, so the program's xmm/ymm/zmm and x87 state are untouched.
 *
 * Leaves through the exit tail (generated, in the cache): it reloads the
 * program's rsp and jumps to cc_tls.tgt, which the C side set. */
#include "plugins/codecache/cc.h"

	.text
	.globl cc_dispatch
	.hidden cc_dispatch
	.type cc_dispatch, @function
cc_dispatch:
	pushfq
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rbx
	pushq %rbp
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld                          /* the C ABI wants DF clear */
	movq %rsp, %rbx              /* struct cc_regs */
	movq 17*8(%rsp), %r12        /* struct cc_tls * */
	movq 19*8(%rsp), %r13        /* xsave area */
	movq %rsp, %rbp
	andq $-16, %rsp
	movq %r12, %rdi
	movq %rbx, %rsi
	call cc_fast
	testq %rax, %rax
	jnz 2f
	movl $-1, %eax
	movl $-1, %edx
	xsave64 (%r13)
	movq %r12, %rdi
	movq %rbx, %rsi
	call cc_dispatch_c
	movq %rax, CC_TLS_TGT(%r12)
	movl $-1, %eax
	movl $-1, %edx
	xrstor64 (%r13)
	jmp 3f
2:	movq %rax, CC_TLS_TGT(%r12)
3:	movq %rbp, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rbp
	popq %rbx
	popq %rdx
	popq %rcx
	popq %rax
	popfq
	leaq 8(%rsp), %rsp           /* idx; lea leaves the flags just restored */
	jmp *8(%rsp)                 /* the exit tail */
	.size cc_dispatch, .-cc_dispatch
	.section .note.GNU-stack,"",@progbits
