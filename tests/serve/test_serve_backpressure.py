#!/usr/bin/env python3
"""--serve never blocks the capture on a client that does not read.

A client starts an unbounded single-step stream and then stops reading its
socket (or, in the stdio server, its pipe). The target must go on running
and being stepped (its context switches, one per single-step stop, keep
rising while it stays traced), a second client must get its answer, the
first client's `stop` must end the session and detach (TracerPid 0, alive)
before it has read a single further line, and what the client finally reads
must be a valid recording that states the loss: `lost` events where lines
were dropped, and a footer whose `lost` counts them.

Everything is bounded by counts (polls of /proc, lines); the hang guards
only turn a hang into a failure. The client buffer is made small
(ASMSPY_SERVE_CLIENT_BUFFER) so the drop path is reached after a few
thousand steps rather than a few hundred thousand.

A third part reads in bursts (a count of lines after a count of steps) from
a trace of a JIT-like target, so lines are dropped, then forwarded, several
times: the forwarded ones are renumbered and a codeimage's `when` (its own
seq) moves with it."""
import json
import os
import re
import socket
import time

from serve_lib import (TMP, Server, assert_runs, check_recording, cleanup, fail, ok, proc_state,
                       slice_session, start_victim, tracer_of, write_lines)

BUFFER = 65536
STEPS_WHILE_UNREAD = 20000  # far past every buffer between the capture and the client
POLL_S = 0.05
STALL_POLLS = 600           # this many polls (30 s) without one more step: the target is frozen
MAX_POLLS = 4000            # hang guard


def switches(pid):
    """Context switches of the target's thread: a single-stepped thread
    makes one per step (each step is a ptrace stop)."""
    n = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                n += int(line.split()[1])
    return n


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def wait_steps(pid, tracer, steps, what):
    """Poll until the target made `steps` more context switches while still
    traced by `tracer`; fail if it stops advancing (frozen) or is let go."""
    start = last = switches(pid)
    ticks0 = cpu_ticks(pid)
    still = 0
    for _ in range(MAX_POLLS):
        time.sleep(POLL_S)
        if tracer_of(pid) != tracer:
            fail(f"{what}: the target is no longer traced by the session (TracerPid {tracer_of(pid)})")
        now = switches(pid)
        if now - start >= steps:
            return now - start, cpu_ticks(pid) - ticks0
        still = still + 1 if now == last else 0
        last = now
        if still >= STALL_POLLS:
            fail(f"{what}: the target is frozen: {now - start} steps, then none for {STALL_POLLS} "
                 f"polls (state {proc_state(pid)!r}, cpu ticks +{cpu_ticks(pid) - ticks0})")
    fail(f"{what}: only {last - start} steps in {MAX_POLLS} polls")


def wait_untraced(pid, what):
    for _ in range(MAX_POLLS):
        if tracer_of(pid) == 0:
            return
        time.sleep(POLL_S)
    fail(f"{what}: the target is still traced (TracerPid {tracer_of(pid)})")


def check_loss(srv, session, what):
    """The session's lines: a valid recording that states what was dropped."""
    ended = srv.wait_ended(session)
    return check_slice(srv, session, ended, what)


def check_slice(srv, session, ended, what):
    if ended.get("reason") != "interrupted" or ended.get("recording") != "complete":
        fail(f"{what}: session ended {ended}")
    acks = [o for o in srv.lines if o.get("type") == "cmd" and o.get("cmd") == "stop"]
    if len(acks) != 1:
        fail(f"{what}: the stop was acknowledged {len(acks)} times")
    rec = slice_session(srv.raw, session)
    path = os.path.join(TMP, f"{what.replace(' ', '_')}.asmtrace")
    write_lines(path, rec)
    report = check_recording(path, what)
    objs = [json.loads(r) for r in rec]
    lost = [o for o in objs if o["type"] == "lost"]
    end = objs[-1]
    dropped = sum(o["count"] for o in lost)
    if not lost or dropped <= 0:
        fail(f"{what}: no lost event in a recording whose client did not read ({report.strip()})")
    if end.get("lost") != dropped or ended.get("dropped") != dropped:
        fail(f"{what}: footer lost {end.get('lost')}, session dropped {ended.get('dropped')}, "
             f"lost events sum to {dropped}")
    if not all(o.get("human", "").startswith(f"# lost {o['count']} events") for o in lost):
        fail(f"{what}: a lost event without its text: {lost[0]}")
    insns = sum(1 for o in objs if o["type"] == "insn")
    ok(f"{what}: valid recording, {insns} insns delivered, {dropped} dropped in {len(lost)} "
       f"lost events, footer lost={end['lost']} ({report.strip()})")
    return objs


def session_tracer(pid):
    for _ in range(MAX_POLLS):
        t = tracer_of(pid)
        if t > 0:
            return t
        time.sleep(POLL_S)
    fail("the session never attached")


env = dict(os.environ, ASMSPY_SERVE_CLIENT_BUFFER=str(BUFFER))
_, pid, _ = start_victim("victim_loop")

# --- the socket server ----------------------------------------------------------
priv = os.path.join(TMP, "priv")
os.mkdir(priv, 0o700)
path = os.path.join(priv, "s.sock")
srv = Server(sock_path=path, env=env)
srv.send({"cmd": "start", "mode": "stream", "pid": pid, "max": -1})
sid = srv.expect_ack("start")["session"]
tracer = session_tracer(pid)
# from here on the client reads nothing until the session is over
steps, ticks = wait_steps(pid, tracer, STEPS_WHILE_UNREAD, "socket client not reading")
ok(f"the client reads nothing: the target went on, {steps} steps, +{ticks} cpu ticks")

other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
other.settimeout(60)  # hang guard: the old server never answered
other.connect(path)
try:  # the refusal may come (and the server close) before the request is sent
    other.sendall(b'{"cmd":"start","mode":"log","pid":%d,"max":1}\n' % pid)
except (BrokenPipeError, ConnectionResetError):
    pass
data = b""
try:
    while not data.endswith(b"\n"):
        chunk = other.recv(4096)
        if not chunk:
            break
        data += chunk
except socket.timeout:
    fail("a second client got no answer while the first one did not read")
other.close()
refusal = json.loads(data.splitlines()[0]) if data else {}
if refusal.get("type") != "err" or refusal.get("rule") != "one-client":
    fail(f"a second client got {data[:200]!r}, want an err one-client line")
ok("a second client is answered (one-client) while the first one does not read")

steps, _ = wait_steps(pid, tracer, 2000, "after the second client")
srv.send({"cmd": "stop"})
wait_untraced(pid, "stop from a client that does not read")
assert_runs(pid, "stop from a client that does not read")
ok("the stop of a client that read nothing ends the session: the target runs, untraced")
check_loss(srv, sid, "socket client")
srv.send({"cmd": "quit"})
srv.expect_ack("quit")
if srv.wait_exit() != 0:
    fail("the socket server did not exit 0 after quit")

# --- the stdio server: its stdout pipe is not read ------------------------------------
srv = Server(env=env)
srv.send({"cmd": "start", "mode": "stream", "pid": pid, "max": -1})
sid = srv.expect_ack("start")["session"]
tracer = session_tracer(pid)
steps, ticks = wait_steps(pid, tracer, STEPS_WHILE_UNREAD, "stdio client not reading")
ok(f"stdio, stdout not read: the target went on, {steps} steps, +{ticks} cpu ticks")
srv.send({"cmd": "stop"})
wait_untraced(pid, "stop on stdin while stdout is not read")
assert_runs(pid, "stop on stdin while stdout is not read")
check_loss(srv, sid, "stdio client")
srv.close_commands()
if srv.wait_exit() != 0:
    fail("the stdio server did not exit 0 at EOF")
assert_runs(pid, "the end")
ok("the target survived both servers")

# --- bursts: dropped, forwarded, dropped again; codeimage renumbered -------------------
_, jpid, extra = start_victim("victim_jit", 200, 1)
m = re.match(r"jit (0x[0-9a-f]+) (\d+)", extra[0] if extra else "")
if not m:
    fail(f"victim_jit printed {extra}")
srv = Server(env=env)
srv.send({"cmd": "start", "mode": "trace", "pid": jpid, "region": f"{m.group(1)}:{m.group(2)}",
          "max": -1})
sid = srv.expect_ack("start")["session"]
tracer = session_tracer(jpid)
BURSTS = 4
for burst in range(BURSTS):
    # far more than the pipe and the queue hold: reading this many lines
    # passes the point where forwarding resumes, behind a `lost` line
    wait_steps(jpid, tracer, 3000, f"burst {burst + 1}: not reading")
    for _ in range(1500):
        srv.read_line()
srv.send({"cmd": "stop"})
wait_untraced(jpid, "stop after bursts")
assert_runs(jpid, "stop after bursts")
ended = srv.read_until(lambda o: o.get("type") == "session" and o.get("event") == "ended",
                       "the session's end")
if ended.get("reason") != "interrupted":
    fail(f"bursts: session ended {ended}")
objs = check_slice(srv, sid, ended, "bursts")
lost = [o for o in objs if o["type"] == "lost"]
images = [o for o in objs if o["type"] == "codeimage"]
moved = [o for o in images if o["seq"] > lost[0]["seq"]]
if len(lost) < BURSTS or not moved or any(o["when"] != o["seq"] for o in images):
    fail(f"bursts: {len(lost)} lost events, {len(moved)} codeimages after the first, when/seq "
         f"{[(o['when'], o['seq']) for o in images if o['when'] != o['seq']][:3]}")
ok(f"bursts: {len(lost)} lost events between forwarded runs; {len(moved)} codeimages renumbered "
   f"after the first loss, each 'when' still its own seq")
srv.close_commands()
if srv.wait_exit() != 0:
    fail("the stdio server did not exit 0 at EOF (bursts)")
cleanup()
