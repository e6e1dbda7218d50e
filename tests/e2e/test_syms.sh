#!/bin/bash
# --syms lists the target's function symbols with runtime addresses that
# agree with nm (offset by the load bias) and PLT stubs as name@plt.
. "$(dirname "$0")/lib.sh"
start_victim victim_loop
pid=$VICTIM_PID
"$ASMSPY" --syms "$pid" >"$TMP/syms" || fail "--syms failed"
grep -qE ' work +\[victim_loop\]$' "$TMP/syms" || fail "work not listed"
grep -qE ' helper +\[victim_loop\]$' "$TMP/syms" || fail "helper not listed"
grep -qE ' usleep@plt +\[victim_loop\]$' "$TMP/syms" || fail "usleep@plt not listed"
grep -qE ' usleep +\[libc.so.6\]$' "$TMP/syms" || fail "libc usleep not listed"
# runtime address - nm address must be the same bias for work and helper
base=$(awk -v exe="$(readlink -f "$VICTIM_DIR/victim_loop")" '$6 == exe {print $1; exit}' "/proc/$pid/maps" | cut -d- -f1)
for fn in work helper main; do
  rt=$(awk -v f="$fn" '$3 == f {print $1; exit}' "$TMP/syms")
  nmaddr=$(nm "$VICTIM_DIR/victim_loop" | awk -v f="$fn" '$3 == f {print $1}')
  [ $((rt - 0x$base)) = $((0x$nmaddr)) ] || fail "$fn at $rt, nm says 0x$nmaddr, base 0x$base"
done
pass "work/helper/main addresses = nm + load bias"
"$ASMSPY" --syms "$pid" helper >"$TMP/f"
[ "$(grep -vc helper "$TMP/f")" = 0 ] || fail "filter leaked other names"
"$ASMSPY" --syms "$pid" work --json >"$TMP/s.ndjson"
"$ASMTRACE_CHECK" "$TMP/s.ndjson" >/dev/null || fail "--syms --json invalid"
pass "--syms filter and --json"
