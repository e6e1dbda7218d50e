/* The codecache backend's shared definitions: the thread-local block the
 * generated code addresses through %fs, the per-thread code cache, and the
 * per-scope handle. See docs/codecache.md for the design.
 *
 * Why a thread-local block: translated code runs on the program's own
 * registers and stack, so it has no free register and must not push below
 * rsp (the red zone). %fs-relative memory operands with a constant offset
 * need neither: every word the generated code keeps (the program's rsp at a
 * dispatcher entry, a saved rcx, the record cursor) lives here. The offset
 * of this block from the thread pointer is the same on every thread
 * (initial-exec TLS), so generated code can embed it. */
#ifndef ASMSPY_CODECACHE_CC_H
#define ASMSPY_CODECACHE_CC_H

/* Offsets (bytes) of struct cc_tls members: dispatch.S and the emitter
 * use the numbers, cc.c checks them against offsetof at compile time. */
#define CC_TLS_S_RSP 0
#define CC_TLS_PSTACK 8
#define CC_TLS_DISPATCH 16
#define CC_TLS_TGT 24
#define CC_TLS_S_RAX 32
#define CC_TLS_S_RCX 40
#define CC_TLS_CURSOR 48
#define CC_TLS_REMAIN 56
#define CC_TLS_FULL 64
/* A traced process's block goes on past struct cc_tls (remote.h, CC_RT_*):
 * where a --trace probe continues, written by the translated code. */
#define CC_RT_CONT_OFF 224

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

struct cc_cache;
struct cc_handle;

/* How generated code reaches its thread's block: in this process, %fs
 * (0x64) at the initial-exec TLS offset cc_tls_off; in a traced process
 * (remote.c), %gs (0x65) at offset 0, asmspy pointing each thread's gs
 * base at that thread's block (glibc and the kernel's ABI leave gs unused
 * in x86-64 user space; a thread whose gs base is not 0 is refused). */
struct cc_seg {
  uint8_t prefix;
  int32_t off;
};

struct cc_tls {
  uint64_t s_rsp;    /* the program's rsp while the dispatcher runs */
  uint64_t pstack;   /* top of this thread's private stack (see cache.c) */
  uint64_t dispatch; /* &cc_dispatch */
  uint64_t tgt;      /* in: an indirect branch's original target; out: where to go */
  uint64_t s_rax, s_rcx;
  uint64_t cursor; /* next block record (uint32_t *) */
  uint64_t remain; /* block records left before the buffer is full */
  uint64_t full;   /* set by a block that found the buffer full */
  struct cc_cache *cache;
  struct cc_handle *cur; /* the open scope on this thread */
};

/* The registers the dispatcher saved, lowest address first (dispatch.S
 * pushes rflags, then rax .. r15). idx is what the exit stub pushed. */
struct cc_regs {
  uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
  uint64_t rdi, rsi, rbp, rbx, rdx, rcx, rax;
  uint64_t rflags;
  uint64_t idx;
};

extern __thread struct cc_tls cc_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern int32_t cc_tls_off; /* &cc_tls - thread pointer: the same on every thread */

void cc_dispatch(void);                                      /* dispatch.S */
uint64_t cc_dispatch_c(struct cc_tls *t, struct cc_regs *r); /* dispatch.c */
uint64_t cc_fast(struct cc_tls *t, struct cc_regs *r);       /* fast.c */

/* Why a scope's recording stopped early (handle->why). */
enum cc_why {
  CC_WHY_NONE = 0,
  CC_WHY_MAX,         /* the record buffer is full */
  CC_WHY_UNSUPPORTED, /* an instruction the translator does not handle */
  CC_WHY_NOSPACE,     /* no code cache memory within reach */
  CC_WHY_HOP,         /* the scope ended on another thread */
};

/* How the translated path left the cache at the scope's end. */
enum cc_end { CC_END_NONE = 0, CC_END_CALL, CC_END_ENTRY };

struct cc_handle {
  uint32_t *recs; /* block ids, in execution order */
  uint64_t cap;   /* block records (== max_insns: a block holds >= 1 insn) */
  uint64_t max_insns;
  uint64_t region_start, region_len;
  uint64_t end_entry, end_arg;
  int tid, pid;
  int why;              /* enum cc_why (first one wins) */
  uint64_t why_ip;      /* where the translated path stopped */
  uint8_t why_bytes[8]; /* the bytes there (the reason names the instruction) */
  const char *why_text;
  int end;                       /* enum cc_end */
  uint64_t end_ret;              /* the return address at rsp when it left at end_entry */
  uint64_t dispatches;           /* dispatcher entries (ASMSPY_SCOPE_DEBUG) */
  uint64_t translated;           /* blocks translated during this scope */
  struct cc_tls *owner;          /* the arming thread's block (a hop zeroes its budget) */
  uint64_t t_begin_ns, t_end_ns; /* begin returned / end entered (ASMSPY_SCOPE_DEBUG) */
  volatile int orphaned, acked;
  int ended_inside; /* end ran while the thread was inside translated code */
  struct cc_handle *next_orphan;
};
#endif
#endif
