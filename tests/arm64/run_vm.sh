#!/bin/bash
# Boot the emulated arm64 machine (qemu-system-aarch64 -M virt -cpu max, TCG
# software emulation) with a payload and report the suite it runs.
# The payload directory becomes /asmspy in the guest: it is packed into a
# second cpio archive appended to the cached base initramfs (the kernel
# unpacks concatenated archives in order), so the base image is never
# rebuilt for a new payload. The payload must hold run_suite.sh (ci.sh
# assembles one). The serial console is streamed to stdout and to the log.
# Environment: ARM64_VM_TIMEOUT seconds before qemu is killed (default 900),
# ARM64_VM_SMP vCPUs (default 2), ARM64_VM_MEM MiB (default 1024),
# ARM64_VM_LOG console log path (default <cache-dir>/last-run.log).
# Exit: the suite's status (0 all passed, 1 a failure, a timeout or a
# machine that stopped without reporting), 77 when qemu or the arm64
# packages cannot be had (the reason is printed), 2 on bad arguments.
# Usage: run_vm.sh <cache-dir> <payload-dir>
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: run_vm.sh <cache-dir> <payload-dir>" >&2; exit 2; }
cache=$1 payload=$2
[ -f "$payload/run_suite.sh" ] || { echo "run_vm: $payload has no run_suite.sh" >&2; exit 2; }
timeout_s=${ARM64_VM_TIMEOUT:-900}
smp=${ARM64_VM_SMP:-2}
mem=${ARM64_VM_MEM:-1024}
case "$timeout_s$smp$mem" in *[!0-9]*) echo "run_vm: ARM64_VM_TIMEOUT/SMP/MEM must be integers" >&2; exit 2 ;; esac
qemu=${QEMU_AARCH64:-qemu-system-aarch64}
command -v "$qemu" >/dev/null || { echo "SKIP: $qemu not found (Debian package qemu-system-arm)"; exit 77; }

out=$("$here/build_image.sh" "$cache")
rc=$?
img=$(echo "$out" | tail -n1)
if [ $rc -ne 0 ]; then echo "$out" | grep -v "^$img\$"; exit $rc; fi
mkdir -p "$cache"
log=${ARM64_VM_LOG:-$(cd "$cache" && pwd)/last-run.log}

tmp=$(mktemp -d /tmp/asmspy-armvm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/stage"
cp -a "$payload" "$tmp/stage/asmspy"
(cd "$tmp/stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1n) >"$tmp/payload.cpio.gz"
cat "$img/base.cpio.gz" "$tmp/payload.cpio.gz" >"$tmp/initrd"
nonce=$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')

# pauth-impdef: QEMU's own (fast) pointer-authentication algorithm instead
# of emulating QARMA, which dominates TCG time for PAC-using code; the
# architectural behaviour the tracee sees is the same.
cpu=${ARM64_VM_CPU:-max,pauth-impdef=on}
echo "run_vm: $qemu -M virt -cpu $cpu -smp $smp -m $mem, kernel $(sed -n 's/^# kernel: //p' "$img/versions.txt"), payload $(du -k "$tmp/payload.cpio.gz" | cut -f1) KiB, timeout ${timeout_s}s, log $log"
t0=$EPOCHREALTIME
t_init="" t_end="" status="" summary="" in_suite=0
: >"$log"
# timeout(1) bounds the whole machine: SIGTERM at the limit, SIGKILL 10 s on
while IFS= read -r line; do
  line=${line%$'\r'}
  printf '%s\n' "$line" >>"$log"
  case $line in "ASMSPY-ARM64-QEMU-EXIT $nonce "*) continue ;; esac
  printf '%s\n' "$line"
  case $line in
    "ASMSPY-ARM64-INIT $nonce "*) t_init=$EPOCHREALTIME ;;
    "ASMSPY-ARM64-BEGIN $nonce") in_suite=1 ;;
    "ASMSPY-ARM64-END $nonce "*) in_suite=0; t_end=$EPOCHREALTIME
      status=${line#*rc=}; status=${status%% *} ;;
    *) if [ $in_suite = 1 ] && [[ $line =~ ^[0-9]+\ passed,\ [0-9]+\ failed,\ [0-9]+\ skipped$ ]]; then
         summary=$line
       fi ;;
  esac
done < <(timeout -k 10 "$timeout_s" "$qemu" -M virt -cpu "$cpu" -smp "$smp" -m "$mem" \
           -display none -monitor none -serial stdio -nic none -no-reboot \
           -kernel "$img/Image" -initrd "$tmp/initrd" \
           -append "console=ttyAMA0 rdinit=/init panic=-1 loglevel=3 asmspy.nonce=$nonce" \
           </dev/null 2>&1; echo "ASMSPY-ARM64-QEMU-EXIT $nonce $?")
t1=$EPOCHREALTIME
qemu_rc=$(sed -n "s/^ASMSPY-ARM64-QEMU-EXIT $nonce //p" "$log")
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
timing="total $(secs "$t0" "$t1") s"
[ -n "$t_init" ] && timing="boot to /init $(secs "$t0" "$t_init") s, $timing"
[ -n "$t_init" ] && [ -n "$t_end" ] && timing="$timing, suite $(secs "$t_init" "$t_end") s"
echo "run_vm: $timing"
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
  echo "run_vm: FAIL: qemu killed after the ${timeout_s}s timeout ($( [ -n "$t_init" ] && echo "the suite did not finish" || echo "the machine never reached /init"))"
  exit 1
fi
if [ -z "$status" ]; then
  echo "run_vm: FAIL: the machine stopped (qemu exit $qemu_rc) without the suite's END marker"
  exit 1
fi
if [ -z "$summary" ]; then
  echo "run_vm: FAIL: the suite printed no 'N passed, N failed, N skipped' line (rc=$status)"
  exit 1
fi
echo "run_vm: suite rc=$status: $summary"
[ "$status" = 0 ] && exit 0
exit 1
