/* asmspy scoped tracing: bracket a region of the program's OWN code and get
 * back the assembly that executed inside it, rendered with Capstone on close.
 *
 *   asmspy_scope *s = ASMSPY_SCOPE_BEGIN(NULL, 0, 0);   // whole window
 *   hot_path();
 *   asmspy_scope_end(s);        // renders; prints to stdout unless quiet
 *   printf("%zu insns\n", (size_t)asmspy_scope_insn_count(s));
 *   asmspy_scope_free(s);
 *
 *   {
 *     ASMSPY_SCOPED_AS(t, (const void *)work, 0, 0);   // region: work's extent
 *     work(3);
 *   }                                                  // ends + frees here
 *
 * code == NULL: the whole window (everything the thread ran, noisy but
 * faithful). code != NULL, len == 0: the extent of the symbol covering code.
 * code, len: exactly [code, code + len). Out-of-region instructions are
 * dropped at decode. Capture follows the CALLING THREAD (thread scope).
 *
 * Tiers, as the backends declare them (backend_ops.inproc_tier): "STRONG"
 * (every branch in hardware: intel_pt), "WEAK" (every instruction by
 * EFLAGS.TF: singlestep), "CEILING" (sampled branch edges: amd_lbr, only
 * when asked for), "NONE" (a recorded no-op: asmspy_scope_reason says why;
 * the program always continues). The ladder tries STRONG, then WEAK.
 * Linked into libasmspy; see docs/scope.md.
 */
#ifndef ASMSPY_SCOPE_H
#define ASMSPY_SCOPE_H

#include <asmspy/api.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct asmspy_scope asmspy_scope;

#define ASMSPY_SCOPE_QUIET (1u << 0) /* do not write the text to stdout on end */
/* Ask for one tier directly instead of the ladder (self-skips: tier NONE
 * with the reason). The backend is whichever loaded plugin declares that
 * tier (backend_ops.inproc_tier, ABI 1.8): libasmspy names none. */
#define ASMSPY_SCOPE_STRONG (1u << 1)  /* every branch in hardware (Intel PT) */
#define ASMSPY_SCOPE_CEILING (1u << 2) /* sampled branch edges (AMD LBR): never auto-chosen */
/* The names these flags had when each tier had one backend (kept: same bits). */
#define ASMSPY_SCOPE_INTEL_PT ASMSPY_SCOPE_STRONG
#define ASMSPY_SCOPE_AMD_LBR ASMSPY_SCOPE_CEILING

/* Begin a scope on the calling thread. name: the registration key (a looped
 * or repeated scope with the same name reuses one slot). Never returns NULL
 * unless out of memory; a scope that could not arm is tier NONE. */
ASMSPY_API asmspy_scope *asmspy_scope_begin(const char *name, const void *code, size_t len,
                                            unsigned flags);
/* Disarm, render, write the text file (and stdout). Idempotent. 0, or a
 * negative -ASMSPY_E_* when rendering failed. */
ASMSPY_API int asmspy_scope_end(asmspy_scope *s);
ASMSPY_API void asmspy_scope_free(asmspy_scope *s);

/* Valid after end (until free). */
ASMSPY_API const char *asmspy_scope_text(const asmspy_scope *s); /* rendered listing + summary */
ASMSPY_API const char *
asmspy_scope_path(const asmspy_scope *s); /* the file it was written to, or "" */
ASMSPY_API uint64_t asmspy_scope_insn_count(const asmspy_scope *s);
ASMSPY_API int asmspy_scope_truncated(const asmspy_scope *s); /* 1: a partial capture */
/* Stretches stepped over untraced (clone/fork, pthread_create's all-signals
 * block): each shows as a "# gap: ..." line at its place in the text. */
ASMSPY_API uint64_t asmspy_scope_gaps(const asmspy_scope *s);
ASMSPY_API const char *
asmspy_scope_tier(const asmspy_scope *s); /* "STRONG" / "WEAK" / "CEILING" / "NONE" */
ASMSPY_API const char *
asmspy_scope_reason(const asmspy_scope *s); /* why this tier / why truncated */
ASMSPY_API const char *asmspy_scope_name(const asmspy_scope *s);

/* Registered slots (distinct names) so far in this process. */
ASMSPY_API size_t asmspy_scope_slot_count(void);

/* For __attribute__((cleanup)): ends (if still open) and frees *sp. */
ASMSPY_API void asmspy_scope_cleanup(asmspy_scope **sp);

#define ASMSPY_SCOPE_STR2_(x) #x
#define ASMSPY_SCOPE_STR_(x) ASMSPY_SCOPE_STR2_(x)
/* Auto-named from the call site: "file.c:42". */
#define ASMSPY_SCOPE_BEGIN(code, len, flags)                                                       \
  asmspy_scope_begin(__FILE__ ":" ASMSPY_SCOPE_STR_(__LINE__), (code), (len), (flags))

#define ASMSPY_SCOPE_CAT2_(a, b) a##b
#define ASMSPY_SCOPE_CAT_(a, b) ASMSPY_SCOPE_CAT2_(a, b)
/* Block form (GCC/Clang cleanup attribute): the scope ends and is freed when
 * `var` goes out of scope. Read the results before that with
 * asmspy_scope_end(var) followed by the accessors. */
#define ASMSPY_SCOPED_AS(var, code, len, flags)                                                    \
  asmspy_scope *var __attribute__((cleanup(asmspy_scope_cleanup))) =                               \
      ASMSPY_SCOPE_BEGIN(code, len, flags)
#define ASMSPY_SCOPED(code, len, flags)                                                            \
  ASMSPY_SCOPED_AS(ASMSPY_SCOPE_CAT_(asmspy_scoped_, __LINE__), code, len, flags)

#ifdef __cplusplus
}
#endif
#endif
