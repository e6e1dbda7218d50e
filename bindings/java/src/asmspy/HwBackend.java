package asmspy;

/** Which tier a scope asks for (the flag bits of include/asmspy/scope.h).
 *  AUTO is the ladder: STRONG (Intel PT) when usable, else WEAK (single-step).
 *  INTEL_PT / AMD_LBR arm that tier directly and self-skip (tier NONE, a
 *  reason naming the gate) where it cannot; AMD_LBR is never auto-chosen. */
public enum HwBackend {
  AUTO(0),
  INTEL_PT(2), // ASMSPY_SCOPE_STRONG: every branch in hardware
  AMD_LBR(4); // ASMSPY_SCOPE_CEILING: sampled branch edges

  final int flag;

  HwBackend(int flag) {
    this.flag = flag;
  }
}
