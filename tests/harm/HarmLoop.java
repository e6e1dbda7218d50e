// HarmLoop.java: the JVM's fixed loop for harm.sh (traced with
// --module=libjvm). harm.sh compiles it with javac into a temp dir. Rounds
// forever on the main thread plus two worker threads (the JIT compiles
// roundWork while traced); harm.h's protocol.
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.HashMap;

public class HarmLoop {
  static long roundWork() {
    long s = 0;
    HashMap<String, Long> m = new HashMap<>();
    for (int i = 0; i < 20000; i++) {
      s = (s * 31 + (long) i * i) % 1000000007L;
      m.put(Integer.toString(i % 500), s);
    }
    long t = 0;
    for (long v : m.values()) t = (t + v) % 1000003L;
    return s + t + m.size();
  }

  public static void main(String[] args) throws Exception {
    String o = System.getenv("HARM_OUT");
    PrintStream out = o != null ? new PrintStream(new FileOutputStream(o), true) : System.out;
    long want = roundWork();
    out.println(ProcessHandle.current().pid() + " ready reference=" + want);
    out.flush();
    for (int k = 0; k < 2; k++) {
      Thread w = new Thread(() -> {
        while (true) {
          if (roundWork() != want) {
            out.println("round 0 CORRUPT a worker thread's checksum");
            out.flush();
          }
        }
      }, "harm-worker-" + k);
      w.setDaemon(true);
      w.start();
    }
    for (long r = 1;; r++) {
      long got = roundWork();
      out.println(got == want ? "round " + r + " OK" : "round " + r + " CORRUPT checksum: got " + got + " want " + want);
      out.flush();
    }
  }
}
