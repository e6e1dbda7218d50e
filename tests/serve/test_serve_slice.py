#!/usr/bin/env python3
"""The slicing law, end to end: a session sliced out of a --serve stream
(control lines dropped) is a valid recording, and `asmspy --replay` renders
it to exactly the text the CLI printed live for the same run on the same
victim. The run is deterministic: --trace of victim_jit's steady(), which
executes the same instructions and returns the same value every call."""
import os
import subprocess

from serve_lib import (ASMSPY, TMP, Server, check_recording, cleanup, fail, ok, run, slice_session,
                       start_victim, write_lines)

_, pid, _ = start_victim("victim_jit")

live = run([ASMSPY, "--trace", pid, "steady", "2"])
if live.returncode != 0 or b"sample #2" not in live.stdout:
    fail(f"the live CLI run: rc {live.returncode} {live.stderr!r}")

srv = Server()
srv.send({"cmd": "start", "mode": "log", "pid": pid, "max": 2})  # a first session, to slice past
srv.wait_ended(srv.expect_ack("start")["session"])
srv.send({"cmd": "start", "mode": "trace", "pid": pid, "region": "steady", "max": 2})
sid = srv.expect_ack("start")["session"]
srv.wait_ended(sid)
srv.send({"cmd": "quit"})
srv.expect_ack("quit")
srv.wait_exit()

transcript = os.path.join(TMP, "transcript.ndjson")
write_lines(transcript, srv.raw)
sliced = os.path.join(TMP, "slice.asmtrace")
write_lines(sliced, slice_session(srv.raw, sid))
report = check_recording(sliced, "the sliced session")
if "sample=2" not in report:
    fail(f"the sliced session lacks its samples: {report}")
ok("sliced session " + report.strip())

rep = run([ASMSPY, "--replay", sliced])
if rep.returncode != 0:
    fail(f"--replay of the slice: rc {rep.returncode} {rep.stderr!r}")
if rep.stdout != live.stdout:
    open(os.path.join(TMP, "live.txt"), "wb").write(live.stdout)
    open(os.path.join(TMP, "replay.txt"), "wb").write(rep.stdout)
    d = subprocess.run(["diff", os.path.join(TMP, "live.txt"), os.path.join(TMP, "replay.txt")],
                       capture_output=True, text=True).stdout
    fail("the replayed slice differs from the live CLI text:\n" + d[:3000])
ok(f"--replay of the slice == the CLI's live text ({len(live.stdout.splitlines())} lines)")

# the transcript itself replays too: --session picks the session, the default the first recording
for argv, want in (([transcript, f"--session={sid}"], live.stdout), ([transcript], None)):
    r = run([ASMSPY, "--replay"] + argv)
    if r.returncode != 0 or (want is not None and r.stdout != want) or not r.stdout:
        fail(f"--replay {argv}: rc {r.returncode}, {r.stderr!r}")
with open(transcript, "rb") as f:
    r = subprocess.run([ASMSPY, "--replay", "-", f"--session={sid}"], stdin=f, capture_output=True)
if r.returncode != 0 or r.stdout != live.stdout:
    fail(f"--replay - --session={sid} from stdin: rc {r.returncode} {r.stderr!r}")
r = run([ASMSPY, "--replay", transcript, "--session=99"])
if r.returncode != 1 or b"no recording for that session" not in r.stderr:
    fail(f"--session=99: rc {r.returncode} {r.stderr!r}")
ok("--replay of the whole transcript (file and stdin) picks the session; an absent one -> exit 1")
cleanup()
