# PLT stubs on arm64: every `<name@plt>` objdump shows in victim_loop is a
# `name@plt` symbol of asmspy's at the same address (the runtime base from
# /proc/<pid>/maps): decoded from each stub's adrp/ldr GOT slot and its
# R_AARCH64_JUMP_SLOT relocation.
. ./lib.sh
need_asmspy plt
dump="$ASMSPY_PAYLOAD/objdump/victim_loop.txt"
[ -s "$dump" ] || { skip plt_names "no objdump of victim_loop in the payload"; exit 0; }
start_victim victim_loop
pid=$VICTIM_PID
[ -n "$pid" ] || { notok plt "victim_loop did not start"; exit 0; }
"$ASMSPY" --syms "$pid" @plt >/tmp/plt.out 2>/tmp/plt.err
base=$(awk '$6 ~ /\/victim_loop$/ && $3 == "00000000" {split($1, a, "-"); print a[1]; exit}' "/proc/$pid/maps")
grep '@plt>:$' "$dump" | sed 's/^\([0-9a-f]*\) <\(.*\)>:$/\1 \2/' >/tmp/plt.want
awk -v base="$base" '
  function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
    return v }
  NR == FNR { want[$2] = hex($1) + hex(base); n++; next }
  $NF == "[victim_loop]" && $3 in want { if (hex($1) == want[$3]) ok++; else { bad++; print "# " $3 " at " $1 } }
  END { printf "%d %d %d\n", n, ok + 0, bad + 0 }' /tmp/plt.want /tmp/plt.out >/tmp/plt.verdict
sed -n '/^#/p' /tmp/plt.verdict
read -r n good bad <<EOT
$(tail -n 1 /tmp/plt.verdict)
EOT
echo "# objdump lists $n stubs; asmspy names $good of them at the same address"
if [ "$n" -ge 5 ] && [ "$good" = "$n" ] && [ "$bad" = 0 ]; then ok plt_names
else notok plt_names "$good of $n stubs named at objdump's address, $bad elsewhere"; fi
why=$(runs_untraced "$pid")
[ -z "$why" ] && ok plt_target_survives || notok plt_target_survives "$why"
