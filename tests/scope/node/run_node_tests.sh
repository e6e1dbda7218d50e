#!/bin/sh
# The Node scope suite, run by test_scope_counts.sh (which exports the
# callgrind oracle SCOPE_EXP_*): the binding test, the no-plugin run and
# the example. NODE, NODE_PATH, ASMSPY_LIB, SCOPE_VICTIM_LIB and
# SCOPE_NODE_EXAMPLE come from tests/scope/node/meson.build.
set -u
node=${NODE:-node}
here=$(dirname "$0")
# In a sanitizer build libasmspy (and the addon) need the ASan runtime first
# in the process: node is not built with it, so preload it.
asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
run() {
  if [ -n "$asan_rt" ]; then
    LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0:handle_segv=0:allow_user_segv_handler=1" "$node" "$@"
  else
    "$node" "$@"
  fi
}
rc=0
echo "# node: $("$node" --version)"
run "$here/test_scope_node.js" || rc=1
ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent run "$here/test_scope_node.js" noplugin || rc=1
out=$(run "$SCOPE_NODE_EXAMPLE") || { echo "FAIL example exited non-zero"; rc=1; }
printf '%s\n' "$out" | tail -3
if printf '%s\n' "$out" | grep -Eq '^labs\(-42\) = 42: [1-9][0-9]* insns, tier (WEAK|STRONG), scope .*scope_node\.js:[0-9]+$'; then
  echo "ok   example: labs traced, auto-named"
else
  echo "FAIL example output"; rc=1
fi
exit $rc
