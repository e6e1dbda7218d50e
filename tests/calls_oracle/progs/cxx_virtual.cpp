// virtual calls through a base pointer, a pure interface, and new/delete
#include <cstdio>
#include "oracle.h"
ORACLE_SINK_DEF;
struct Shape {
  virtual ~Shape() {}
  virtual int area() const = 0;
};
struct Square : Shape {
  int s;
  explicit Square(int v) : s(v) {}
  NOINLINE int area() const override {
    SINK(s);
    return s * s;
  }
};
struct Rect : Shape {
  int w, h;
  Rect(int a, int b) : w(a), h(b) {}
  NOINLINE int area() const override {
    SINK(w);
    return w * h;
  }
};
NOINLINE int total(Shape *const *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += v[i]->area();
  return s;
}
int main() {
  Shape *v[2] = {new Square(3), new Rect(2, 5)};
  int s = total(v, 2);
  delete v[0];
  delete v[1];
  std::printf("%d\n", s);
  return 0;
}
