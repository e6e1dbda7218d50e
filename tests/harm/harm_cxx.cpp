// harm_cxx: C++ exceptions, built with -O2 (gcc splits the unlikely throw
// paths and the landing pads into `<fn>.cold` fragments: harm.sh checks
// the binary has them). Every round four worker threads run tasks that
// throw, catch, clean up through destructors and rethrow; one exception
// per task crosses to the main thread through std::exception_ptr (a
// std::promise). The round's checksum must equal the one computed at start.
#include "harm.h"

#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

struct Err : std::runtime_error {
  long v;
  explicit Err(long x) : std::runtime_error("harm " + std::to_string(x)), v(x) {}
};

static long live_guards;
struct Guard { // a destructor: its cleanup is a landing pad
  long *p;
  explicit Guard(long *q) : p(q) { __atomic_add_fetch(&live_guards, 1, __ATOMIC_RELAXED); }
  ~Guard() {
    ++*p;
    __atomic_sub_fetch(&live_guards, 1, __ATOMIC_RELAXED);
  }
};

__attribute__((noinline)) long leaf(long x) {
  if (__builtin_expect(x % 7 == 0, 0)) throw Err(x); // the throw: in leaf.cold
  return x * 3 + 1;
}

__attribute__((noinline)) long middle(long x, long *cleanups) {
  Guard g(cleanups);
  std::string s = "m" + std::to_string(x);
  return leaf(x) + (long)s.size();
}

__attribute__((noinline)) long outer(long x, long *cleanups) {
  try {
    return middle(x, cleanups);
  } catch (Err &e) {
    if (__builtin_expect(e.v % 2 == 0, 0)) throw; // rethrow: in outer.cold
    return -e.v;
  }
}

static long task(long base) {
  long sum = 0, cleanups = 0;
  for (long i = 0; i < 300; i++) {
    try {
      sum += outer(base + i, &cleanups);
    } catch (Err &e) {
      sum += 1000 * e.v;
    }
  }
  if (base % 5 == 0) throw Err(sum + cleanups); // to the main thread
  return sum + cleanups;
}

static long round_work() {
  long total = 0;
  for (int batch = 0; batch < 4; batch++) {
    std::vector<std::future<long>> fs;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; t++) {
      std::promise<long> p;
      fs.push_back(p.get_future());
      long base = batch * 4000 + t * 1000 + (t == 2 ? 5 : 1);
      ts.emplace_back(
          [base](std::promise<long> pr) {
            try {
              pr.set_value(task(base));
            } catch (...) {
              pr.set_exception(std::current_exception());
            }
          },
          std::move(p));
    }
    for (auto &f : fs) {
      try {
        total += f.get();
      } catch (Err &e) {
        total += 7 * e.v;
      }
    }
    for (auto &t : ts) t.join();
  }
  return total + live_guards;
}

int main() {
  unsigned long long want = (unsigned long long)round_work();
  harm_ready(want);
  for (unsigned long long r = 1;; r++)
    harm_round(r, (unsigned long long)round_work(), want, "exception checksum");
}
