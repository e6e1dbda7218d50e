import asmspy.HwBackend;
import asmspy.HwTrace;
import asmspy.NativeLib;

/** Java scope example: trace libc's labs() called through the asmspy JNI shim.
 *  Build and run from the source root after `ninja -C build` (docs/scope/java.md):
 *    javac -cp build/tests/scope/java/asmspy.jar -d /tmp/scope_java examples/scope/java/ScopeJava.java
 *    ASMSPY_LIB=build/host/libasmspy.so java -Djava.library.path=build/tests/scope/java \
 *      -cp build/tests/scope/java/asmspy.jar:/tmp/scope_java ScopeJava */
public final class ScopeJava {
  public static void main(String[] args) {
    NativeLib.Fn labs = NativeLib.open("libc.so.6").fn("labs"); // long labs(long)
    long v;
    HwTrace.AsmTrace t = new HwTrace(HwBackend.AUTO, true).scope(labs); // quiet: print it below
    try (t) { // region: labs's extent; auto-named File.java:line
      v = labs.call(-42);
    }
    System.out.println(t.text());
    System.out.println("labs(-42) = " + v + ": " + t.insnCount() + " insns, tier " + t.tier()
        + ", scope " + t.name());
    System.out.println("written to " + t.path() + (t.truncated() ? " (truncated: " + t.reason() + ")" : ""));
    if (t.tier().equals("NONE")) System.out.println("not captured: " + t.reason()); // a no-op: say why
  }
}
