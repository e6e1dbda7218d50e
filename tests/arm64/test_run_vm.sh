#!/bin/bash
# run_vm.sh's verdicts without emulation: a fake qemu (QEMU_AARCH64) prints
# the console of a passing, a failing, a forged (wrong nonce), a summary-less
# and a hung machine, and checks the initrd it is given carries the payload
# after the base archive. Runs in a second; the real machine is ci.sh's.
# Exit 0 when every verdict is right, 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/asmspy-test-run-vm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# a fake image: run_vm only needs the three files to exist
mkdir -p "$tmp/img" "$tmp/payload/suite"
echo kernel >"$tmp/img/Image"
echo "# kernel: fake" >"$tmp/img/versions.txt"
(cd "$tmp" && mkdir -p base && cd base && echo init >init && echo init | cpio -o -H newc --quiet | gzip) >"$tmp/img/base.cpio.gz"
echo 'echo suite' >"$tmp/payload/run_suite.sh"

cat >"$tmp/qemu" <<'FAKE'
#!/bin/bash
# fake qemu-system-aarch64: the console of the machine FAKE_MODE names
while [ $# -gt 0 ]; do
  case $1 in -append) append=$2; shift ;; -initrd) initrd=$2; shift ;; esac
  shift
done
nonce=${append##*asmspy.nonce=}; nonce=${nonce%% *}
# the kernel unpacks concatenated archives; cpio(1) stops at the first
# trailer, so split at the base archive's length
n=$(stat -c %s "$FAKE_BASE")
members=$(tail -c +$((n + 1)) "$initrd" | zcat | cpio -t --quiet 2>/dev/null | tr '\n' ' ')
if cmp -s -n "$n" "$FAKE_BASE" "$initrd" && [[ " $members " == *" asmspy/run_suite.sh "* ]]; then
  echo "initrd: base then payload"
else
  echo "initrd: WRONG (after the base: $members)"
fi
case $FAKE_MODE in
  pass) printf 'ASMSPY-ARM64-INIT %s uptime=1.0\r\nASMSPY-ARM64-BEGIN %s\r\nok a\r\n1 passed, 0 failed, 0 skipped\r\nASMSPY-ARM64-END %s rc=0 uptime=2.0\r\n' "$nonce" "$nonce" "$nonce" ;;
  fail) printf 'ASMSPY-ARM64-INIT %s\nASMSPY-ARM64-BEGIN %s\nnot ok a why\n0 passed, 1 failed, 0 skipped\nASMSPY-ARM64-END %s rc=1\n' "$nonce" "$nonce" "$nonce" ;;
  forged) printf 'ASMSPY-ARM64-BEGIN x%s\n1 passed, 0 failed, 0 skipped\nASMSPY-ARM64-END x%s rc=0\n' "$nonce" "$nonce" ;;
  outside) printf '1 passed, 0 failed, 0 skipped\nASMSPY-ARM64-BEGIN %s\nASMSPY-ARM64-END %s rc=0\n' "$nonce" "$nonce" ;;
  hang) printf 'ASMSPY-ARM64-INIT %s\n' "$nonce"; exec sleep 60 ;;
esac
FAKE
chmod +x "$tmp/qemu"

# verdict MODE WANT_RC WANT_TEXT [ENV...]
verdict() {
  local mode=$1 want=$2 text=$3; shift 3
  env FAKE_MODE="$mode" FAKE_BASE="$tmp/img/base.cpio.gz" QEMU_AARCH64="$tmp/qemu" ARM64_VM_IMAGE="$tmp/img" \
    ARM64_VM_LOG="$tmp/log" "$@" "$here/run_vm.sh" "$tmp/cache" "$tmp/payload" >"$tmp/out" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || fail "$mode: exit $rc, want $want: $(tail -n 3 "$tmp/out")"
  grep -qF -- "$text" "$tmp/out" || fail "$mode: no '$text' in: $(tail -n 3 "$tmp/out")"
  [ "$mode" = hang ] || [ "$want" = 77 ] || grep -q '^initrd: base then payload$' "$tmp/out" || fail "$mode: $(grep '^initrd:' "$tmp/out")"
}
verdict pass 0 "run_vm: suite rc=0: 1 passed, 0 failed, 0 skipped"
verdict fail 1 "run_vm: suite rc=1: 0 passed, 1 failed, 0 skipped"
verdict forged 1 "without the suite's END marker"
verdict outside 1 "printed no 'N passed, N failed, N skipped' line"
start=$(date +%s)
verdict hang 1 "qemu killed after the 2s timeout" ARM64_VM_TIMEOUT=2
[ $(($(date +%s) - start)) -lt 30 ] || fail "hang: the timeout did not bound the run"
verdict pass 77 "SKIP: $tmp/none not found" QEMU_AARCH64="$tmp/none"
"$here/run_vm.sh" "$tmp/cache" >/dev/null 2>&1; [ $? = 2 ] || fail "one argument: not exit 2"
ARM64_VM_TIMEOUT=x "$here/run_vm.sh" "$tmp/cache" "$tmp/payload" >/dev/null 2>&1; [ $? = 2 ] || fail "ARM64_VM_TIMEOUT=x: not exit 2"
[ $failed = 0 ] && echo "ok: run_vm.sh verdicts (pass, fail, forged nonce, summary outside the markers, hang -> timeout, no qemu -> 77, bad args -> 2)"
exit $failed
