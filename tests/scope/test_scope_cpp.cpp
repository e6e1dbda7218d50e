// The C++ RAII scope (asmspy/scope.hpp) on the same known function as the C
// test: region-scoped counts must equal callgrind's (SCOPE_EXP_* from
// test_scope_counts.sh), and the auto-name must carry this file and line.
#include <asmspy/scope.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" long work(long n);
extern "C" long helper(long x);

namespace geometry {
// A C++ function with a mangled name (_ZN8geometry4areaEll): the scope text
// must show it demangled, as perf and uftrace do.
__attribute__((noinline)) long area(long w, long h) { return w * h + helper(w); }
} // namespace geometry

static int failures;
static void check(bool ok, const char *what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) failures++;
}

int main() {
  const char *ew = std::getenv("SCOPE_EXP_WORK_SELF"), *eh = std::getenv("SCOPE_EXP_HELPER_X5");
  if (!ew || !eh) {
    std::puts("SKIP: run through test_scope_counts.sh (the callgrind oracle)");
    return 77;
  }
  long work_self = std::atol(ew), helper_x5 = std::atol(eh);
  {
    asmspy::ScopedTrace t(reinterpret_cast<const void *>(&work), 0, ASMSPY_SCOPE_QUIET);
    work(7);
    t.end();
    std::printf("# C++ region work: %zu insns, tier %s %s\n", t.insn_count(), t.tier(), t.reason());
    check(std::strcmp(t.tier(), "WEAK") == 0, "tier WEAK");
    check(static_cast<long>(t.insn_count()) == work_self, "region work == callgrind work (self)");
    check(!t.truncated(), "not truncated");
    check(std::strstr(t.text(), "work") != nullptr, "text names work");
  }
  {
    asmspy::ScopedTrace t(reinterpret_cast<const void *>(&helper), 0, ASMSPY_SCOPE_QUIET);
    work(3);
    t.end();
    check(static_cast<long>(t.insn_count()) == helper_x5, "region helper == callgrind helper x5");
    check(std::strstr(t.path(), "test_scope_cpp") != nullptr, "auto-name from __builtin_FILE");
  }
  {
    asmspy::ScopedTrace t(nullptr, 0, ASMSPY_SCOPE_QUIET);
    long a = geometry::area(3, 4);
    t.end();
    check(a == 12 + helper(3), "geometry::area still right under the scope");
    check(std::strstr(t.text(), "geometry::area(long, long)+0x") != nullptr,
          "C++ names are demangled in the text");
    check(std::strstr(t.text(), "_ZN8geometry") == nullptr, "no mangled name left");
  }
  return failures ? 1 : 0;
}
