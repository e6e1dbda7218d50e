#!/bin/bash
# Code run through a second mapping of a file is named through that file's
# symbols at the mapping's file offset (issue 12: node maps its embedded
# builtins twice). victim_alias maps its own text again and calls
# alias_target() through the copy:
#   high  the copy lies above the executable (libdw folds it into the
#         executable's module)
#   low   the copy lies below it: the first mapping of the file in
#         /proc/<pid>/maps is the copy, at a nonzero file offset
. "$(dirname "$0")/lib.sh"
require_backend singlestep

for where in high low; do
  start_victim victim_alias "$where" 1000
  pid=$VICTIM_PID
  line=$(sed -n 2p "$TMP"/victim_alias.$$.$VICTIM_SEQ.out)
  set -- $line
  [ "${1:-}" = alias ] || fail "victim_alias $where printed '$line'"
  copy_fn=$2 orig_fn=$3 copy_lo=$4 copy_hi=$5
  "$ASMSPY" --stream "$pid" 400 --json >"$TMP/s.$where" 2>"$TMP/err" || fail "--stream exited $?: $(cat "$TMP/err")"
  python3 - "$TMP/s.$where" "$copy_fn" "$orig_fn" "$copy_lo" "$copy_hi" "$where" <<'PY' || fail "$where: the copy is not named (see above)"
import json, sys
path, copy_fn, orig_fn, lo, hi, where = sys.argv[1], *[int(x, 16) for x in sys.argv[2:6]], sys.argv[6]
ins = [json.loads(l) for l in open(path)]
ins = [e for e in ins if e.get("type") == "insn"]
in_copy = [e for e in ins if lo <= int(e["ip"], 16) < hi]
assert len(in_copy) >= 40, "%s: only %d instructions stepped in the copy" % (where, len(in_copy))
bad = [e for e in in_copy if e.get("sym") != "alias_target" or e.get("module") != "victim_alias"]
assert not bad, "%s: %d of %d instructions in the copy not named alias_target [victim_alias]: %s" % (
    where, len(bad), len(in_copy), bad[0]["human"])
# offsets are relative to the copy's alias_target, not the original's
off_bad = [e for e in in_copy if int(e["ip"], 16) - e["off"] != copy_fn]
assert not off_bad, "%s: ip - off != copy of alias_target (0x%x): %s" % (where, copy_fn, off_bad[0])
# and the executable's own code is still named (a wrong load bias breaks it)
mains = [e for e in ins if e.get("sym") == "main" and e.get("module") == "victim_alias"]
assert mains, "%s: main never named" % where
bare = [e for e in ins if e.get("sym") is None and e.get("module") == "victim_alias"]
assert not bare, "%s: %d bare [victim_alias] lines: %s" % (where, len(bare), bare[0]["human"])
print("ok: %s: %d instructions in the copy, all alias_target+off; %d main lines" % (where, len(in_copy), len(mains)))
PY
  # the text view agrees
  "$ASMSPY" --stream "$pid" 200 >"$TMP/t.$where" 2>/dev/null || fail "--stream (text) failed"
  grep -qE '^alias_target\+0x[0-9a-f]+ +\[victim_alias\]' "$TMP/t.$where" || fail "$where: text stream never names alias_target"
  if grep -qE '^0x[0-9a-f]+ +\[victim_alias\]' "$TMP/t.$where"; then
    fail "$where: bare [victim_alias] lines: $(grep -m1 -E '^0x[0-9a-f]+ +\[victim_alias\]' "$TMP/t.$where")"
  fi
  assert_runs "$pid"
  pass "alias copy ($where) named alias_target [victim_alias] at the copy's offsets"
done
