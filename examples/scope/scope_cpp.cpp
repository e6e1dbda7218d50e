// C++ scope example: the RAII ScopedTrace around a small known function.
// Build and run from the source root after `./run.sh` (or ninja -C build):
//   c++ -O1 -Iinclude examples/scope/scope_cpp.cpp -o /tmp/scope_cpp -Lbuild/host -lasmspy -Wl,-rpath,$PWD/build/host && /tmp/scope_cpp
#include <asmspy/scope.hpp>

#include <cstdio>
#include <cstring>

__attribute__((noinline)) static long square_sum(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += i * i;
  return s;
}

int main() {
  long r;
  {
    asmspy::ScopedTrace t(reinterpret_cast<const void *>(&square_sum)); // region: its extent
    r = square_sum(4);
    t.end(); // ends the scope and prints the assembly that ran (the destructor would too)
    std::printf("tier %s, %llu instructions\n", t.tier(),
                static_cast<unsigned long long>(t.insn_count()));
    if (!std::strcmp(t.tier(), "NONE")) std::printf("not captured: %s\n", t.reason());
  }
  std::printf("square_sum(4) = %ld\n", r);
  return 0;
}
