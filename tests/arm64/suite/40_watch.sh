# --watch on arm64 (hwwatch through NT_ARM_HW_WATCH): 20 hits on
# victim_watch's counter, each written by bump_counter with new = old + 1,
# and the victim running untraced with no watchpoint left afterwards.
. ./lib.sh
need_asmspy watch
start_victim victim_watch
pid=$VICTIM_PID
[ -n "$pid" ] || { notok watch "victim_watch did not start"; exit 0; }
"$ASMSPY" --watch "$pid" counter 20 >/tmp/watch.out 2>/tmp/watch.err
rc=$?
sed 's/^/# /' /tmp/watch.out | head -n 8
if [ $rc -ne 0 ]; then
  notok watch "--watch exited $rc: $(head -n 3 /tmp/watch.err | tr '\n' ' ')"
else
  hits=$(grep -c '^\[[0-9]*\] ' /tmp/watch.out)
  if [ "$hits" = 20 ]; then ok watch_hits; else notok watch_hits "$hits hit lines, want 20"; fi
  bad=$(grep '^\[[0-9]*\] ' /tmp/watch.out | awk '
    $2 !~ /^bump_counter\+0x[0-9a-f]+$/ { print "writer " $2; exit }
    $(NF) != $(NF - 2) + 1 { print "not old+1: " $(NF - 2) " -> " $(NF); exit }')
  if [ -z "$bad" ]; then ok watch_writer_values; else notok watch_writer_values "$bad"; fi
fi
why=$(runs_untraced "$pid")
if [ -z "$why" ]; then ok watch_target_survives; else notok watch_target_survives "$why"; fi
