package asmspy;

/** A native library opened with dlopen through the JNI shim, so Java code
 *  can take a function's address and call it (the FFM API is not final in
 *  JDK 17). Only `long f(long)` calls: enough for the tests and examples. */
public final class NativeLib {
  private final long handle;

  private NativeLib(long handle) {
    this.handle = handle;
  }

  /** dlopen(path): a path, or a soname the loader finds ("libc.so.6"). */
  public static NativeLib open(String path) {
    if (!Native.SHIM_LOADED) throw new UnsatisfiedLinkError(Native.LOAD_ERROR);
    return new NativeLib(Native.dlopen(path));
  }

  /** The address of a symbol (dlsym). */
  public long address(String name) {
    return Native.dlsym(handle, name);
  }

  /** A `long name(long)` function of this library. */
  public Fn fn(String name) {
    return new Fn(address(name));
  }

  /** A native `long f(long)`: its address (for a region scope) and a call. */
  public static final class Fn {
    private final long address;

    public Fn(long address) {
      this.address = address;
    }

    public long address() {
      return address;
    }

    public long call(long x) {
      return Native.callLong(address, x);
    }
  }
}
