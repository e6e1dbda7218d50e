// C++ exceptions inside a codecache scope (docs/codecache.md): a throw
// unwinds three frames to a catch inside the scope. The unwinder walks the
// program's stack, which holds only original return addresses, and lands
// in the landing pad through a `ret`-like jump the dispatcher looks up.
// The result must equal untraced, and the listing must equal the
// singlestep tier's, instruction for instruction (consecutive repeats
// collapsed: rep string instructions, see test_codecache_diff.c).
#include <asmspy/scope.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#define BODY __attribute__((noinline, noipa))

BODY static long thrower(long n) {
  if (n > 2) throw std::runtime_error("deep " + std::to_string(n));
  return n;
}
BODY static long middle(long n) { return thrower(n) + 1; }
BODY static long outer(long n) { return middle(n) * 2; }

BODY static long body(long n) {
  try {
    return outer(n);
  } catch (const std::exception &e) {
    return 1000 + (long)std::strlen(e.what());
  }
}

struct run {
  long value = 0;
  std::string text, reason;
  int truncated = 0;
};

BODY static run trace(const char *backend, long n) {
  run r;
  setenv("ASMSPY_SCOPE_BACKEND", backend, 1);
  asmspy_scope *s = asmspy_scope_begin("cc-cxx", nullptr, 0, ASMSPY_SCOPE_QUIET);
  r.value = body(n);
  asmspy_scope_end(s);
  r.text = asmspy_scope_text(s);
  r.reason = asmspy_scope_reason(s);
  r.truncated = asmspy_scope_truncated(s);
  asmspy_scope_free(s);
  unsetenv("ASMSPY_SCOPE_BACKEND");
  return r;
}

static std::vector<std::string> lines_of(const std::string &t) {
  std::vector<std::string> v;
  size_t a = 0;
  while (a < t.size()) {
    size_t b = t.find('\n', a);
    if (b == std::string::npos) b = t.size();
    std::string l = t.substr(a, b - a);
    if (!l.empty() && l[0] != '#' && (v.empty() || v.back() != l)) v.push_back(l);
    a = b + 1;
  }
  return v;
}

int main() {
  body(5); // the first throw allocates and binds lazily: warm up untraced
  body(1);
  run probe = trace("codecache", 1);
  if (probe.reason.compare(0, 9, "codecache") != 0) {
    std::printf("SKIP: the codecache tier is not usable here: %s\n", probe.reason.c_str());
    return 77;
  }
  int failures = 0;
  for (long n : {1L, 5L}) {
    run un = trace("none", n), ss = trace("singlestep", n), cc = trace("codecache", n);
    std::vector<std::string> a = lines_of(ss.text), b = lines_of(cc.text);
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) i++;
    bool same = i == a.size() && i == b.size();
    bool ok =
        un.value == ss.value && un.value == cc.value && !cc.truncated && !ss.truncated && same;
    std::printf("%s - %s: value %ld (untraced %ld, singlestep %ld), %zu / %zu instructions%s\n",
                ok ? "ok" : "FAIL", n > 2 ? "throw/catch across 3 frames" : "no throw", cc.value,
                un.value, ss.value, a.size(), b.size(), cc.truncated ? cc.reason.c_str() : "");
    if (!same)
      for (size_t k = i >= 3 ? i - 3 : 0; k < i + 3; k++)
        std::printf("   %-60s | %s\n", k < a.size() ? a[k].c_str() : "-",
                    k < b.size() ? b[k].c_str() : "-");
    failures += !ok;
  }
  std::printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
