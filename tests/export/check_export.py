#!/usr/bin/env python3
"""check_export: validate one `asmspy --export` output.

usage:
  check_export.py perfetto <out.json>
      the trace-event rules: the JSON parses, "traceEvents" is a list, every
      event has ph, ts, pid, tid, name; per tid B/E are balanced and properly
      nested (an E closes the innermost open B, same name) and ts never
      decreases. Prints "events=<n> threads=<n> max_depth=<n>".
  check_export.py folded <out.folded> <recording> <func>
      every line matches ^[^ ]+( [0-9]+)$; the weights of the stacks ending
      in <func> add up to the calls into <func> the recording holds, counted
      here independently: call records ("depth"/"name") by name; executed
      instructions ("disasm"/"sym") as call instructions whose thread's next
      instruction is in <func>. Prints "<func>=<n>".
exit: 0 pass, 1 fail"""
import json
import re
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_perfetto(path):
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            fail("not JSON: %s" % e)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(evs, list) or not evs:
        fail("no traceEvents list")
    stacks, last_ts, max_depth = {}, {}, 0
    for i, ev in enumerate(evs):
        for k in ("ph", "ts", "pid", "tid", "name"):
            if k not in ev:
                fail("event %d has no %s: %r" % (i, k, ev))
        if not isinstance(ev["ts"], (int, float)) or not isinstance(ev["name"], str):
            fail("event %d: bad ts/name: %r" % (i, ev))
        key = (ev["pid"], ev["tid"])
        if ev["ts"] < last_ts.get(key, ev["ts"]):
            fail("event %d: ts %s goes back on tid %s (after %s)" % (i, ev["ts"], ev["tid"], last_ts[key]))
        last_ts[key] = ev["ts"]
        st = stacks.setdefault(key, [])
        if ev["ph"] == "B":
            st.append(ev["name"])
            max_depth = max(max_depth, len(st))
        elif ev["ph"] == "E":
            if not st:
                fail("event %d: E with no open B on tid %s" % (i, ev["tid"]))
            top = st.pop()
            if top != ev["name"]:
                fail("event %d: E %r closes B %r (not nested)" % (i, ev["name"], top))
        elif ev["ph"] not in ("X", "M", "i", "I"):
            fail("event %d: unexpected ph %r" % (i, ev["ph"]))
    for key, st in stacks.items():
        if st:
            fail("tid %s ends with %d open B events: %r" % (key[1], len(st), st))
    meta = doc.get("otherData", {})
    if meta.get("time_base") not in ("seq", "ns"):
        fail("otherData.time_base missing: %r" % meta)
    print("events=%d threads=%d max_depth=%d" % (len(evs), len(stacks), max_depth))


def recorded_calls(recording, func):
    n = 0
    pending = {}  # tid -> the last instruction was a call
    with open(recording) as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if "depth" in ev and "name" in ev and "tid" in ev:
                n += ev["name"] == func
            elif "disasm" in ev and "tid" in ev:
                tid = ev["tid"]
                if pending.get(tid):
                    n += ev.get("sym") == func
                words = [w for w in ev["disasm"].split() if w not in ("bnd", "notrack")]
                pending[tid] = bool(words) and words[0].startswith("call")
    return n


def check_folded(path, recording, func):
    total = 0
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines:
        fail("no folded lines")
    for ln in lines:
        if not re.match(r"^[^ ]+( [0-9]+)$", ln):
            fail("malformed folded line: %r" % ln)
        stack, w = ln.rsplit(" ", 1)
        if stack.split(";")[-1] == func:
            total += int(w)
    want = recorded_calls(recording, func)
    if want == 0:
        fail("the recording has no call into %s (pick another function)" % func)
    if total != want:
        fail("folded weights for %s add up to %d, the recording has %d calls" % (func, total, want))
    print("%s=%d" % (func, total))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "perfetto":
        check_perfetto(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "folded":
        check_folded(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
