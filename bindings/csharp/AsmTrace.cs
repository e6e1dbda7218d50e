// asmspy scoped tracing for C# / .NET: P/Invoke over libasmspy's
// <asmspy/scope.h>. A using block brackets native code and the scope holds
// the assembly that ran inside it once disposed:
//
//     IntPtr work = ...;                       // a native function's address
//     using (var t = new AsmTrace(work))       // region: work's extent
//     {
//         Work(7);                             // a call into that native code
//     }
//     Console.WriteLine($"{t.InsnCount} insns, tier {t.Tier}, {t.Path}");
//
// The scope is auto-named from the call site ([CallerFilePath],
// [CallerLineNumber], [CallerMemberName]). Capture follows the calling OS
// thread: a scope disposed on another thread (an await continuation, a
// Task.Run, a thread-pool callback) comes back Truncated with the core's
// "thread hop" reason and no listing. A scope that cannot trace (no
// libasmspy, no usable backend) is a recorded no-op: Tier "NONE" and the
// Reason; nothing here throws into the caller's code.
//
// Library lookup: $ASMSPY_LIB (a path; loaded first, so the DllImport of
// "libasmspy.so.0" binds to it through its SONAME), else libasmspy.so.0 /
// libasmspy.so through the normal loader path (LD_LIBRARY_PATH, ldconfig).
// Plain C# (C# 6): builds with mono's mcs and with the dotnet SDK.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Asmspy
{
    /// <summary>Which tier a scope arms.</summary>
    public enum HwBackend
    {
        /// <summary>The ladder: STRONG if a backend proves usable, else WEAK.</summary>
        Auto = 0,
        /// <summary>The STRONG tier directly (ASMSPY_SCOPE_STRONG); self-skips with the reason.</summary>
        IntelPt = 1,
        /// <summary>The CEILING tier (ASMSPY_SCOPE_CEILING): sampled branch edges, never auto-chosen.</summary>
        AmdLbr = 2,
    }

    /// <summary>One scope: begun by the constructor, ended by Dispose; the
    /// results are readable after Dispose.</summary>
    public sealed class AsmTrace : IDisposable
    {
        // flag values mirror include/asmspy/scope.h
        const uint Quiet = 1, Strong = 2, Ceiling = 4;

        IntPtr _s;
        bool _ended;

        public string Name { get; private set; }
        public string Text { get; private set; }
        public string Path { get; private set; }
        /// <summary>"STRONG", "WEAK", "CEILING" or "NONE".</summary>
        public string Tier { get; private set; }
        /// <summary>Why this tier, or why truncated (the core's words).</summary>
        public string Reason { get; private set; }
        public ulong InsnCount { get; private set; }
        public bool Truncated { get; private set; }
        /// <summary>Stretches stepped over untraced (thread creation, ...).</summary>
        public ulong Gaps { get; private set; }

        /// <summary>Whole window: everything the thread runs until Dispose
        /// (the runtime's own code included: faithful but noisy).</summary>
        public AsmTrace(HwBackend backend = HwBackend.Auto, bool emit = true,
                        [CallerFilePath] string file = "", [CallerLineNumber] int line = 0,
                        [CallerMemberName] string member = "")
        {
            Begin(IntPtr.Zero, UIntPtr.Zero, backend, emit, AutoName(file, line, member));
        }

        /// <summary>Region: the extent of the native symbol covering code
        /// (IntPtr.Zero: the whole window).</summary>
        public AsmTrace(IntPtr code, HwBackend backend = HwBackend.Auto, bool emit = true,
                        [CallerFilePath] string file = "", [CallerLineNumber] int line = 0,
                        [CallerMemberName] string member = "")
        {
            Begin(code, UIntPtr.Zero, backend, emit, AutoName(file, line, member));
        }

        /// <summary>Region: exactly [code, code + length).</summary>
        public AsmTrace(IntPtr code, ulong length, HwBackend backend = HwBackend.Auto, bool emit = true,
                        [CallerFilePath] string file = "", [CallerLineNumber] int line = 0,
                        [CallerMemberName] string member = "")
        {
            Begin(code, new UIntPtr(length), backend, emit, AutoName(file, line, member));
        }

        /// <summary>An explicit name (the registration key) instead of the call site.</summary>
        public static AsmTrace Named(string name, IntPtr code, ulong length = 0,
                                     HwBackend backend = HwBackend.Auto, bool emit = true)
        {
            return new AsmTrace(name, code, new UIntPtr(length), backend, emit, true);
        }

        internal static void Warm()
        {
            // never begun: Dispose returns at once, compiled all the same
            var t = new AsmTrace("warm", IntPtr.Zero, UIntPtr.Zero, HwBackend.Auto, false, false);
            t._ended = true;
            ((IDisposable)t).Dispose();
        }

        AsmTrace(string name, IntPtr code, UIntPtr len, HwBackend backend, bool emit, bool begin)
        {
            if (begin) Begin(code, len, backend, emit, name);
        }

        static string AutoName(string file, int line, string member)
        {
            return file + ":" + line + ":" + member;
        }

        void Begin(IntPtr code, UIntPtr len, HwBackend backend, bool emit, string name)
        {
            Name = name;
            Text = Path = Reason = "";
            Tier = "NONE";
            if (!Native.Load())
            {
                Reason = Native.LoadError;
                _ended = true;
                return;
            }
            uint flags = emit ? 0u : Quiet;
            if (backend == HwBackend.IntelPt) flags |= Strong;
            else if (backend == HwBackend.AmdLbr) flags |= Ceiling;
            _s = Arm(name, code, len, flags);
        }

        // Apart from Begin: mono binds a P/Invoke when it compiles the method
        // that calls it, and that must come after Native.Load's dlopen of
        // $ASMSPY_LIB. Nothing after the native call until Dispose.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static IntPtr Arm(string name, IntPtr code, UIntPtr len, uint flags)
        {
            return Native.asmspy_scope_begin(name, code, len, flags);
        }

        /// <summary>Ends the scope (idempotent) and reads its results.</summary>
        public void Dispose()
        {
            if (_ended) return;
            _ended = true;
            IntPtr s = _s;
            if (s == IntPtr.Zero)
            {
                Reason = "asmspy_scope_begin returned NULL";
                return;
            }
            Native.asmspy_scope_end(s); // first: the capture stops here
            _s = IntPtr.Zero;
            Name = Str(Native.asmspy_scope_name(s));
            Text = Str(Native.asmspy_scope_text(s));
            Path = Str(Native.asmspy_scope_path(s));
            Tier = Str(Native.asmspy_scope_tier(s));
            Reason = Str(Native.asmspy_scope_reason(s));
            InsnCount = Native.asmspy_scope_insn_count(s);
            Truncated = Native.asmspy_scope_truncated(s) != 0;
            Gaps = Native.asmspy_scope_gaps(s);
            Native.asmspy_scope_free(s);
            GC.SuppressFinalize(this);
        }

        /// <summary>A scope never disposed: ended here, on the finalizer
        /// thread (a thread hop: the capture is discarded, and the thread
        /// that began it stops being stepped at its next instruction).</summary>
        ~AsmTrace()
        {
            if (!_ended && _s != IntPtr.Zero)
            {
                _ended = true;
                Native.asmspy_scope_end(_s);
                Native.asmspy_scope_free(_s);
                _s = IntPtr.Zero;
            }
        }

        static string Str(IntPtr p)
        {
            return p == IntPtr.Zero ? "" : Marshal.PtrToStringAnsi(p);
        }

        public override string ToString()
        {
            return Name + ": " + InsnCount + " insns, tier " + Tier + (Truncated ? " (truncated)" : "") +
                   (Reason.Length > 0 ? ": " + Reason : "");
        }
    }

    /// <summary>The libasmspy entry points, and dlopen for the explicit path.</summary>
    static class Native
    {
        const string Lib = "libasmspy.so.0";
        static readonly object Gate = new object();
        static int _state; // 0 not tried, 1 loaded, -1 failed
        internal static string LoadError = "";

        internal static bool Load()
        {
            if (_state != 0) return _state > 0;
            lock (Gate)
            {
                if (_state != 0) return _state > 0;
                string errors = "";
                string explicitPath = Environment.GetEnvironmentVariable("ASMSPY_LIB");
                if (!string.IsNullOrEmpty(explicitPath))
                {
                    // Loaded first: the DllImport below ("libasmspy.so.0") then
                    // binds to this object through its SONAME.
                    Dl.Error(); // binds the dlerror stub first: binding it later would clear the error
                    if (Dl.Open(explicitPath) == IntPtr.Zero) errors = "ASMSPY_LIB: " + Dl.Error() + "; ";
                }
                try
                {
                    Bind();
                    _state = 1;
                    // Compile Dispose now: a method's first call runs the JIT,
                    // and inside the first scope that would be stepped (over a
                    // million instructions: the recording buffer overflows).
                    AsmTrace.Warm();
                }
                catch (Exception e) // DllNotFoundException, EntryPointNotFoundException
                {
                    if (Dl.Open("libasmspy.so") != IntPtr.Zero)
                        errors += "libasmspy.so.0 not found, libasmspy.so is: set ASMSPY_LIB to its path";
                    else
                        errors += e.GetType().Name + ": " + e.Message;
                    LoadError = "asmspy: cannot load libasmspy (" + errors + ")";
                    _state = -1;
                }
                return _state > 0;
            }
        }

        // Binds (and compiles) the P/Invoke stubs, outside any scope. A
        // method of its own: mono binds a DllImport when it compiles the
        // caller, which must come after the dlopen above.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Bind()
        {
            asmspy_scope_slot_count();
            asmspy_scope_end(IntPtr.Zero);
            asmspy_scope_free(IntPtr.Zero);
        }

        [DllImport(Lib)] internal static extern IntPtr asmspy_scope_begin(
            [MarshalAs(UnmanagedType.LPStr)] string name, IntPtr code, UIntPtr len, uint flags);
        [DllImport(Lib)] internal static extern int asmspy_scope_end(IntPtr s);
        [DllImport(Lib)] internal static extern void asmspy_scope_free(IntPtr s);
        [DllImport(Lib)] internal static extern IntPtr asmspy_scope_text(IntPtr s);
        [DllImport(Lib)] internal static extern IntPtr asmspy_scope_path(IntPtr s);
        [DllImport(Lib)] internal static extern IntPtr asmspy_scope_tier(IntPtr s);
        [DllImport(Lib)] internal static extern IntPtr asmspy_scope_reason(IntPtr s);
        [DllImport(Lib)] internal static extern IntPtr asmspy_scope_name(IntPtr s);
        [DllImport(Lib)] internal static extern ulong asmspy_scope_insn_count(IntPtr s);
        [DllImport(Lib)] internal static extern int asmspy_scope_truncated(IntPtr s);
        [DllImport(Lib)] internal static extern ulong asmspy_scope_gaps(IntPtr s);
        [DllImport(Lib)] internal static extern UIntPtr asmspy_scope_slot_count();
    }

    /// <summary>dlopen/dlsym through libdl.so.2 (glibc; present on every
    /// glibc system, a stub forwarding to libc since 2.34).</summary>
    public static class Dl
    {
        const int RTLD_NOW = 2, RTLD_GLOBAL = 0x100;
        [DllImport("libdl.so.2", EntryPoint = "dlopen")] static extern IntPtr dlopen(string file, int mode);
        [DllImport("libdl.so.2", EntryPoint = "dlsym")] static extern IntPtr dlsym(IntPtr handle, string name);
        [DllImport("libdl.so.2", EntryPoint = "dlerror")] static extern IntPtr dlerror();

        public static IntPtr Open(string file) { return dlopen(file, RTLD_NOW | RTLD_GLOBAL); }
        public static IntPtr Sym(IntPtr handle, string name) { return dlsym(handle, name); }
        public static string Error()
        {
            IntPtr p = dlerror();
            return p == IntPtr.Zero ? "" : Marshal.PtrToStringAnsi(p);
        }
    }
}
