/* calls_lib: the code of calls_launcher, in a library (how python3, ruby
 * and java ship: a small executable, the program in libpython / libruby /
 * libjvm). lib_run(n) -> per iteration lib_outer(i) -> lib_mid x2 ->
 * lib_leaf x2: 7 calls per iteration. */
__attribute__((noinline)) long lib_leaf(long x) { return x * 7 + 3; }
__attribute__((noinline)) long lib_mid(long x) { return lib_leaf(x) ^ lib_leaf(x + 1); }
__attribute__((noinline)) long lib_outer(long i) { return lib_mid(i) + lib_mid(i + 2); }
__attribute__((noinline)) long lib_run(long n) {
  long acc = 0;
  for (long i = 0; i < n; i++) acc += lib_outer(i);
  return acc;
}
