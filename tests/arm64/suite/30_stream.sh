# --stream on arm64: 100 single-stepped instructions of victim_spin, each one
# in the victim's own code landing on an instruction objdump lists (the
# payload's objdump/victim_spin.txt, `aarch64-linux-gnu-objdump -d` made on
# the host) with the same mnemonic; the victim running untraced afterwards.
. ./lib.sh
need_asmspy stream
dump=$ASMSPY_PAYLOAD/objdump/victim_spin.txt
start_victim victim_spin
pid=$VICTIM_PID
[ -n "$pid" ] || { notok stream "victim_spin did not start"; exit 0; }
"$ASMSPY" --stream "$pid" 100 >/tmp/stream.out 2>/tmp/stream.err
rc=$?
sed 's/^/# /' /tmp/stream.out | head -n 12
if [ $rc -ne 0 ]; then
  notok stream "--stream exited $rc: $(head -n 3 /tmp/stream.err | tr '\n' ' ')"
elif [ "$(grep -c . /tmp/stream.out)" != 100 ]; then
  notok stream "$(grep -c . /tmp/stream.out) lines, want 100"
else
  ok stream
  if [ ! -s "$dump" ]; then
    skip stream_objdump "no objdump/victim_spin.txt in the payload"
  else
    # objdump: "<hex addr> <func>:" headers, "  <hex addr>:\t<word>\t<mnemonic>..."
    # stream:  "func+0xoff  [module]  mnemonic operands"
    bad=$(awk -v mod="[victim_spin]" '
      function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
        return v }
      FNR == NR {
        if ($0 ~ /^[0-9a-f]+ <[^>]+>:$/) { f = $2; gsub(/[<>:]/, "", f); start[f] = hex($1) }
        else if (split($0, t, "\t") >= 3 && t[1] ~ /^ *[0-9a-f]+:$/) {
          a = t[1]; gsub(/[ :]/, "", a); m = t[3]; sub(/ .*/, "", m); insn[hex(a)] = m }
        next }
      $2 == mod {
        n++; split($1, fo, "+"); f = fo[1]
        if (!(f in start)) { print "no function " f; exit }
        a = start[f] + hex(fo[2])
        if (!(a in insn)) { print $1 " is not an instruction boundary"; exit }
        if (insn[a] != $3) { print $1 ": " $3 " vs objdump " insn[a]; exit }
      }
      END { if (n == 0) print "no instruction in " mod }' "$dump" /tmp/stream.out)
    if [ -z "$bad" ]; then ok stream_objdump; else notok stream_objdump "$bad"; fi
  fi
fi
why=$(runs_untraced "$pid")
if [ -z "$why" ]; then ok stream_target_survives; else notok stream_target_survives "$why"; fi
