# --log on arm64: victim_syscalls writes the exact line it expects for each
# call it makes (strace's test idea); every line must be in the log of its
# launched run, which must start at execve and end with the exit line.
. ./lib.sh
need_asmspy log
mkdir -p /tmp/logw
"$ASMSPY" --launch log -1 -- "$VICTIMS/victim_syscalls" /tmp/logw /tmp/log.expect >/tmp/log.txt 2>/tmp/log.err
rc=$?
[ $rc -eq 0 ] && ok log_launch || notok log_launch "--launch log exited $rc: $(head -n 3 /tmp/log.err | tr '\n' ' ')"
[ -s /tmp/log.expect ] || { notok log_expect "the victim wrote no expectations"; exit 0; }
grep -vF "</tmp/log.expect>" /tmp/log.txt >/tmp/log.calls
missing=0 total=0
while IFS= read -r want; do
  total=$((total + 1))
  grep -qF -- "$want" /tmp/log.calls || { missing=$((missing + 1)); echo "# MISSING: $want"; }
done </tmp/log.expect
[ "$missing" = 0 ] && ok log_decoded || notok log_decoded "$missing of $total expected lines missing"
head -n 1 /tmp/log.txt | grep -q '^execve(' && ok log_execve_first || notok log_execve_first "first: $(head -n 1 /tmp/log.txt)"
grep -q '^+++ exited with 0 +++' /tmp/log.txt && ok log_exit_line || {
  notok log_exit_line "no exit line"
  tail -n 5 /tmp/log.txt | sed 's/^/# log: /'
  sed 's/^/# stderr: /' /tmp/log.err | head -n 5
}
# attach mode on a running victim, then it runs on
start_victim victim_loop
pid=$VICTIM_PID
"$ASMSPY" --log "$pid" 5 >/tmp/log2.txt 2>/tmp/log2.err
n=$(grep -c '(' /tmp/log2.txt)
[ "$n" -ge 5 ] && ok log_attach || notok log_attach "$n lines: $(head -n 3 /tmp/log2.err | tr '\n' ' ')"
why=$(runs_untraced "$pid")
[ -z "$why" ] && ok log_target_survives || notok log_target_survives "$why"
