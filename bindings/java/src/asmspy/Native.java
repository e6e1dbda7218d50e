package asmspy;

/** The JNI shim (libasmspy_jni.so, bindings/java/native). Lookup: the system
 *  property asmspy.jni or $ASMSPY_JNI_LIB (a path), else
 *  System.loadLibrary("asmspy_jni") through java.library.path, else the shim
 *  installed beside this jar's prefix (<prefix>/<datadir>/asmspy/java/asmspy.jar
 *  -> <prefix>/<libdir>/libasmspy_jni.so: the jar's asmspy/install.properties
 *  names that libdir relative to the jar; lib/<multiarch>, lib64, lib are
 *  tried too), so a relocated install works with no flag. The shim then
 *  dlopens libasmspy ($ASMSPY_LIB, else libasmspy.so.0 through its own
 *  $ORIGIN rpath, the loader's search). When either is missing every scope is
 *  a recorded no-op with LOAD_ERROR as its reason; nothing throws. */
final class Native {
  static final String LOAD_ERROR;
  static final boolean SHIM_LOADED;

  static {
    String err;
    boolean shim = false;
    String path = System.getProperty("asmspy.jni");
    if (path == null || path.isEmpty()) path = System.getenv("ASMSPY_JNI_LIB");
    try {
      if (path != null && !path.isEmpty()) {
        System.load(path);
      } else {
        try {
          System.loadLibrary("asmspy_jni");
        } catch (UnsatisfiedLinkError e) {
          String beside = besideJar();
          if (beside == null) throw e;
          path = beside;
          System.load(beside);
        }
      }
      shim = true;
      err = loadError();
    } catch (UnsatisfiedLinkError | SecurityException e) {
      err = "asmspy: cannot load the JNI shim libasmspy_jni.so ("
          + (path != null && !path.isEmpty() ? path : "java.library.path, nor beside the jar")
          + "): " + e.getMessage();
    }
    LOAD_ERROR = err;
    SHIM_LOADED = shim;
  }

  private Native() {}

  /** libasmspy_jni.so of the prefix this class was loaded from (an installed
   *  jar), or null. */
  private static String besideJar() {
    try {
      java.security.CodeSource cs = Native.class.getProtectionDomain().getCodeSource();
      if (cs == null || cs.getLocation() == null) return null;
      java.nio.file.Path jar = java.nio.file.Paths.get(cs.getLocation().toURI());
      java.nio.file.Path dir = jar.getParent();
      if (dir == null) return null;
      java.util.List<String> rels = new java.util.ArrayList<>();
      try (java.io.InputStream in = Native.class.getResourceAsStream("install.properties")) {
        if (in != null) {
          java.util.Properties p = new java.util.Properties();
          p.load(in);
          String r = p.getProperty("libdir_from_jar");
          if (r != null && !r.isEmpty()) rels.add(r);
        }
      }
      rels.add("../../../lib/x86_64-linux-gnu");
      rels.add("../../../lib/aarch64-linux-gnu");
      rels.add("../../../lib64");
      rels.add("../../../lib");
      for (String r : rels) {
        java.nio.file.Path so = dir.resolve(r).resolve("libasmspy_jni.so").normalize();
        if (java.nio.file.Files.isRegularFile(so)) return so.toString();
      }
    } catch (Exception | LinkageError e) {
      return null;
    }
    return null;
  }

  static native String loadError();
  static native long begin(String name, long addr, long len, int flags);
  static native int end(long h);
  static native void free(long h);
  static native String text(long h);
  static native String path(long h);
  static native String tier(long h);
  static native String reason(long h);
  static native String name(long h);
  static native long insnCount(long h);
  static native long gaps(long h);
  static native boolean truncated(long h);
  static native long dlopen(String path);
  static native long dlsym(long handle, String name);
  static native long callLong(long addr, long x);
}
