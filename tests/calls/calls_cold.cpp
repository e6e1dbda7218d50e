// calls_cold: -O2 C++ whose unlikely paths gcc moves into `.cold` parts
// (`parse(int) [clone .cold]`, `main.cold`): the throw, and the landing pads
// that catch and rethrow. Those parts are not functions (nothing calls
// them: they are jumped to from their function's hot part or entered by
// the unwinder), so a call capture must not patch them.
// `calls_cold [rounds] [--wait]`: rounds of 1000 calls that throw and catch
// (no count: until SIGTERM); prints "checksum <n>" (one round's sum, the
// same in every round) and exits 0, or exits 2 when a round's sum differs.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "wait_start.h"

struct bad_value : std::runtime_error {
  int v;
  explicit bad_value(int x) : std::runtime_error("bad value"), v(x) {}
};

static volatile int modulus = 5;

__attribute__((noinline)) int parse(int x) {
  if (__builtin_expect(x % modulus == 0, 0)) throw bad_value(x);
  return x * 3 + 1;
}

// its catch is unlikely: the landing pad goes to a .cold part, which
// rethrows after counting
__attribute__((noinline)) int relay(int x, long *seen) {
  std::string tag = "relay";
  try {
    return parse(x) + (int)tag.size();
  } catch (const bad_value &e) {
    *seen += e.v;
    throw;
  }
}

__attribute__((noinline)) long outer(int x) {
  long seen = 0;
  try {
    return relay(x, &seen);
  } catch (const std::exception &e) {
    return seen + (long)std::strlen(e.what());
  }
}

static volatile std::sig_atomic_t stop;
static void on_term(int) { stop = 1; }

__attribute__((noinline)) long one_round() {
  long sum = 0;
  for (int i = 0; i < 1000; i++) sum += outer(i);
  return sum;
}

int main(int argc, char **argv) {
  long rounds = 0;
  bool wait = false;
  for (int i = 1; i < argc; i++)
    if (std::strcmp(argv[i], "--wait") == 0)
      wait = true;
    else
      rounds = std::atol(argv[i]);
  std::signal(SIGTERM, on_term);
  if (wait) wait_start();
  long first = one_round();
  for (long r = 1; !stop && (rounds == 0 || r < rounds); r++)
    if (one_round() != first) {
      std::printf("round %ld: sum differs\n", r);
      return 2;
    }
  std::printf("checksum %ld\n", first);
  return 0;
}
