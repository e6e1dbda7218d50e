#!/bin/sh
# check_ptrace_seam.sh <source root>
#
# The seam rule (include/asmspy/plugin.h, struct asmspy_seam_api): every
# ptrace(2) call asmspy makes lives in host/ptrace_seam.c, so the tracer's
# stop bookkeeping (whose SIGTRAP is whose, group stops, the two-phase
# detach, a probe child never left behind) has one owner. This check fails
# when a ptrace call — ptrace( or syscall(SYS_ptrace / __NR_ptrace — appears
# in any .c/.h of the tree outside the seam. Comments and string literals do
# not count ("PTRACE_SEIZE of ...: %s", "ptrace(2)" in prose).
#
# Not scanned: tests/ (tests drive and inspect real tracees on purpose: the
# seam's own tests check the kernel state it left behind), build trees (a
# directory holding build.ninja) and .git.
# Exceptions, each with its reason:
#   host/ptrace_seam.c  the seam itself
#   bench/raw_step.c    the floor asmspy --stream is benchmarked against: a
#                       bare PTRACE_SINGLESTEP + waitpid loop with none of
#                       the seam's work, which is the point of measuring it
#   bench/raw_syscall.c the floor asmspy --log is benchmarked against: a bare
#                       PTRACE_SYSCALL + waitpid + GET_SYSCALL_INFO loop,
#                       for the same reason
set -eu

root=${1:?usage: check_ptrace_seam.sh <source root>}
cd "$root"

exceptions="host/ptrace_seam.c bench/raw_step.c bench/raw_syscall.c"

# C source on stdin -> the same lines with comments and string / character
# literals blanked (line numbers kept), so only code is matched.
strip_c() {
  awk '
    BEGIN { incomment = 0 }
    {
      line = $0; out = ""; i = 1; n = length(line)
      while (i <= n) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (incomment) {
          if (c2 == "*/") { incomment = 0; i += 2 } else i++
          continue
        }
        if (c2 == "/*") { incomment = 1; i += 2; out = out " "; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "\047") {
          q = c; i++
          while (i <= n) {
            d = substr(line, i, 1)
            if (d == "\\") { i += 2; continue }
            i++
            if (d == q) break
          }
          out = out q q
          continue
        }
        out = out c; i++
      }
      print out
    }'
}

# The calls the rule is about.
pattern='(^|[^A-Za-z0-9_])ptrace[[:space:]]*\(|SYS_ptrace|__NR_ptrace'

# Self-test of the matcher: a detector that can never fire would pass
# every tree.
fixture_hit=$(printf '%s\n' 'int x; /* ptrace( */' '  if (ptrace (PTRACE_CONT, p, 0, 0)) {' \
  | strip_c | grep -cE "$pattern" || true)
fixture_miss=$(printf '%s\n' '/* a ptrace(PTRACE_CONT) in prose' ' * continued ptrace( */' \
  'printf("ptrace(2): %s", "x"); // ptrace(' 'have_cap_sys_ptrace(); seam->ptrace_like();' \
  | strip_c | grep -cE "$pattern" || true)
if [ "$fixture_hit" != 1 ] || [ "$fixture_miss" != 0 ]; then
  echo "check_ptrace_seam: the matcher itself is broken (hit=$fixture_hit miss=$fixture_miss)" >&2
  exit 1
fi

files=$(find . \( -path ./.git -o -path ./tests \) -prune -o \
  -type d -exec test -e '{}/build.ninja' \; -prune -o \
  -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
[ -n "$files" ] || { echo "check_ptrace_seam: no C sources under $root" >&2; exit 1; }

bad=0
scanned=0
for f in $files; do
  case " $exceptions " in *" $f "*) continue ;; esac
  scanned=$((scanned + 1))
  hits=$(strip_c <"$f" | grep -nE "$pattern" || true)
  [ -z "$hits" ] && continue
  echo "$hits" | while IFS= read -r h; do
    echo "$f:${h%%:*}: ptrace call outside host/ptrace_seam.c: $(sed -n "${h%%:*}p" "$f" | sed 's/^[[:space:]]*//')"
  done
  bad=1
done
if [ "$bad" != 0 ]; then
  echo "check_ptrace_seam: move these calls into host/ptrace_seam.c (a seam_api call)," \
    "or list the file with its reason in tests/abi/check_ptrace_seam.sh" >&2
  exit 1
fi
echo "check_ptrace_seam: $scanned files, no ptrace call outside the seam"
