// a little STL: std::vector push_back/sum, its template code in the program
#include <cstdio>
#include <vector>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int sum(const std::vector<int> &v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}
int main() {
  std::vector<int> v;
  v.reserve(4);
  for (int i = 0; i < 3; i++) v.push_back(i);
  std::printf("%d\n", sum(v));
  return 0;
}
