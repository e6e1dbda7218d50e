// test_scope_csharp: the C# binding (bindings/csharp) on the scope victim.
// Run by run_csharp.sh through test_scope_counts.sh (the callgrind oracle
// exports SCOPE_EXP_*). Modes: no argument = the traced checks; -noplugin =
// run with ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent (tier
// NONE); -nolib = run with ASMSPY_LIB pointing nowhere.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using Asmspy;

static class TestScope
{
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    delegate long LongFn(long x);

    static int failures;
    static IntPtr workAddr, helperAddr;
    static LongFn Work;

    static void Check(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok   " : "FAIL ") + what);
        if (!ok) failures++;
    }

    static int Line([CallerLineNumber] int line = 0) { return line; }

    static long ExpectWork(long n)
    {
        long acc = 0;
        for (long i = 0; i < 5; i++) acc += (n + i) * 3 + 1;
        return acc;
    }

    static long EnvNum(string name)
    {
        long v;
        return long.TryParse(Environment.GetEnvironmentVariable(name), out v) ? v : -1;
    }

    static int Main(string[] args)
    {
        string lib = Environment.GetEnvironmentVariable("SCOPE_VICTIM_LIB") ?? "libscope_victim.so";
        IntPtr h = Dl.Open(lib);
        workAddr = h == IntPtr.Zero ? IntPtr.Zero : Dl.Sym(h, "work");
        helperAddr = h == IntPtr.Zero ? IntPtr.Zero : Dl.Sym(h, "helper");
        if (workAddr == IntPtr.Zero || helperAddr == IntPtr.Zero)
        {
            Console.WriteLine("FAIL cannot load work/helper from " + lib + ": " + Dl.Error());
            return 1;
        }
        Work = (LongFn)Marshal.GetDelegateForFunctionPointer(workAddr, typeof(LongFn));
        Work(1); // JIT the delegate's native-call wrapper outside any scope
        string mode = args.Length > 0 ? args[0] : "";
        if (mode == "-noplugin") NoTrace("no plugin reachable");
        else if (mode == "-nolib") NoTrace("no libasmspy");
        else Traced();
        if (failures > 0) Console.WriteLine("# " + failures + " failure(s)");
        return failures > 0 ? 1 : 0;
    }

    // (6) nothing can trace: a recorded no-op, the program's result unchanged.
    static void NoTrace(string what)
    {
        long v;
        var t = new AsmTrace(workAddr, emit: false);
        using (t)
        {
            v = Work(7);
        }
        Console.WriteLine("# csharp " + what + ": tier " + t.Tier + ", reason: " + t.Reason);
        Check(v == ExpectWork(7), what + ": work(7) = " + v + " under the scope");
        Check(t.Tier == "NONE" && t.Reason.Length > 0 && t.InsnCount == 0, what + ": tier NONE with a reason");
        if (what == "no libasmspy")
            Check(t.Reason.Contains("cannot load libasmspy"), "the reason says libasmspy was not found");
        using (var w = new AsmTrace(emit: false))
        {
            v = Work(2);
            t = w;
        }
        Check(t.Tier == "NONE" && v == ExpectWork(2), what + ": whole window too: tier NONE, work(2) right");
    }

    static void DisposeOnPool(IDisposable d)
    {
        Task.Run(() => d.Dispose()).Wait();
    }

    static void DisposeInContinuation(IDisposable d)
    {
        Task.Delay(1).ContinueWith(_ => d.Dispose()).Wait();
    }

    // A using block around an await: the continuation (and Dispose) runs on
    // a thread-pool thread (a console program has no synchronization context).
    static async Task<AsmTrace> HopAwait(bool trace)
    {
        AsmTrace t = trace ? new AsmTrace(workAddr, emit: false) : null;
        using (t)
        {
            await Task.Yield(); // always resumes elsewhere: the thread pool here
            Work(2);
        }
        return t;
    }

    sealed class Nothing : IDisposable { public void Dispose() { } }

    static void Traced()
    {
        long wSelf = EnvNum("SCOPE_EXP_WORK_SELF"), hX5 = EnvNum("SCOPE_EXP_HELPER_X5"),
             wIncl = EnvNum("SCOPE_EXP_WORK_INCL");
        bool exact = wSelf > 0 && hX5 > 0 && wIncl > 0;
        if (!exact) Console.WriteLine("# no SCOPE_EXP_* (not run through test_scope_counts.sh): exact counts not checked");
        long v;

        // (1) region = work's extent: callgrind's exclusive count of work.
        var t = new AsmTrace(workAddr, emit: false); int line = Line(); // the same line
        using (t)
        {
            v = Work(7);
        }
        Console.WriteLine("# csharp region work: " + t.InsnCount + " insns, tier " + t.Tier + " (" + t.Reason + ")");
        if (t.Tier != "WEAK")
        {
            Console.WriteLine("FAIL no WEAK tier here: " + t.Reason + "\n" + t.Text);
            failures++;
            return;
        }
        Check(v == ExpectWork(7), "work(7) returns the right value under the scope");
        Check(!t.Truncated, "region scope not truncated");
        if (exact) Check((long)t.InsnCount == wSelf, "region work " + t.InsnCount + " == callgrind work self " + wSelf);
        Check(t.Name.Contains("TestScope.cs:") && t.Name.Contains(":Traced") &&
              t.Name.EndsWith("TestScope.cs:" + line + ":Traced"),
              "auto-named from the caller: " + t.Name + " (line " + line + ")");
        Check(t.Text.Contains("work+0x"), "the text lists work+0x.. lines");
        Check(t.Path.Length > 0, "written to " + t.Path);

        // (2) region = helper: 5 calls per work().
        using (t = new AsmTrace(helperAddr, emit: false))
        {
            v = Work(3);
        }
        if (exact) Check((long)t.InsnCount == hX5, "region helper " + t.InsnCount + " == callgrind helper x5 " + hX5);

        // (3) whole window: everything the thread ran, the runtime included.
        using (t = new AsmTrace(emit: false))
        {
            v = Work(5);
        }
        Console.WriteLine("# csharp whole window: " + t.InsnCount + " insns (work inclusive " + wIncl + "), gaps " +
                          t.Gaps + ", truncated " + t.Truncated);
        Check(v == ExpectWork(5) && !t.Truncated, "whole window: work(5) right, not truncated (" + t.Reason + ")");
        if (exact) Check((long)t.InsnCount >= wSelf + hX5, "whole window " + t.InsnCount + " >= work + helper x5 = " + (wSelf + hX5));
        Check(t.Text.Contains("work+0x") && t.Text.Contains("helper+0x"), "whole window lists work and helper");

        // (4) an explicit (address, 1) range: work's first instruction, once.
        using (t = new AsmTrace(workAddr, 1UL, emit: false))
        {
            v = Work(1);
        }
        Check(t.InsnCount == 1, "(work, 1) range == " + t.InsnCount + " (want 1)");

        // (5) thread hop: the scope is disposed on a thread-pool thread.
        DisposeOnPool(new Nothing()); // warm up (JIT) the same path outside a scope
        DisposeInContinuation(new Nothing());
        int tidBegin = Thread.CurrentThread.ManagedThreadId;
        t = new AsmTrace(workAddr, emit: false);
        v = Work(2);
        DisposeOnPool(t);
        Console.WriteLine("# csharp thread hop (Task.Run): truncated " + t.Truncated + ", " + t.InsnCount + " insns, " + t.Reason);
        Check(t.Truncated && t.Reason.Contains("thread hop"), "Task.Run Dispose -> truncated, thread hop reason");
        Check(v == ExpectWork(2) && Thread.CurrentThread.ManagedThreadId == tidBegin, "the hopping thread kept running correctly");
        t = new AsmTrace(workAddr, emit: false);
        v = Work(3);
        DisposeInContinuation(t);
        Console.WriteLine("# csharp thread hop (ContinueWith): truncated " + t.Truncated + ", " + t.Reason);
        Check(t.Truncated && t.Reason.Contains("thread hop"), "ContinueWith Dispose -> truncated, thread hop reason");
        HopAwait(false).Wait(); // warm up
        t = HopAwait(true).Result;
        Console.WriteLine("# csharp thread hop (using around await): truncated " + t.Truncated + ", " + t.Reason);
        Check(t.Truncated && t.Reason.Contains("thread hop"), "using around an await -> truncated, thread hop reason");
        using (t = new AsmTrace(workAddr, emit: false))
        {
            v = Work(7);
        }
        Check(t.Tier == "WEAK" && !t.Truncated && (!exact || (long)t.InsnCount == wSelf),
              "a scope after the hops is whole again: " + t.InsnCount + " insns");

        // HwBackend: IntelPt asks for STRONG directly and never falls back to WEAK.
        using (t = new AsmTrace(workAddr, HwBackend.IntelPt, emit: false))
        {
            v = Work(7);
        }
        Console.WriteLine("# csharp IntelPt: tier " + t.Tier + " (" + t.Reason + ")");
        Check(t.Tier != "WEAK" && (t.Tier == "STRONG" || t.Reason.Length > 0) && v == ExpectWork(7),
              "HwBackend.IntelPt: STRONG or a self-skip with the reason, never WEAK");
        using (t = new AsmTrace(workAddr, HwBackend.AmdLbr, emit: false))
        {
            v = Work(7);
        }
        Console.WriteLine("# csharp AmdLbr: tier " + t.Tier + " (" + t.Reason + ")");
        Check(t.Tier != "WEAK" && v == ExpectWork(7), "HwBackend.AmdLbr: CEILING or a self-skip, never WEAK");

        // (7) per-scope overhead, printed only.
        const int iters = 200;
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < iters; i++)
        {
            using (AsmTrace.Named("csharp-overhead", workAddr, 0, HwBackend.Auto, false)) { }
        }
        double us = sw.Elapsed.TotalMilliseconds * 1000.0 / iters;
        Console.WriteLine("# overhead csharp: " + us.ToString("F1", System.Globalization.CultureInfo.InvariantCulture) +
                          " us per scope (begin+end, empty region)");
    }
}
