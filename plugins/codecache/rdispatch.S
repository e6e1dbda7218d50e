/* The dispatcher of a traced process (remote.c): the same job as
 * dispatch.S, in the target, without C and without a decoder. asmspy
 * copies the bytes between cc_rdisp_begin and cc_rdisp_end into the code
 * cache (position-independent; everything it keeps is %gs-relative).
 *
 * Entered from an exit stub on the thread's private stack with the stub's
 * index pushed and the original target in cc_tls.tgt (the program's rsp
 * is in cc_tls.s_rsp: nothing is written below it).
 *   - IBL and link stubs: look the target up in the shared hash; a hit
 *     continues there.
 *   - a miss, CC_RSTUB_FLUSH (the record buffer is full), CC_RSTUB_SIGRET
 *     (an rt_sigreturn is next), CC_RSTUB_PROBE (asmspy reads registers
 *     here, --trace's return value): raise a request, tgkill(self, signo).
 *     asmspy sees the signal's delivery stop (ptrace), answers in
 *     CC_RT_RESOLVED and suppresses the signal. With no answer (asmspy is
 *     gone and the signal was ignored by default, or the thread blocks it)
 *     the thread leaves for the original target natively: a thread is
 *     never stuck and never runs code nobody can translate.
 * The arithmetic flags (lahf/seto, sahf: nothing here touches DF or the
 * system flags) and every register but rsp are restored before the jump. */
#include "plugins/codecache/cc.h"
#include "plugins/codecache/remote.h"

#define SYS_TGKILL 234
#define SYS_FUTEX 202
#define RT_WAITS 100                   /* x CC_RT_TS (10 ms): a second at most */
#define RSTUB_LAST 5 /* CC_RSTUB_FLUSH, _SIGRET, _PROBE, _UNMAP, _STALE */

	.section .rodata
	.globl cc_rdisp_begin, cc_rdisp_end, cc_rdisp_saved, cc_rdisp_restore
	.hidden cc_rdisp_begin, cc_rdisp_end, cc_rdisp_saved, cc_rdisp_restore
	.balign 16
cc_rdisp_begin:
	pushq %rax                     /* first: remote_thread.c reads the program's rax here */
	lahf                           /* the arithmetic flags: SF ZF AF PF CF in ah, */
	seto %al                       /* OF in al (pushfq/popfq cost ~30 cycles a lookup) */
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r11
	pushq %r10
cc_rdisp_saved:                        /* from here to cc_rdisp_restore the program's rax, */
	movq 8*8(%rsp), %rax           /* flags, rcx, rdx, rsi, rdi, r11, r10 are on this stack */
	testq %rax, %rax               /* 0: an indirect branch: look it up */
	jz 3f
	cmpq $RSTUB_LAST, %rax          /* FLUSH, SIGRET, PROBE, UNMAP, STALE: always asmspy's */
	jbe 5f
3:
	movq %gs:CC_TLS_TGT, %rdi
	movq %gs:CC_RT_HTAB, %rsi
	movq %gs:CC_RT_HMASK, %rcx
	movabsq $0x9e3779b97f4a7c15, %rdx
	movq %rdi, %rax
	imulq %rdx, %rax
	shrq $20, %rax
	andq %rcx, %rax
1:	movq %rax, %rdx
	shlq $4, %rdx
	movq (%rsi,%rdx), %r11
	testq %r11, %r11
	jz 4f
	cmpq %rdi, %r11
	je 2f
	incq %rax
	andq %rcx, %rax
	jmp 1b
2:	movq 8(%rsi,%rdx), %rax
	movq %rax, %gs:CC_TLS_TGT
	jmp 9f
4:	movq 8*8(%rsp), %rax
5:	movq %rax, %gs:CC_RT_REQ_IDX
	movq $0, %gs:CC_RT_RESOLVED
	movq $1, %gs:CC_RT_REQ
	movl $SYS_TGKILL, %eax
	movl %gs:CC_RT_TGID, %edi
	movl %gs:CC_RT_TID, %esi
	movl %gs:CC_RT_SIGNO, %edx
	syscall
	cmpq $0, %gs:CC_RT_REQ         /* asmspy answers by clearing it (RESOLVED 0: go native) */
	je 7f
	/* No answer: the signal is blocked here (a handler's sa_mask, a
	 * sigprocmask section; it comes later: counted) or asmspy is gone.
	 * Wait on the request word, which asmspy reads every tick, at most
	 * CC_RT_TRIES times CC_RT_TS; then leave natively. */
	incq %gs:CC_RT_UNANSWERED
	movq $2, %gs:CC_RT_REQ
	movq $RT_WAITS, %gs:CC_RT_TRIES
6:	movl $SYS_FUTEX, %eax
	movq %gs:CC_RT_SELF, %rdi
	leaq CC_RT_TS(%rdi), %r10
	addq $CC_RT_REQ, %rdi
	xorl %esi, %esi                /* FUTEX_WAIT, shared: asmspy wakes it from its own mapping */
	movl $2, %edx
	syscall
	cmpq $2, %gs:CC_RT_REQ         /* 0: answered */
	jne 7f
	decq %gs:CC_RT_TRIES
	jnz 6b
7:	movq $0, %gs:CC_RT_REQ
	movq %gs:CC_RT_RESOLVED, %rax
	testq %rax, %rax
	jz 9f                          /* no answer: native at cc_tls.tgt, the original address */
	movq %rax, %gs:CC_TLS_TGT
9:
cc_rdisp_restore:
	popq %r10
	popq %r11
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	addb $0x7f, %al                /* OF back: 1 + 0x7f overflows, 0 + 0x7f does not */
	sahf                           /* then the rest (sahf leaves OF alone) */
	popq %rax
	movq %gs:CC_TLS_S_RSP, %rsp
	jmpq *%gs:CC_TLS_TGT
cc_rdisp_end:
	.section .note.GNU-stack,"",@progbits
