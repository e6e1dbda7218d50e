// cc_det_cxx: C++ exceptions thrown and caught across frames (the unwinder
// reads the stack: it must see original return addresses), for
// diff_launch.sh. Deterministic; prints `cc_det_cxx caught=<N> sum=<M>`.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct Boom : std::runtime_error {
  int depth;
  Boom(const std::string &w, int d) : std::runtime_error(w), depth(d) {}
};

__attribute__((noinline)) int leaf(int x) {
  if (x % 3 == 0) throw Boom("leaf " + std::to_string(x), x);
  if (x % 5 == 0) throw std::out_of_range("five");
  return x * 2;
}
__attribute__((noinline)) int mid(int x) {
  std::vector<int> guard(4, x); // destroyed while unwinding
  return leaf(x) + guard[1];
}
__attribute__((noinline)) int outer(int x) {
  try {
    return mid(x) + 1;
  } catch (const std::out_of_range &) {
    return -1;
  }
}

int main() {
  long sum = 0;
  int caught = 0;
  for (int i = 1; i <= 12; i++) {
    try {
      sum += outer(i);
    } catch (const Boom &b) {
      caught++;
      sum += b.depth + (long)std::string(b.what()).size();
    }
  }
  std::printf("cc_det_cxx caught=%d sum=%ld\n", caught, sum);
  return caught == 4 ? 0 : 1;
}
