# --graph and --tree on arm64: victim_callshape's rounds are
#   round_once -> outer -(blr)-> mid -(bl)-> leaf, then mid's tail call
#   (`b tail_leaf`, a jump, not a call)
# so the tree nests round_once > outer > mid > leaf and the graph counts
# one call each per round; the victim runs on untraced.
. ./lib.sh
need_asmspy calls
start_victim victim_callshape
pid=$VICTIM_PID
[ -n "$pid" ] || { notok calls "victim_callshape did not start"; exit 0; }
"$ASMSPY" --tree "$pid" 24 --backend=singlestep >/tmp/tree.txt 2>/tmp/tree.err
rc=$?
sed 's/^/# /' /tmp/tree.txt | head -n 8
[ $rc -eq 0 ] || notok tree_runs "--tree exited $rc: $(head -n 3 /tmp/tree.err | tr '\n' ' ')"
sed 's/^/# stderr: /' /tmp/tree.err | head -n 5
why=$(runs_untraced "$pid")
if [ -n "$why" ]; then
  wait "$pid" 2>/dev/null
  notok tree_target_survives "$why (its wait status $?: 128+signal)"
  exit 0
fi
ok tree_target_survives
# every round_once line is followed by the same three nested lines
awk '
  /^-> round_once / {want = 1; next}
  want == 1 { if ($0 ~ /^  -> outer /) want = 2; else bad++; next }
  want == 2 { if ($0 ~ /^    -> mid /) want = 3; else bad++; next }
  want == 3 { if ($0 ~ /^      -> leaf /) {rounds++; want = 0} else bad++; next }
  END { print rounds + 0, bad + 0 }' /tmp/tree.txt >/tmp/tree.verdict
read -r rounds bad </tmp/tree.verdict
[ "$rounds" -ge 4 ] && [ "$bad" = 0 ] && ok tree_nesting ||
  notok tree_nesting "$rounds complete rounds, $bad lines out of place"
grep -q 'tail_leaf' /tmp/tree.txt && notok tree_tail_call "the tail call (a jump) shown as a call" || ok tree_tail_call
"$ASMSPY" --graph "$pid" 200 --backend=singlestep >/tmp/graph.txt 2>/tmp/graph.err
rc=$?
sed 's/^/# /' /tmp/graph.txt | head -n 8
sed 's/^/# stderr: /' /tmp/graph.err | head -n 5
[ $rc -eq 0 ] || notok graph_runs "--graph exited $rc: $(head -n 3 /tmp/graph.err | tr '\n' ' ')"
inv() { awk -v f="$1" '$2 == f {for (i = 3; i <= NF; i++) if ($i ~ /^inv=/) {sub(/inv=/, "", $i); print $i}}' /tmp/graph.txt; }
calls() { awk -v f="$1" '$2 == f {for (i = 3; i <= NF; i++) if ($i ~ /^calls=/) {sub(/calls=/, "", $i); print $i}}' /tmp/graph.txt; }
o=$(inv outer) m=$(inv mid) l=$(inv leaf) r=$(inv round_once)
if [ -n "$o" ] && [ "$o" -ge 10 ] && [ "$o" = "$m" ] && [ "$m" = "$l" ] && [ "$l" = "$r" ]; then
  ok graph_counts
else
  notok graph_counts "inv: round_once=$r outer=$o mid=$m leaf=$l (all equal expected)"
fi
[ "$(calls outer)" = "$o" ] && [ "$(calls leaf)" = 0 ] && ok graph_indirect_call ||
  notok graph_indirect_call "outer calls=$(calls outer) (blr to mid), leaf calls=$(calls leaf)"
why=$(runs_untraced "$pid")
[ -z "$why" ] && ok calls_target_survives || notok calls_target_survives "$why"
