// calls_cxx: C++ exceptions thrown through patched frames. thrower() throws
// from 3 frames below catcher(); catcher() catches, and its own caller keeps
// returning normally through its (re-hooked) frame. Also a rethrow and a
// std::runtime_error caught two levels up. `calls_cxx <rounds> [--wait]`;
// prints "checksum <n>".
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

#include "wait_start.h"

__attribute__((noinline)) long leaf(long x) { return x * 3 + 2; }

__attribute__((noinline)) void thrower(int v) {
  if (v % 3 == 0) throw std::runtime_error("three");
  throw v;
}

static volatile int depth_limit = 3;

__attribute__((noinline)) long middle(int d, int v) {
  if (d >= depth_limit) thrower(v);
  return middle(d + 1, v) + leaf(d);
}

__attribute__((noinline)) long catcher(int v) {
  try {
    return middle(0, v);
  } catch (int x) {
    return leaf(x);
  }
}

__attribute__((noinline)) long rethrower(int v) {
  try {
    return catcher(v);
  } catch (...) {
    throw;
  }
}

__attribute__((noinline)) long top(int v) {
  try {
    return rethrower(v) + leaf(v);
  } catch (const std::runtime_error &e) {
    return (long)std::strlen(e.what()) + leaf(-v);
  }
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? std::atol(argv[1]) : 100;
  if (argc > 2 && !std::strcmp(argv[2], "--wait")) wait_start();
  long acc = 0;
  for (long r = 0; r < rounds; r++) acc += top((int)r);
  std::printf("checksum %ld\n", acc);
  return 0;
}
