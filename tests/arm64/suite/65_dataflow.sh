# --dataflow on arm64: def-use through registers, memory (stores and loads,
# the frame's stp/ldp pair with writeback) and the NZCV flags, on
# victim_flow's flow(). The oracles are not asmspy's: the values the victim
# prints for the same call (a = x + y, b = 3x, out, ret), the addresses it
# prints for its globals, and aarch64-linux-gnu-objdump's disassembly of
# flow() (every step's mnemonic at its address).
. ./lib.sh
need_asmspy dataflow
start_victim victim_flow 20000
pid=$VICTIM_PID
[ -n "$pid" ] || { notok dataflow "victim_flow did not start"; exit 0; }
vout=/tmp/victim.$$.$VICTIM_SEQ.out
"$ASMSPY" --dataflow "$pid" flow >/tmp/df.out 2>/tmp/df.err
rc=$?
sed 's/^/# /' /tmp/df.out | head -n 40
if [ $rc -ne 0 ]; then
  notok dataflow "--dataflow exited $rc: $(head -n 3 /tmp/df.err | tr '\n' ' ')"
  exit 0
fi
sleep 0.1
set -- $(sed -n 's/^addr //p' "$vout")
addr_a=$1 addr_b=$2 addr_out=$3
# the steps: "#i +off disasm   r: loc=val(def) ...   w: loc=val ..."
# -> one line per step: i|off|disasm|reads|writes
awk '/^#[0-9]+ / {
       i = substr($1, 2); off = $2; line = $0
       r = index(line, "   r: "); w = index(line, "   w: ")
       dis = substr(line, 1, (r ? r : length(line) + 1) - 1); sub(/^#[0-9]+ +\+0x[0-9a-f]+ +/, "", dis); sub(/ +$/, "", dis)
       rd = r ? substr(line, r + 6, (w ? w : length(line) + 1) - r - 6) : ""
       wr = w ? substr(line, w + 6) : ""
       print i "|" off "|" dis "|" rd "|" wr }' /tmp/df.out >/tmp/df.steps
nsteps=$(wc -l </tmp/df.steps)
if [ "$nsteps" -ge 8 ]; then ok dataflow_steps; else notok dataflow_steps "$nsteps steps"; fi
ret=$(sed -n 's/.* ret=\(-\{0,1\}[0-9]*\) .*/\1/p' /tmp/df.out | head -n1)

# hex of a decimal (busybox printf)
hx() { printf '0x%x' "$1"; }
sa=$(awk -F'|' -v a="[$addr_a]=" '{ n = index($5, a); if (n) { v = substr($5, n + length(a)); sub(/ .*/, "", v); print v; exit } }' /tmp/df.steps)
sb=$(awk -F'|' -v a="[$addr_b]=" '{ n = index($5, a); if (n) { v = substr($5, n + length(a)); sub(/ .*/, "", v); print v; exit } }' /tmp/df.steps)
so=$(awk -F'|' -v a="[$addr_out]=" '{ n = index($5, a); if (n) { v = substr($5, n + length(a)); sub(/ .*/, "", v); print v; exit } }' /tmp/df.steps)
# the printed line of that call: its a, b, out and ret all match
match=""
while read -r tag x y a b o r; do
  [ "$tag" = flow ] || continue
  if [ "$(hx "$a")" = "$sa" ] && [ "$(hx "$b")" = "$sb" ] && [ "$(hx "$o")" = "$so" ] && [ "$r" = "$ret" ]; then
    match="$x $y"; break
  fi
done <"$vout"
if [ -n "$match" ]; then ok dataflow_values_printed
else notok dataflow_values_printed "stores a=$sa b=$sb out=$so ret=$ret match no printed call"; fi

# memory def-use: the loads of g_pair.a / g_pair.b name the steps that stored them
memdef() { # $1 addr -> "ok" when a read of [addr] names the step whose writes have [addr]
  awk -F'|' -v a="[$1]=" '
    index($5, a) && w == "" { w = $1 }
    { n = index($4, a); if (n && w != "") { v = substr($4, n); sub(/ .*/, "", v)
        if (v ~ "\\(#" w "\\)$") { print "ok"; exit } } }' /tmp/df.steps
}
if [ "$(memdef "$addr_a")" = ok ] && [ "$(memdef "$addr_b")" = ok ]; then ok dataflow_memory_defuse
else notok dataflow_memory_defuse "the loads of $addr_a / $addr_b do not name their stores"; fi

# the arguments come in live: x0 = x, x1 = y
set -- $match
if [ -n "$match" ] && grep -q "x0=$(hx "$1")(in)" /tmp/df.steps && grep -q "x1=$(hx "$2")(in)" /tmp/df.steps; then
  ok dataflow_args_live_in
else notok dataflow_args_live_in "x0/x1 not read live-in as the printed x, y ($match)"; fi

# flags def-use: a read of nzcv names a step that sets them (cmp/subs/...)
flagdef=$(awk -F'|' '{ dis[$1] = $3 }
  { n = index($4, "nzcv="); if (n) { v = substr($4, n); sub(/ .*/, "", v)
      if (match(v, /\(#[0-9]+\)$/)) { d = substr(v, RSTART + 2, RLENGTH - 3); print d "|" dis[d]; exit } } }' /tmp/df.steps)
case "${flagdef#*|}" in
  cmp* | subs* | adds* | tst* | cmn* | ands* | ccmp*) ok dataflow_flags_defuse ;;
  *) notok dataflow_flags_defuse "no nzcv read defined by a flag-setting step (got '$flagdef')" ;;
esac

# the frame: stp x29, x30, [sp, #-N]! ... ldp x29, x30, [sp], #N — the ldp's
# memory read names the stp, both write sp back
stp=$(awk -F'|' '$3 ~ /^stp x29, x30, \[sp, #-/ { print $1; exit }' /tmp/df.steps)
if [ -n "$stp" ]; then
  if awk -F'|' -v s="$stp" '$3 ~ /^ldp x29, x30, \[sp\], #/ && $4 ~ ("\\]=0x[0-9a-f]+\\(#" s "\\)") && $5 ~ /sp=/ { f = 1 }
       $1 == s && $5 ~ /sp=/ && $5 ~ /\[0x/ { g = 1 } END { exit !(f && g) }' /tmp/df.steps; then
    ok dataflow_pair_writeback
  else notok dataflow_pair_writeback "ldp's read does not name stp #$stp, or sp not written back"; fi
else
  skip dataflow_pair_writeback "flow() has no frame record in this build"
fi

# every step's mnemonic is objdump's at its address
dump="$ASMSPY_PAYLOAD/objdump/victim_flow.txt"
if [ -s "$dump" ]; then
  bad=$(awk -F'|' -v dump="$dump" '
    function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^\+/, "", s); sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
      return v }
    BEGIN { while ((getline l < dump) > 0) {
        if (l ~ /<flow>:$/) { on = 1; split(l, h, " "); base = hex(h[1]); continue }
        if (on && l ~ /^$/) on = 0
        if (on && split(l, t, "\t") >= 3) { a = t[1]; gsub(/[ :]/, "", a); m = t[3]; sub(/ .*/, "", m); mn[hex(a) - base] = m }
      } }
    $3 ~ /^callout / { next }
    { m = $3; sub(/ .*/, "", m); o = hex($2)
      if (!(o in mn)) { print "+" $2 ": not in objdump"; exit }
      if (mn[o] != m && !(mn[o] == "mov" || m == "mov")) { print "+" $2 ": " m " vs objdump " mn[o]; exit } }' /tmp/df.steps)
  if [ -z "$bad" ]; then ok dataflow_objdump; else notok dataflow_objdump "$bad"; fi
else
  skip dataflow_objdump "no objdump of victim_flow in the payload"
fi
why=$(runs_untraced "$pid")
if [ -z "$why" ]; then ok dataflow_target_survives; else notok dataflow_target_survives "$why"; fi
