# --watch on arm64 through NT_ARM_HW_WATCH: victim_watch's threads bump
# `counter` in bump_counter(); 20 hits, each old+1, the writer named, the
# victim untraced after.
. ./lib.sh
need_asmspy watch
start_victim victim_watch
pid=$VICTIM_PID
[ -n "$pid" ] || { notok watch "victim_watch did not start"; exit 0; }
if ! "$ASMSPY" --backends | awk '$2 == "hwwatch"' | grep -q ' usable '; then
  skip watch "hwwatch not usable here: $("$ASMSPY" --backends | awk '$2 == "hwwatch"')"
  exit 0
fi
"$ASMSPY" --watch "$pid" counter 20 --json >/tmp/watch.json 2>/tmp/watch.err
rc=$?
[ $rc -eq 0 ] || notok watch_runs "--watch exited $rc: $(head -n 3 /tmp/watch.err | tr '\n' ' ')"
n=$(grep -c '"type":"watch",' /tmp/watch.json)
[ "$n" = 20 ] && ok watch_hits || notok watch_hits "$n hits, want 20"
grep '"type":"watch",' /tmp/watch.json | grep -oE '"old":-?[0-9]+,"new":-?[0-9]+' |
  awk -F'[:,]' '$4 != $2 + 1 {bad++} END {exit bad > 0}' && ok watch_values ||
  notok watch_values "a write that is not old+1"
grep '"type":"watch",' /tmp/watch.json | grep -qv '"sym":"bump_counter"' &&
  notok watch_writer "a toucher other than bump_counter: $(grep '"type":"watch",' /tmp/watch.json | grep -v '"sym":"bump_counter"' | head -n 1)" ||
  ok watch_writer
why=$(runs_untraced "$pid")
[ -z "$why" ] && ok watch_target_survives || notok watch_target_survives "$why"
