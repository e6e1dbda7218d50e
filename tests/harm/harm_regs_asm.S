/* harm_regs_asm.S: the only honest test of "every register kept".
 *
 * harm_leaf: an ordinary patchable function (a symbol with a type and a
 * size, a prologue of plain instructions) that touches rax and the flags
 * only.
 *
 * harm_check_regs(seed): loads rcx rdx rsi rdi r8-r11 and both halves of
 * xmm0-xmm15 with values derived from seed, calls harm_leaf, and returns a
 * bit mask of the registers whose value changed across that call (bit 0-7
 * rcx rdx rsi rdi r8 r9 r10 r11, bit 8+2n / 9+2n xmmN low / high half); also
 * bit 40 when harm_leaf's result was wrong. A stub at harm_leaf's entry or a
 * return trampoline that saves less than everything shows here. */
        .text
        .globl  harm_leaf
        .type   harm_leaf, @function
        .p2align 4
harm_leaf:
        lea     1(%rdi), %rax
        imul    $3, %rax, %rax
        add     $7, %rax
        ret
        .size   harm_leaf, .-harm_leaf

        .globl  harm_check_regs
        .type   harm_check_regs, @function
        .p2align 4
harm_check_regs:
        push    %rbx
        push    %r12
        push    %r13
        mov     %rdi, %r12
        lea     1(%r12), %rcx
        lea     2(%r12), %rdx
        lea     3(%r12), %rsi
        lea     5(%r12), %r8
        lea     6(%r12), %r9
        lea     7(%r12), %r10
        lea     8(%r12), %r11
.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        lea     (100+\n)(%r12), %rax
        movq    %rax, %xmm\n
        lea     (200+\n)(%r12), %rax
        pinsrq  $1, %rax, %xmm\n
.endr
        mov     %r12, %rdi
        call    harm_leaf
        mov     %rax, %r13
        xor     %ebx, %ebx
.macro  chk reg, off, bit
        lea     \off(%r12), %rax
        cmp     %rax, \reg
        je      1f
        bts     $\bit, %rbx
1:
.endm
        chk     %rcx, 1, 0
        chk     %rdx, 2, 1
        chk     %rsi, 3, 2
        chk     %rdi, 0, 3
        chk     %r8, 5, 4
        chk     %r9, 6, 5
        chk     %r10, 7, 6
        chk     %r11, 8, 7
.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        movq    %xmm\n, %rcx
        lea     (100+\n)(%r12), %rax
        cmp     %rax, %rcx
        je      1f
        bts     $(8+2*\n), %rbx
1:
        pextrq  $1, %xmm\n, %rcx
        lea     (200+\n)(%r12), %rax
        cmp     %rax, %rcx
        je      1f
        bts     $(9+2*\n), %rbx
1:
.endr
        lea     1(%r12), %rax
        imul    $3, %rax, %rax
        add     $7, %rax
        cmp     %rax, %r13
        je      1f
        bts     $40, %rbx
1:
        mov     %rbx, %rax
        pop     %r13
        pop     %r12
        pop     %rbx
        ret
        .size   harm_check_regs, .-harm_check_regs
        .section .note.GNU-stack,"",@progbits
