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
