package asmspy;

import java.util.Optional;

/**
 * asmspy scoped tracing for Java: a try-with-resources scope over libasmspy
 * (through the JNI shim libasmspy_jni.so).
 *
 * <pre>
 *   NativeLib.Fn work = NativeLib.open("libscope_victim.so").fn("work");
 *   try (var t = HwTrace.AsmTrace.scope(work)) {   // region: work's extent
 *     work.call(3);
 *   }
 *   System.out.println(t.insnCount() + " insns, tier " + t.tier());
 * </pre>
 *
 * (In real code declare {@code t} before the try to read it after close; see
 * AsmTrace.) A scope is auto-named from its caller's "File.java:line"
 * (StackWalker). Capture follows the calling OS thread: a scope closed on
 * another thread (an ExecutorService task, a CompletableFuture continuation)
 * comes back truncated with a "thread hop" reason. A scope that cannot trace
 * is a recorded no-op (tier NONE, reason); the body always runs.
 */
public final class HwTrace {
  /** ASMSPY_SCOPE_QUIET: do not write the listing to stdout on close. */
  public static final int QUIET = 1;

  private final HwBackend backend;
  private final boolean quiet;

  /** AUTO backend, listing also written to stdout on close (as in C/Python). */
  public HwTrace() {
    this(HwBackend.AUTO, false);
  }

  public HwTrace(HwBackend backend, boolean quiet) {
    this.backend = backend == null ? HwBackend.AUTO : backend;
    this.quiet = quiet;
  }

  private int flags() {
    return (quiet ? QUIET : 0) | backend.flag;
  }

  /** Whole window: everything the thread runs (the JVM included: noisy). */
  public AsmTrace scope() {
    return new AsmTrace(callerName(), 0, 0, flags());
  }

  /** Region: the extent of the native symbol covering addr. */
  public AsmTrace scope(long addr) {
    return new AsmTrace(callerName(), addr, 0, flags());
  }

  /** Region: exactly [addr, addr + len). */
  public AsmTrace scope(long addr, long len) {
    return new AsmTrace(callerName(), addr, len, flags());
  }

  /** Region: the extent of a native function (null: the whole window). */
  public AsmTrace scope(NativeLib.Fn fn) {
    return new AsmTrace(callerName(), fn == null ? 0 : fn.address(), 0, flags());
  }

  /** Why nothing can be traced in this process ("" when libasmspy is loaded). */
  public static String loadError() {
    return Native.LOAD_ERROR;
  }

  /** "File.java:line" of the first frame outside this binding. */
  static String callerName() {
    Optional<StackWalker.StackFrame> f = StackWalker.getInstance().walk(s -> s.filter(
        fr -> !fr.getClassName().equals(HwTrace.class.getName())
            && !fr.getClassName().equals(AsmTrace.class.getName())).findFirst());
    if (f.isEmpty()) return "java:?";
    String file = f.get().getFileName();
    return (file != null ? file : f.get().getClassName()) + ":" + f.get().getLineNumber();
  }

  /**
   * One scope (AutoCloseable). {@code close()} disarms, renders, reads every
   * result and frees the native scope: the accessors are valid after close
   * (before it they return the initial values, tier "OPEN").
   */
  public static final class AsmTrace implements AutoCloseable {
    private static final HwTrace DEFAULT = new HwTrace();

    static {
      if (Native.LOAD_ERROR.isEmpty()) new AsmTrace("warm-up").finish(0);
    }

    private AsmTrace(String name) { // not begun
      this.name = name;
    }

    private long handle;
    private String name;
    private String text = "";
    private String path = "";
    private String tier = "OPEN";
    private String reason = "";
    private long insnCount;
    private long gaps;
    private boolean truncated;
    private int rc;

    AsmTrace(String name, long addr, long len, int flags) {
      this.name = name;
      if (!Native.LOAD_ERROR.isEmpty()) {
        tier = "NONE";
        reason = Native.LOAD_ERROR;
        return;
      }
      handle = Native.begin(name, addr, len, flags);
      if (handle == 0) {
        tier = "NONE";
        reason = "asmspy_scope_begin returned NULL (out of memory)";
      }
    }

    /** Whole window, AUTO backend, listing written to stdout on close. */
    public static AsmTrace scope() {
      return new AsmTrace(callerName(), 0, 0, DEFAULT.flags());
    }

    /** Region over the symbol covering addr. */
    public static AsmTrace scope(long addr) {
      return new AsmTrace(callerName(), addr, 0, DEFAULT.flags());
    }

    /** Region [addr, addr + len). */
    public static AsmTrace scope(long addr, long len) {
      return new AsmTrace(callerName(), addr, len, DEFAULT.flags());
    }

    /** Region over a native function's extent (null: the whole window). */
    public static AsmTrace scope(NativeLib.Fn fn) {
      return new AsmTrace(callerName(), fn == null ? 0 : fn.address(), 0, DEFAULT.flags());
    }

    /** Ends the scope (idempotent, any thread; another thread than the
     *  opening one makes it truncated: "thread hop"). Never throws. */
    @Override
    public synchronized void close() {
      if (handle == 0) return;
      long h = handle;
      handle = 0;
      finish(h);
    }

    /* Everything between the JNI end and the free. Run once with h == 0 at
     * class initialisation (every native is a no-op on 0): the first real
     * close then finds its constant-pool entries resolved and its natives
     * linked, instead of stepping through the JVM's resolution and
     * native-method lookup inside the scope (over a million instructions on
     * the first scope, which filled the recording buffer). */
    private void finish(long h) {
      rc = Native.end(h);
      text = Native.text(h);
      path = Native.path(h);
      tier = Native.tier(h);
      reason = Native.reason(h);
      name = Native.name(h);
      insnCount = Native.insnCount(h);
      gaps = Native.gaps(h);
      truncated = Native.truncated(h);
      Native.free(h);
    }

    public synchronized String text() { return text; }
    public synchronized String path() { return path; }
    /** "STRONG" / "WEAK" / "CEILING" / "NONE" ("OPEN" before close). */
    public synchronized String tier() { return tier; }
    /** Why this tier, or why truncated. */
    public synchronized String reason() { return reason; }
    public synchronized String name() { return name; }
    public synchronized long insnCount() { return insnCount; }
    /** Untraced stretches stepped over (thread creation), "# gap:" lines. */
    public synchronized long gaps() { return gaps; }
    /** A partial capture (thread hop, buffer full): never presented as complete. */
    public synchronized boolean truncated() { return truncated; }
    /** asmspy_scope_end's result: 0, or a negative -ASMSPY_E_*. */
    public synchronized int rc() { return rc; }

    @Override
    public String toString() {
      return name + ": " + insnCount + " insns, tier " + tier + (truncated ? " (truncated)" : "");
    }
  }
}
