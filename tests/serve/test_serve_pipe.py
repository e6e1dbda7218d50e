#!/usr/bin/env python3
"""--serve through a pipe (the `ssh host asmspy --serve` path, without the
network): a scripted client drives start / pause / resume / stop / quit over
several modes; one session at a time; control lines are distinguishable and
each session slices out as a valid recording; EOF lets a bounded session
finish and then quits; an unbounded one is stopped by EOF; the target
survives every session."""
import json
import os
import subprocess

from serve_lib import (ASMSPY, Server, assert_runs, check_recording, children_named, cleanup, fail,
                       ok, proc_state, slice_session, start_victim, write_lines, TMP)

_, pid, _ = start_victim("victim_loop")
srv = Server()

# --- a bounded log session runs to its count ----------------------------------
srv.send({"cmd": "start", "mode": "log", "pid": pid, "max": 5, "id": "log-1"})
ack = srv.expect_ack("start")
if ack.get("id") != "log-1" or ack.get("mode") != "log" or ack.get("session") != 1:
    fail(f"start ack: {ack}")
ended = srv.wait_ended(1)
if ended.get("exit") != 0 or ended.get("reason") != "n_reached" or ended.get("events") != 5 \
        or ended.get("recording") != "complete":
    fail(f"log session ended {ended}")
assert_runs(pid, "after the log session")
ok("log max=5: ack, 5 events, end n_reached, session ended")

# --- pause / resume / stop on an unbounded single-step session ------------------
srv.send({"cmd": "start", "mode": "stream", "pid": pid, "max": -1})
sid = srv.expect_ack("start")["session"]
srv.read_until(lambda o: o.get("type") == "insn", "a first insn")
# a second start while it runs is refused, naming the rule
srv.send({"cmd": "start", "mode": "log", "pid": pid, "max": 3})
err = srv.expect_err("one-session")
if "ptrace jack" not in err["error"]:
    fail(f"the one-session refusal does not name the rule: {err}")
ok("a second start is refused: " + err["error"])

srv.send({"cmd": "pause"})
srv.expect_ack("pause")
tracers = children_named(srv.proc.pid, "asmspy-session")
if len(tracers) != 1:
    fail(f"expected one session process under the server, found {tracers}")
for _ in range(2000):  # the tracer stops; the stepped target stops with it
    if proc_state(tracers[0]) == "T" and proc_state(pid) == "t":
        break
    os.sched_yield()
    import time
    time.sleep(0.005)
else:
    fail(f"paused: session {proc_state(tracers[0])}, target {proc_state(pid)} (want T and t)")
ok("pause: the session process is stopped and the single-stepped target is frozen")
srv.send({"cmd": "resume"})
srv.expect_ack("resume")
seen_before = sum(1 for o in srv.lines if o.get("type") == "insn")
for _ in range(20):
    srv.read_until(lambda o: o.get("type") == "insn", "insns after resume")
ok(f"resume: capture goes on ({seen_before} insns before, 20 more after)")

srv.send({"cmd": "stop", "id": 9})
if srv.expect_ack("stop").get("id") != 9:
    fail("stop ack without the id")
ended = srv.wait_ended(sid)
if ended.get("reason") != "interrupted" or ended.get("recording") != "complete":
    fail(f"stopped stream session ended {ended}")
assert_runs(pid, "after stop (two-phase detach)")
ok("stop mid-capture: end reason interrupted, the target runs untraced")

# --- no session: pause / stop are refused --------------------------------------
for verb in ("pause", "resume", "stop"):
    srv.send({"cmd": verb})
    srv.expect_err("no-session")
ok("pause/resume/stop without a session -> err no-session")

# --- more modes: trace, graph, tree, procs, dataflow ---------------------------
runs = [
    ({"mode": "trace", "region": "work", "max": 1}, "sample"),
    ({"mode": "graph", "max": 20}, "graph"),
    ({"mode": "tree", "max": 5, "depth": 2}, "call"),
    ({"mode": "procs", "max": 5}, "proc"),
    ({"mode": "dataflow", "region": "helper", "max": 50}, "dataflow"),
]
for params, want_type in runs:
    srv.send(dict({"cmd": "start", "pid": pid}, **params))
    s = srv.expect_ack("start")["session"]
    ended = srv.wait_ended(s)
    if ended.get("exit") != 0 or ended.get("recording") != "complete":
        fail(f"{params['mode']}: ended {ended}")
    rec = slice_session(srv.raw, s)
    path = os.path.join(TMP, f"s{s}.asmtrace")
    write_lines(path, rec)
    report = check_recording(path, f"session {s} ({params['mode']})")
    if f"{want_type}=" not in report:
        fail(f"{params['mode']}: no {want_type} event: {report}")
    assert_runs(pid, f"after {params['mode']}")
    ok(f"{params['mode']}: the sliced session is a valid recording: {report.strip()}")

# --- every line is JSON; control lines carry no seq; event lines always do --------
sessions_seen = 0
for o in srv.lines:
    t = o.get("type")
    if t in ("cmd", "err", "session"):
        if "seq" in o:
            fail(f"a control line carries seq: {o}")
    elif t == "header":
        sessions_seen += 1
    elif t != "end" and "seq" not in o:
        fail(f"an event line without seq: {o}")
ok(f"{len(srv.lines)} lines: control lines have no seq, {sessions_seen} recordings")

srv.send({"cmd": "quit"})
srv.expect_ack("quit")
if srv.read_line() is not None:
    fail("output after the quit ack")
if srv.wait_exit() != 0:
    fail("quit: the server did not exit 0")
ok("quit: ack, EOF, exit 0")

# --- EOF lets a bounded session finish, then the server quits (the seed's example) --
r = subprocess.run([ASMSPY, "--serve"], input=(json.dumps(
    {"cmd": "start", "mode": "log", "pid": pid, "max": 20}) + "\n").encode(), capture_output=True, timeout=120)
lines = [json.loads(l) for l in r.stdout.splitlines()]
evs = [o for o in lines if o.get("type") == "syscall"]
if r.returncode != 0 or len(evs) != 20 or lines[-1].get("event") != "ended":
    fail(f"printf start | asmspy --serve: rc {r.returncode}, {len(evs)} syscalls, last {lines[-1:]}")
ok("EOF after a bounded start: the session ran to max=20, then the server quit")

# --- EOF stops an unbounded session (nobody could stop it any more) --------------
r = subprocess.run([ASMSPY, "--serve"], input=(json.dumps(
    {"cmd": "start", "mode": "log", "pid": pid, "max": -1}) + "\n").encode(), capture_output=True, timeout=120)
lines = [json.loads(l) for l in r.stdout.splitlines()]
end = [o for o in lines if o.get("type") == "end"]
if r.returncode != 0 or not end or end[0].get("reason") != "interrupted":
    fail(f"EOF after an unbounded start: rc {r.returncode}, end {end}")
assert_runs(pid, "after EOF stopped an unbounded session")
ok("EOF after an unbounded start: stopped (reason interrupted), target runs")

# --- the sampling modes: auto (dataflow --auto) and sample, software-clock rung ----
_, apid, _ = start_victim("victim_auto")
srv = Server(env=dict(os.environ, ASMTEST_DF_ENTRY_WAIT_MS="1000"))
for params, want in (({"mode": "auto", "sampler": "sw"}, "dataflow"),
                     ({"mode": "sample", "sampler": "sw", "max": 200}, "provenance")):
    srv.send(dict({"cmd": "start", "pid": apid}, **params))
    s = srv.expect_ack("start")["session"]
    ended = srv.wait_ended(s)
    rec = slice_session(srv.raw, s)
    path = os.path.join(TMP, f"a{s}.asmtrace")
    write_lines(path, rec)
    report = check_recording(path, params["mode"])
    if ended.get("exit") != 0 or f"{want}=" not in report:
        fail(f"{params['mode']} over serve: ended {ended}, {report}")
    assert_runs(apid, params["mode"])
    ok(f"{params['mode']} (sampler sw): {report.split(': ', 2)[-1].strip()}")
srv.send({"cmd": "quit"})
srv.expect_ack("quit")
srv.wait_exit()
cleanup()
