// asmspy scoped tracing for C++: a header-only RAII wrapper over the C scope
// core (asmspy/scope.h). The scope begins in the constructor and ends in the
// (noexcept) destructor; the accessors mirror the C ones and are valid after
// the scope ended (call end() explicitly to read them inside the same block).
//
//   {
//     asmspy::ScopedTrace t;                       // whole window, auto-named
//     hot_path();
//   }
//   asmspy::ScopedTrace t(reinterpret_cast<const void *>(&work));  // region: work's extent
//   work(3);
//   t.end();
//   std::cout << t.insn_count() << "\n" << t.text();
#ifndef ASMSPY_SCOPE_HPP
#define ASMSPY_SCOPE_HPP

#include <asmspy/scope.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace asmspy {

class ScopedTrace {
public:
  // code == nullptr: the whole window; len == 0: the covering symbol's extent.
  explicit ScopedTrace(const void *code = nullptr, std::size_t len = 0, unsigned flags = 0,
                       const char *file = __builtin_FILE(), int line = __builtin_LINE()) noexcept {
    std::string n = std::string(file) + ":" + std::to_string(line);
    scope_ = asmspy_scope_begin(n.c_str(), code, len, flags);
  }
  ScopedTrace(const ScopedTrace &) = delete;
  ScopedTrace &operator=(const ScopedTrace &) = delete;
  ~ScopedTrace() noexcept {
    end();
    if (scope_) asmspy_scope_free(scope_);
  }

  // Ends the capture now (idempotent); the destructor does it otherwise.
  void end() noexcept {
    if (scope_ && !ended_) asmspy_scope_end(scope_);
    ended_ = true;
  }

  const char *text() const noexcept { return scope_ ? asmspy_scope_text(scope_) : ""; }
  const char *path() const noexcept { return scope_ ? asmspy_scope_path(scope_) : ""; }
  std::size_t insn_count() const noexcept {
    return scope_ ? static_cast<std::size_t>(asmspy_scope_insn_count(scope_)) : 0;
  }
  bool truncated() const noexcept { return scope_ && asmspy_scope_truncated(scope_); }
  std::uint64_t gaps() const noexcept { return scope_ ? asmspy_scope_gaps(scope_) : 0; }
  const char *tier() const noexcept { return scope_ ? asmspy_scope_tier(scope_) : "NONE"; }
  const char *reason() const noexcept { return scope_ ? asmspy_scope_reason(scope_) : ""; }

private:
  asmspy_scope *scope_ = nullptr;
  bool ended_ = false;
};

} // namespace asmspy

#endif
