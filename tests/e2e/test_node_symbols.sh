#!/bin/bash
# node (when installed): the stream of a busy node process is named. node maps
# its embedded builtins a second time (the same /usr/bin/node pages at another
# address) and runs them there; before issue 12 about 30% of the lines were a
# bare `0x... [node]`. --perf-basic-prof makes V8 write /tmp/perf-<pid>.map,
# so JIT code is named [jit] too.
. "$(dirname "$0")/lib.sh"
require_backend singlestep
command -v node >/dev/null || skip "node is not installed"

# builtins-heavy work (Array.prototype.push, String(), string concatenation)
node --perf-basic-prof -e '
  let ticks = 0;
  console.log(process.pid);
  setInterval(() => {
    let a = [];
    for (let i = 0; i < 1e4; i++) a.push(String(i) + "x");
    if (++ticks === 30) console.log("warm");
  }, 1);' >"$TMP/node.out" 2>"$TMP/node.err" &
bg=$!
VICTIM_PIDS="$VICTIM_PIDS $bg"
trap 'cleanup; rm -f /tmp/perf-$bg.map' EXIT
i=0
while ! grep -q '^warm' "$TMP/node.out" && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
[ "$(head -n1 "$TMP/node.out")" = "$bg" ] || fail "node did not start: $(cat "$TMP/node.err")"
grep -q '^warm' "$TMP/node.out" || fail "node did not run 30 ticks"

node_path=$(readlink -f "/proc/$bg/exe")
copies=$(awk -v p="$node_path" '$6 == p && $2 ~ /x/' "/proc/$bg/maps" | wc -l)
echo "note: $copies executable mappings of $node_path"

"$ASMSPY" --stream "$bg" 20000 >"$TMP/s" 2>"$TMP/err" || fail "--stream exited $?: $(tail -3 "$TMP/err")"
total=$(wc -l <"$TMP/s")
[ "$total" -ge 19000 ] || fail "only $total lines"
# lines are "[tid] where [module] disasm" (several threads) or "where [module] disasm"
sed -E 's/^\[[0-9]+\] //' "$TMP/s" >"$TMP/s.notid"
bare=$(grep -cE '^0x[0-9a-f]+ ' "$TMP/s.notid" || true)
bare_node=$(grep -cE '^0x[0-9a-f]+ +\[node\]' "$TMP/s.notid" || true)
echo "note: $bare of $total lines bare, $bare_node of them in [node]"
# at most 0.5% bare [node] (was ~30%), at most 2% bare overall
[ $((bare_node * 200)) -le "$total" ] || fail "$bare_node of $total lines are a bare 0x... [node]: $(grep -m1 -E '^0x[0-9a-f]+ +\[node\]' "$TMP/s.notid")"
[ $((bare * 50)) -le "$total" ] || fail "$bare of $total lines are bare: $(grep -m1 -E '^0x[0-9a-f]+ ' "$TMP/s.notid")"
assert_runs "$bg"
pass "node: $bare of $total lines bare ($bare_node in [node])"
