/* asmspy_strerror: one renderer for every status code, whatever its sign.
 * Keeping the table in one place is what keeps "the region never ran" (a
 * fact) from ever being worded like "could not attach" (a failure). */
#include <asmspy/asmspy.h>
#include <stdlib.h>

static const struct {
  int code;
  const char *text;
} status_text[] = {
    {ASMSPY_OK, "ok"},
    {ASMSPY_FACT_NOT_REACHED, "the region was never reached (a fact about the target)"},
    {ASMSPY_FACT_EXITED, "the target exited"},
    {ASMSPY_FACT_NO_EVENTS, "the target ran but produced no events of the requested kind"},
    {ASMSPY_FACT_I386,
     "32-bit tracee: refused rather than decoded against the wrong syscall table"},
    {ASMSPY_FACT_UNSUITED, "this backend does not trace this target safely (see its note)"},
    {ASMSPY_E_ATTACH_PERM, "attach refused: permission (Yama ptrace_scope, uid, or capability)"},
    {ASMSPY_E_ATTACH_BUSY, "attach refused: the target is already traced"},
    {ASMSPY_E_ATTACH_GONE, "no such process"},
    {ASMSPY_E_NO_HW, "unavailable: the hardware lacks the feature"},
    {ASMSPY_E_NO_KERNEL, "unavailable: the kernel does not provide the feature"},
    {ASMSPY_E_VIRT, "unavailable: the hypervisor hides or breaks the feature"},
    {ASMSPY_E_NO_LIB, "unavailable: a runtime library is missing"},
    {ASMSPY_E_PERM, "unavailable: host policy forbids it"},
    {ASMSPY_E_ABI, "plugin ABI mismatch"},
    {ASMSPY_E_NO_ENTRY, "plugin has no entry point"},
    {ASMSPY_E_BAD_DESCRIPTOR, "plugin descriptor is malformed"},
    {ASMSPY_E_DUP_NAME, "plugin name already registered"},
    {ASMSPY_E_PROBE_CRASH, "plugin probe crashed"},
    {ASMSPY_E_PROBE_HANG, "plugin probe hung and was killed"},
    {ASMSPY_E_INTERNAL, "internal error"},
    {ASMSPY_E_NOMEM, "out of memory"},
    {ASMSPY_E_USAGE, "usage error"},
};

const char *asmspy_strerror(int status) {
  int code = abs(status);
  for (size_t i = 0; i < sizeof status_text / sizeof status_text[0]; i++)
    if (status_text[i].code == code) return status_text[i].text;
  if (status == ASMSPY_RUN_SKIPPED) return "skipped: the backend is unavailable on this host";
  return "unknown status";
}
