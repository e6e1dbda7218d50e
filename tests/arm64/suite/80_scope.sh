# Scoped in-process tracing on arm64: no process can single-step itself
# there (MDSCR_EL1.SS is written only by the kernel), so the scope ladder
# must end at tier NONE with the reason, and the program must go on with its
# result intact (a recorded no-op, never a crash).
. ./lib.sh
need_asmspy scope
"$VICTIMS/victim_scope_tier" >/tmp/scope.out 2>/tmp/scope.err
rc=$?
sed 's/^/# /' /tmp/scope.out
[ $rc -eq 0 ] && ok scope_runs || notok scope_runs "exited $rc: $(head -n 3 /tmp/scope.err | tr '\n' ' ')"
grep -qx 'tier NONE' /tmp/scope.out && ok scope_tier_none || notok scope_tier_none "$(grep '^tier' /tmp/scope.out)"
reason=$(sed -n 's/^reason //p' /tmp/scope.out)
[ -n "$reason" ] && ok scope_reason || notok scope_reason "no reason given"
# the loop's own result: sum of 3i for i < 100
grep -qx 'continued 14850' /tmp/scope.out && ok scope_program_continues ||
  notok scope_program_continues "$(grep '^continued' /tmp/scope.out)"
