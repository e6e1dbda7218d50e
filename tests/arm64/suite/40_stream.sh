# --stream on arm64 against objdump: every instruction asmspy reports in
# victim_loop's own code has the bytes aarch64-linux-gnu-objdump -d shows at
# that address (the host made objdump/victim_loop.txt; the guest has no
# binutils), the module base read from /proc/<pid>/maps. Then the victim
# runs on untraced.
. ./lib.sh
need_asmspy stream
dump="$ASMSPY_PAYLOAD/objdump/victim_loop.txt"
[ -s "$dump" ] || { skip stream_objdump "no objdump of victim_loop in the payload"; exit 0; }
start_victim victim_loop
pid=$VICTIM_PID
[ -n "$pid" ] || { notok stream "victim_loop did not start"; exit 0; }
"$ASMSPY" --stream "$pid" 400 --json >/tmp/stream.json 2>/tmp/stream.err
rc=$?
[ $rc -eq 0 ] || notok stream_runs "--stream exited $rc: $(head -n 3 /tmp/stream.err | tr '\n' ' ')"
base=$(awk '$6 ~ /\/victim_loop$/ && $3 == "00000000" {split($1, a, "-"); print a[1]; exit}' "/proc/$pid/maps")
n=$(grep -c '"type":"insn"' /tmp/stream.json)
[ "$n" = 400 ] && ok stream_count || notok stream_count "$n insn records, want 400"
# objdump lines: "     8fc:	97fffff6 	bl	8d4 <leaf>" -> "8fc 97fffff6"
awk -F'\t' '/^ *[0-9a-f]+:\t[0-9a-f]{8} / {a=$1; sub(/^ */, "", a); sub(/:$/, "", a); w=$2; sub(/ .*/, "", w); print a, w}' "$dump" >/tmp/od.words
grep '"type":"insn"' /tmp/stream.json | grep '"module":"victim_loop"' |
  sed -n 's/.*"ip":"0x\([0-9a-f]*\)".*"bytes":"\([0-9a-f]*\)".*/\1 \2/p' >/tmp/ours
# one pass (TCG is slow): objdump's words by address, then each of ours
# (the address made file-relative, its bytes in memory order made a word)
awk -v base="$base" '
  function hex(s,   i, c, v) { v = 0; s = tolower(s)
    for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
    return v }
  NR == FNR { word[hex($1)] = $2; next }
  { off = hex($1) - hex(base); b = $2
    got = substr(b, 7, 2) substr(b, 5, 2) substr(b, 3, 2) substr(b, 1, 2)
    checked++
    if (word[off] != got) { bad++; if (bad <= 3) printf "# 0x%s (+0x%x): asmspy %s, objdump %s\n", $1, off, got, word[off] } }
  END { printf "%d %d\n", checked, bad }' /tmp/od.words /tmp/ours >/tmp/stream.verdict
sed -n '/^#/p' /tmp/stream.verdict
read -r checked bad <<EOT
$(tail -n 1 /tmp/stream.verdict)
EOT
echo "# $checked instructions in victim_loop checked against objdump, base 0x$base"
if [ "$checked" -ge 20 ] && [ "$bad" = 0 ]; then ok stream_objdump
else notok stream_objdump "$bad of $checked differ from objdump"; fi
grep '"type":"insn"' /tmp/stream.json | grep -q '"sym":"work"' && ok stream_symbols ||
  notok stream_symbols "no instruction resolved to work()"
why=$(runs_untraced "$pid")
[ -z "$why" ] && ok stream_target_survives || notok stream_target_survives "$why"
