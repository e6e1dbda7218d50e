package asmspy;

/** The JNI shim (libasmspy_jni.so, bindings/java/native). Lookup: the system
 *  property asmspy.jni or $ASMSPY_JNI_LIB (a path), else
 *  System.loadLibrary("asmspy_jni") through java.library.path. The shim then
 *  dlopens libasmspy ($ASMSPY_LIB, else libasmspy.so.0 / libasmspy.so). When
 *  either is missing every scope is a recorded no-op with LOAD_ERROR as its
 *  reason; nothing throws. */
final class Native {
  static final String LOAD_ERROR;
  static final boolean SHIM_LOADED;

  static {
    String err;
    boolean shim = false;
    String path = System.getProperty("asmspy.jni");
    if (path == null || path.isEmpty()) path = System.getenv("ASMSPY_JNI_LIB");
    try {
      if (path != null && !path.isEmpty()) System.load(path);
      else System.loadLibrary("asmspy_jni");
      shim = true;
      err = loadError();
    } catch (UnsatisfiedLinkError | SecurityException e) {
      err = "asmspy: cannot load the JNI shim libasmspy_jni.so ("
          + (path != null && !path.isEmpty() ? path : "java.library.path") + "): " + e.getMessage();
    }
    LOAD_ERROR = err;
    SHIM_LOADED = shim;
  }

  private Native() {}

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
