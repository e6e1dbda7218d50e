import asmspy.HwBackend;
import asmspy.HwTrace;
import asmspy.NativeLib;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The Java binding (bindings/java) against the callgrind oracle (SCOPE_EXP_*
 *  from test_scope_counts.sh): region counts of work/helper in
 *  libscope_victim.so, the whole window, an (addr, 1) range, the auto-name,
 *  a scope closed on a thread-pool thread (truncated: "thread hop"), the
 *  per-scope overhead (printed only). `java TestScopeJava noplugin` is the
 *  nothing-can-trace run (ASMSPY_PLUGIN_PATH_ONLY=1, ASMSPY_PLUGIN_PATH=/nonexistent);
 *  `quick` stops after the counts (the libjsig signal-chaining rerun). */
public final class TestScopeJava {
  static int failures;

  static void check(boolean ok, String what) {
    System.out.println((ok ? "ok   " : "FAIL ") + what);
    if (!ok) failures++;
  }

  static int len(int[] a) {
    return a.length;
  }

  static int line() {
    return StackWalker.getInstance().walk(s -> s.skip(1).findFirst()).get().getLineNumber();
  }

  public static void main(String[] args) throws Exception {
    NativeLib lib = NativeLib.open(System.getenv("SCOPE_VICTIM_LIB"));
    NativeLib.Fn work = lib.fn("work");
    NativeLib.Fn helper = lib.fn("helper");
    HwTrace tr = new HwTrace(HwBackend.AUTO, true); // quiet: no stdout listing
    long expected7 = work.call(7); // outside any scope

    if (args.length > 0 && args[0].equals("noplugin")) {
      long v;
      HwTrace.AsmTrace t = tr.scope(work);
      try (t) {
        v = work.call(7);
      }
      System.out.println("# java no-plugin: tier " + t.tier() + ", reason: " + t.reason());
      check(t.tier().equals("NONE"), "no plugin: tier NONE");
      check(!t.reason().isEmpty(), "no plugin: the reason is recorded");
      check(v == expected7 && v == 140, "no plugin: work(7) still returns " + v);
      check(!t.truncated() && t.insnCount() == 0, "no plugin: an empty, complete no-op");
      System.exit(failures == 0 ? 0 : 1);
    }

    String ew = System.getenv("SCOPE_EXP_WORK_SELF"), eh = System.getenv("SCOPE_EXP_HELPER_X5");
    if (ew == null || eh == null) {
      System.out.println("SKIP: run through test_scope_counts.sh (the callgrind oracle)");
      System.exit(77);
    }
    long expWork = Long.parseLong(ew), expHelper = Long.parseLong(eh);

    // (1) region work: exact, WEAK, complete, auto-named "File.java:line"
    long v;
    // (line() before the scope: StackWalker's first use bootstraps lambdas,
    // millions of JVM instructions that would fill a scope's buffer)
    int ln = line() + 1;
    HwTrace.AsmTrace t = HwTrace.AsmTrace.scope(work.address(), 0);
    try (t) {
      v = work.call(7);
    }
    System.out.println("# java region work: " + t.insnCount() + " insns, tier " + t.tier()
        + " (callgrind " + expWork + ")");
    check(t.tier().equals("WEAK"), "tier WEAK: " + t.tier() + " " + t.reason());
    check(t.insnCount() == expWork, "region work == callgrind work (self): " + t.insnCount());
    check(!t.truncated(), "not truncated");
    check(v == expected7, "the body's result is unchanged");
    check(t.name().equals("TestScopeJava.java:" + ln), "auto-named from the caller: " + t.name());

    // the seed's construct verbatim (quiet through the instance form elsewhere)
    String tierInside;
    try (var q = tr.scope(work)) {
      work.call(2);
      tierInside = q.tier();
    }
    check(tierInside.equals("OPEN"), "inside the try: tier OPEN until close");

    // (2) helper region: 5 calls per work()
    HwTrace.AsmTrace h = tr.scope(helper);
    try (h) {
      work.call(3);
    }
    check(h.insnCount() == expHelper, "region helper == callgrind helper x5: " + h.insnCount());

    // (3) whole window: everything the thread ran, the JVM's JNI glue included
    HwTrace.AsmTrace w = tr.scope();
    try (w) {
      work.call(3);
    }
    check(w.insnCount() >= expWork + expHelper && !w.truncated(),
        "whole window " + w.insnCount() + " >= work+helper " + (expWork + expHelper));

    // (4) an explicit (addr, 1) range: work's first instruction, once
    HwTrace.AsmTrace p = tr.scope(work.address(), 1);
    try (p) {
      work.call(1);
    }
    check(p.insnCount() == 1, "an (address, 1) range sees exactly one instruction: " + p.insnCount());
    if (args.length > 0 && args[0].equals("quick")) System.exit(failures == 0 ? 0 : 1);

    // an explicit backend that cannot arm here: a recorded no-op, body runs
    HwTrace.AsmTrace pt = new HwTrace(HwBackend.INTEL_PT, true).scope(work);
    try (pt) {
      v = work.call(2);
    }
    check(pt.tier().equals("STRONG") || (pt.tier().equals("NONE") && !pt.reason().isEmpty()),
        "HwBackend.INTEL_PT: " + pt.tier());
    check(v == work.call(2), "a scope that cannot arm still runs the body");

    // The JVM's own signals inside a single-stepped scope: a C2-compiled
    // implicit null check faults (SIGSEGV, si_addr 0xc, handled by HotSpot's
    // handler, which redirects the pc to the NPE path) and a System.gc()
    // safepoint; TF survives both (the kernel saves it in the signal frame),
    // so the region count stays exact.
    int[] arr = new int[3];
    long sum = 0;
    for (int i = 0; i < 200000; i++) sum += len(arr); // compiled with an implicit null check
    try {
      len(null);
    } catch (NullPointerException e) {
      sum++;
    }
    int npe = 0;
    HwTrace.AsmTrace jvm = tr.scope(work);
    try (jvm) {
      work.call(7);
      try {
        sum += len(null);
      } catch (NullPointerException e) {
        npe++;
      }
      System.gc();
      work.call(7);
    }
    check(npe == 1 && jvm.insnCount() == 2 * expWork && !jvm.truncated(),
        "a JVM SIGSEGV (implicit null check) and a GC inside the scope: still exact, "
            + jvm.insnCount() + " == 2 x " + expWork + " (" + sum + ")");

    // (7) per-scope overhead: begin+end of an empty region scope
    int n = 20;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) tr.scope(work).close();
    double us = (System.nanoTime() - t0) / 1e3 / n;
    System.out.printf("# overhead java: %.1f us per scope (begin+end, empty region)%n", us);

    // (5) thread hop: begun here, closed on a pool thread (a continuation)
    // Everything the arming thread runs is stepped, and a JVM's first use of
    // a call site (lambda bootstrap, class loading) is millions of
    // instructions: the pool, CompletableFuture and the closing lambda are
    // warmed up before the scope, so the scope covers only the hop itself.
    ExecutorService pool = Executors.newSingleThreadExecutor();
    HwTrace.AsmTrace[] box = new HwTrace.AsmTrace[1];
    Runnable closer = () -> { if (box[0] != null) box[0].close(); };
    CompletableFuture.runAsync(closer, pool).get();
    HwTrace.AsmTrace hop = tr.scope(work);
    box[0] = hop;
    work.call(1);
    CompletableFuture.runAsync(closer, pool).get(); // a thread-pool continuation closes it
    System.out.println("# java hop main->pool: truncated " + hop.truncated() + ": " + hop.reason());
    check(hop.truncated() && hop.reason().contains("thread hop"),
        "closed on a pool thread: truncated, \"thread hop\"");
    check(hop.insnCount() == 0, "a hopped scope presents no partial listing");

    // ... and the other way: begun on a pool thread, closed here
    HwTrace.AsmTrace back = CompletableFuture.supplyAsync(() -> {
      HwTrace.AsmTrace s = tr.scope(work);
      work.call(1);
      return s;
    }, pool).get();
    back.close();
    check(back.truncated() && back.reason().contains("thread hop"),
        "begun on a pool thread, closed here: truncated, \"thread hop\"");

    // a whole scope on a pool thread is exact; so is this thread after the hops
    long exactOnPool = pool.submit(() -> {
      HwTrace.AsmTrace s = tr.scope(work);
      try (s) {
        work.call(5);
      }
      return s.insnCount();
    }).get();
    check(exactOnPool == expWork, "a scope inside a pool task is exact: " + exactOnPool);
    HwTrace.AsmTrace again = tr.scope(work);
    try (again) {
      work.call(9);
    }
    check(again.insnCount() == expWork && !again.truncated(), "this thread exact after the hops");
    pool.shutdown();
    System.exit(failures == 0 ? 0 : 1);
  }
}
