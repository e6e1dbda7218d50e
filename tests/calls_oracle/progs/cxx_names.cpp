// C++ names: namespaces, classes, constructors/destructors, operators,
// overloads, templates, a static member
#include <cstdio>
#include "oracle.h"
ORACLE_SINK_DEF;
namespace geo {
struct Point {
  int x, y;
  NOINLINE Point(int a, int b) : x(a), y(b) { SINK(a); }
  NOINLINE ~Point() { SINK(x); }
  NOINLINE Point operator+(const Point &o) const { return Point(x + o.x, y + o.y); }
  NOINLINE int norm1() const { return (x < 0 ? -x : x) + (y < 0 ? -y : y); }
  NOINLINE static int count(int n) {
    SINK(n);
    return n;
  }
};
namespace detail {
NOINLINE int twice(int v) {
  SINK(v);
  return v * 2;
}
NOINLINE long twice(long v) {
  SINK(v);
  return v * 2;
}
} // namespace detail
} // namespace geo
template <typename T> NOINLINE T biggest(T a, T b) {
  SINK(1);
  return a > b ? a : b;
}
template <int N> struct Unroll {
  NOINLINE static int run(int v) { return Unroll<N - 1>::run(v + N); }
};
template <> struct Unroll<0> {
  NOINLINE static int run(int v) {
    SINK(v);
    return v;
  }
};
int main() {
  geo::Point a(1, 2), b(3, -4);
  geo::Point c = a + b;
  int s = c.norm1() + geo::Point::count(2);
  s += geo::detail::twice(3) + (int)geo::detail::twice(4L);
  s += biggest<int>(1, 2) + (int)biggest<double>(1.5, 0.5);
  s += Unroll<2>::run(0);
  std::printf("%d\n", s);
  return 0;
}
