// C# scope example: trace libc's labs() called through a delegate, region
// mode. From the source root, after `ninja -C build`:
//
//   mcs -out:/tmp/scope_example.exe examples/scope/csharp/ScopeExample.cs bindings/csharp/AsmTrace.cs
//   ASMSPY_LIB=$PWD/build/host/libasmspy.so mono /tmp/scope_example.exe
using System;
using System.Runtime.InteropServices;
using Asmspy;

static class ScopeExample
{
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    delegate long LongFn(long x);

    static int Main()
    {
        IntPtr labs = Dl.Sym(IntPtr.Zero, "labs"); // RTLD_DEFAULT: libc is loaded
        var Labs = (LongFn)Marshal.GetDelegateForFunctionPointer(labs, typeof(LongFn));
        Labs(1); // compile the delegate's call stub outside the scope
        long v;
        var t = new AsmTrace(labs, emit: false); // region: labs's extent
        using (t)
        {
            v = Labs(-42);
        }
        Console.Write(t.Text);
        Console.WriteLine("labs(-42) = " + v + ": " + t.InsnCount + " insns, tier " + t.Tier + ", written to " + t.Path);
        if (t.Tier == "NONE") Console.WriteLine("not traced: " + t.Reason);
        return 0;
    }
}
