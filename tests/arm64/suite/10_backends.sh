# --backends on arm64: singlestep, ptrace and hwwatch usable (each probe's
# reason is a measurement), the x86-only backends absent or unavailable with
# a reason. The table is echoed as comments for the run's record.
. ./lib.sh
need_asmspy backends
out=$("$ASMSPY" --backends 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
if [ $rc -ne 0 ]; then notok backends "--backends exited $rc"; exit 0; fi
ok backends
for b in singlestep ptrace hwwatch; do
  row=$(echo "$out" | awk -v n="$b" '$1 == "backend" && $2 == n')
  reason=$(echo "$row" | awk '{ $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }')
  case $row in
    "") notok "backend_$b" "no $b row" ;;
    *" usable "*) if [ -n "$reason" ]; then ok "backend_$b"; else notok "backend_$b" "usable without a reason"; fi ;;
    *) notok "backend_$b" "not usable: $reason" ;;
  esac
done
for b in intel_pt amd_ibs amd_lbr; do
  row=$(echo "$out" | awk -v n="$b" '$1 == "backend" && $2 == n')
  reason=$(echo "$row" | awk '{ $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }')
  case $row in
    "") ok "backend_${b}_absent" ;;
    *" usable "*) notok "backend_${b}_absent" "an x86-only backend claims usable on arm64: $reason" ;;
    *) if [ -n "$reason" ]; then ok "backend_${b}_absent"; else notok "backend_${b}_absent" "unavailable without a reason"; fi ;;
  esac
done
