# --trace on arm64: two invocations of victim_loop's work() traced, helper()
# seen called 5 times per call (its loop structure), and the victim running
# untraced afterwards.
. ./lib.sh
need_asmspy trace
start_victim victim_loop
pid=$VICTIM_PID
[ -n "$pid" ] || { notok trace "victim_loop did not start"; exit 0; }
"$ASMSPY" --trace "$pid" work 2 >/tmp/trace.out 2>/tmp/trace.err
rc=$?
sed 's/^/# /' /tmp/trace.out | head -n 40
if [ $rc -ne 0 ]; then
  notok trace "--trace exited $rc: $(head -n 3 /tmp/trace.err | tr '\n' ' ')"
else
  n=$(grep -c '^sample #' /tmp/trace.out)
  if [ "$n" = 2 ]; then ok trace_samples; else notok trace_samples "$n samples, want 2"; fi
  if grep -qE '^ +5× +\+0x[0-9a-f]+ +->  helper  \[victim_loop\]$' /tmp/trace.out; then ok trace_calls
  else notok trace_calls "helper not seen called 5x per work()"; fi
fi
why=$(runs_untraced "$pid")
if [ -z "$why" ]; then ok trace_target_survives; else notok trace_target_survives "$why"; fi
# the executed count against one computed from objdump alone: work()'s
# instructions before its loop + 5 x the loop body (the victim's source runs
# helper() 5 times; the body ends at the backward b.ne) + the rest
dump="$ASMSPY_PAYLOAD/objdump/victim_loop.txt"
if [ -s "$dump" ] && [ $rc -eq 0 ]; then
  want=$(awk '
    function hex(s,   i, c, v) { v = 0; s = tolower(s)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
      return v }
    /<work>:$/ { on = 1; next }
    on && /^$/ { on = 0 }
    on && split($0, t, "\t") >= 3 { a = t[1]; gsub(/[ :]/, "", a); n++; addr[n] = hex(a); m[n] = t[3]
      if (t[3] ~ /^b\./) { tgt = t[4]; sub(/ .*/, "", tgt); head = hex(tgt); tail = hex(a) } }
    END { for (i = 1; i <= n; i++) c += (addr[i] >= head && addr[i] <= tail) ? 5 : 1; print c }' "$dump")
  got=$(sed -n 's/^sample #1 .*(\([0-9]*\) executed).*/\1/p' /tmp/trace.out)
  if [ -n "$want" ] && [ "$got" = "$want" ]; then ok trace_count_objdump
  else notok trace_count_objdump "executed $got, objdump's loop structure says $want"; fi
else
  skip trace_count_objdump "no objdump of victim_loop in the payload"
fi
