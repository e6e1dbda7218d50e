#!/bin/sh
# run_ruby.sh [script.rb] [args...]: run a Ruby scope test or example with
# the binding on the load path (RUBYLIB from meson: bindings/ruby/lib).
# Default script: test_scope_ruby.rb beside this file (test_scope_counts.sh
# calls this with no arguments, the callgrind oracle's SCOPE_EXP_* set).
# In a sanitizer build libasmspy needs the ASan runtime first in the
# process: ruby is not built with it, so it is preloaded (as for python3).
set -eu
command -v ruby >/dev/null 2>&1 || { echo "SKIP: ruby not installed"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then set -- "$here/test_scope_ruby.rb"; fi
asan_rt=""
if [ -n "${ASMSPY_LIB:-}" ]; then
  asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
fi
# use_sigaltstack=0: Ruby installs its own sigaltstack on its threads; at a
# thread's exit ASan would then unmap Ruby's (heap) alternate stack as if it
# were its own ("AddressSanitizer failed to deallocate ... unable to unmap",
# seen at the exit of a Thread in test_scope_ruby.rb).
if [ -n "$asan_rt" ]; then
  LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0:use_sigaltstack=0" exec ruby "$@"
fi
exec ruby "$@"
