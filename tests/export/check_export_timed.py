#!/usr/bin/env python3
"""check_export_timed: the perfetto metadata and the time-weighted folded
stacks of `asmspy --export`, checked against the recording itself.

usage:
  check_export_timed.py meta <out.json> <recording> [<process name>]
      every pid with B events has one process_name "M" event (the given name,
      when one is given) and a process_sort_index; every (pid, tid) with B
      events has a non-empty thread_name and a thread_sort_index, 0 for the
      main thread (tid == pid); the pids and tids are the recording's own,
      the header's pid among them. Prints "pids=<n> tids=<n> name=<name>".
  check_export_timed.py selftime <out.folded> <recording>
      the recording's call log (entry / leaf / exit records with ts_ns,
      duration_ns) replayed here, per thread, into self times per stack: a
      frame's time from its start to its end minus its callees' time; leaf
      starts at ts_ns - duration_ns, a record at depth d first closes the
      thread's frames at depth >= d (an exit: deeper ones, then its own),
      frames still open at the end close at the latest instant recorded.
      The folded lines must be exactly the stacks with a non-zero self time,
      weighted by it. Prints "stacks=<n> total_ns=<n>".
exit: 0 pass, 1 fail"""
import json
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def records(path):
    out = []
    with open(path) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def check_meta(out, recording, want_name=None):
    with open(out) as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    recs = records(recording)
    header_pid = recs[0].get("pid")
    rec_tids = {(r["pid"], r["tid"]) for r in recs if "tid" in r and "pid" in r}
    active = {(e["pid"], e["tid"]) for e in evs if e["ph"] == "B"}
    if not active:
        fail("no B events")
    if not active <= rec_tids:
        fail("B events on threads the recording does not have: %r" % (active - rec_tids))
    meta = [e for e in evs if e["ph"] == "M"]
    first_data = next(i for i, e in enumerate(evs) if e["ph"] != "M")
    if any(e["ph"] == "M" for e in evs[first_data:]):
        fail("metadata events after the first B/E event")
    pnames, psort, tnames, tsort = {}, {}, {}, {}
    for e in meta:
        a = e.get("args", {})
        if e["name"] == "process_name":
            if e["pid"] in pnames:
                fail("two process_name events for pid %s" % e["pid"])
            pnames[e["pid"]] = a.get("name")
        elif e["name"] == "process_sort_index":
            psort[e["pid"]] = a.get("sort_index")
        elif e["name"] == "thread_name":
            tnames[(e["pid"], e["tid"])] = a.get("name")
        elif e["name"] == "thread_sort_index":
            tsort[(e["pid"], e["tid"])] = a.get("sort_index")
        else:
            fail("unknown metadata event %r" % e)
    pids = {p for p, _ in active}
    if header_pid not in pids:
        fail("the header's pid %s has no events" % header_pid)
    for p in pids:
        n = pnames.get(p)
        if not isinstance(n, str) or not n:
            fail("pid %s has no process_name: %r" % (p, pnames))
        if want_name is not None and n != want_name:
            fail("pid %s is named %r, want %r" % (p, n, want_name))
        if not isinstance(psort.get(p), int):
            fail("pid %s has no process_sort_index" % p)
    for k in active:
        if not isinstance(tnames.get(k), str) or not tnames[k]:
            fail("thread %s has no thread_name" % (k,))
        if not isinstance(tsort.get(k), int) or (k[0] == k[1]) != (tsort[k] == 0):
            fail("thread %s: thread_sort_index %r (0 only for the main thread)" % (k, tsort.get(k)))
    print("pids=%d tids=%d name=%s" % (len(pids), len(active), pnames[header_pid]))


def folded_name(s):
    return s.replace(" ", "_").replace(";", ":")


def self_times(recording):
    stacks = {}  # tid -> [[name, depth, start, child], ...]
    weights = {}
    latest = 0

    def close(st, at):
        name, _, start, child = st[-1]
        dur = max(0, at - start)
        path = ";".join(folded_name(f[0]) for f in st)
        weights[path] = weights.get(path, 0) + max(0, dur - child)
        st.pop()
        if st:
            st[-1][3] += dur

    for r in records(recording):
        if "what" not in r or "ts_ns" not in r:
            continue
        st = stacks.setdefault(r["tid"], [])
        d, at, what = r["depth"], r["ts_ns"], r["what"]
        latest = max(latest, at)
        if what == "exit":
            while st and st[-1][1] > d:
                close(st, at)
            if st and st[-1][1] == d:
                close(st, at)
            continue
        dur = r.get("duration_ns", 0)
        start = at - dur if what == "leaf" and 0 < dur <= at else at
        while st and st[-1][1] >= d:
            close(st, start)
        st.append([r["name"], d, start, 0])
        if what == "leaf":
            close(st, at)
    for st in stacks.values():
        while st:
            close(st, latest)
    return {k: v for k, v in weights.items() if v}


def check_selftime(out, recording):
    got = {}
    with open(out) as f:
        for ln in f.read().splitlines():
            stack, w = ln.rsplit(" ", 1)
            if stack in got:
                fail("stack %r twice" % stack)
            got[stack] = int(w)
    want = self_times(recording)
    if not want:
        fail("the recording has no timed call log")
    if got != want:
        diff = sorted(set(got) ^ set(want)) or [k for k in want if got[k] != want[k]]
        fail("folded differs from the self times: %s" %
             "; ".join("%s: folded %s, recording %s" % (k, got.get(k), want.get(k)) for k in diff[:5]))
    print("stacks=%d total_ns=%d" % (len(got), sum(got.values())))


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == "meta":
        check_meta(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) == 5 else None)
    elif len(sys.argv) == 4 and sys.argv[1] == "selftime":
        check_selftime(sys.argv[2], sys.argv[3])
    else:
        print(__doc__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
