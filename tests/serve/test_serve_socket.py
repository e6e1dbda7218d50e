#!/usr/bin/env python3
"""--serve=<socket>: the same protocol over a unix socket, one client at a
time, and the socket's security rules: mode 0600, a shared directory gets a
private 0700 subdirectory, an existing non-socket file is never clobbered, a
live server is never displaced, a stale socket of ours is replaced."""
import json
import os
import socket
import stat
import subprocess

from serve_lib import (ASMSPY, TMP, Server, assert_runs, check_recording, cleanup, fail, ok,
                       slice_session, start_victim, write_lines)

_, pid, _ = start_victim("victim_loop")
priv = os.path.join(TMP, "priv")
os.mkdir(priv, 0o700)
path = os.path.join(priv, "s.sock")
srv = Server(sock_path=path)
if srv.real_path != path:
    fail(f"a private directory must hold the socket as given: serving on {srv.real_path}")
st = os.lstat(path)
if not stat.S_ISSOCK(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600 or st.st_uid != os.geteuid():
    fail(f"socket mode {oct(st.st_mode)} uid {st.st_uid} (want a 0600 socket of ours)")
ok("socket created 0600 at the path given")

# --- the protocol over the socket: several modes, pause/resume/stop --------------
srv.send({"cmd": "start", "mode": "log", "pid": pid, "max": 3})
s = srv.expect_ack("start")["session"]
if srv.wait_ended(s).get("events") != 3:
    fail("log over the socket")
srv.send({"cmd": "start", "mode": "trace", "pid": pid, "region": "work", "max": 1})
s = srv.expect_ack("start")["session"]
srv.wait_ended(s)
write_lines(os.path.join(TMP, "t.asmtrace"), slice_session(srv.raw, s))
check_recording(os.path.join(TMP, "t.asmtrace"), "trace over the socket")
# a leaf (no callee: the view's callee table was never allocated; under
# UBSan its sort was a qsort of a NULL base and killed the session)
srv.send({"cmd": "start", "mode": "trace", "pid": pid, "region": "helper", "max": 1})
s = srv.expect_ack("start")["session"]
ended = srv.wait_ended(s)
if ended.get("exit") != 0 or ended.get("reason") != "n_reached" or ended.get("recording") != "complete":
    fail(f"trace of a leaf function over the socket ended {ended}")
leaf = [o for o in srv.lines if o.get("type") == "sample"]
if not leaf or "(none)" not in leaf[-1].get("human", ""):
    fail(f"trace of a leaf: no sample saying it calls nothing: {leaf[-1:]}")
srv.send({"cmd": "start", "mode": "stream", "pid": pid, "max": -1})
s = srv.expect_ack("start")["session"]
srv.read_until(lambda o: o.get("type") == "insn", "an insn")
srv.send({"cmd": "start", "mode": "log", "pid": pid})
srv.expect_err("one-session")
srv.send({"cmd": "pause"})
srv.expect_ack("pause")
srv.send({"cmd": "resume"})
srv.expect_ack("resume")
srv.read_until(lambda o: o.get("type") == "insn", "an insn after resume")

# --- one client at a time ----------------------------------------------------------
other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
other.connect(path)
data = b""
while True:
    chunk = other.recv(4096)
    if not chunk:
        break
    data += chunk
other.close()
refusal = json.loads(data.splitlines()[0]) if data else {}
if refusal.get("type") != "err" or refusal.get("rule") != "one-client":
    fail(f"a second client got {data[:200]!r}, want an err one-client line and a disconnect")
ok("a second client: err one-client, disconnected")

srv.send({"cmd": "stop"})
srv.expect_ack("stop")
if srv.wait_ended(s).get("reason") != "interrupted":
    fail("stop over the socket")
assert_runs(pid, "after stop over the socket")
ok("log, trace (sliced: valid), stream with pause/resume/stop, second start refused")

# --- a client's EOF lets a bounded session finish; the server keeps serving -------
srv.send({"cmd": "start", "mode": "log", "pid": pid, "max": 4})
s = srv.expect_ack("start")["session"]
srv.close_commands()
if srv.wait_ended(s).get("events") != 4:
    fail("the bounded session did not finish after the client's EOF")
if srv.read_line() is not None:
    fail("the server kept the connection after the session ended")
srv.sock.close()
srv.connect()  # the server is still there for the next client
srv.send({"cmd": "quit"})
srv.expect_ack("quit")
if srv.wait_exit() != 0:
    fail("quit over the socket")
if os.path.exists(path):
    fail("the socket file is left behind after quit")
ok("client EOF: the bounded session finished, the next client could connect, quit removed the socket")

# --- never clobber a non-socket; never displace a live server; replace a stale one --
victim_file = os.path.join(priv, "not-a-socket")
with open(victim_file, "w") as f:
    f.write("precious\n")
r = subprocess.run([ASMSPY, "--serve=" + victim_file], capture_output=True, text=True, timeout=60)
if r.returncode == 0 or "not a socket" not in r.stderr or open(victim_file).read() != "precious\n":
    fail(f"--serve on a regular file: rc {r.returncode}, {r.stderr!r}")
ok("an existing regular file is refused and left intact: " + r.stderr.strip())

live = Server(sock_path=os.path.join(priv, "live.sock"))
r = subprocess.run([ASMSPY, "--serve=" + os.path.join(priv, "live.sock")], capture_output=True,
                   text=True, timeout=60)
if r.returncode == 0 or "another server is listening" not in r.stderr:
    fail(f"a second server on a live socket: rc {r.returncode}, {r.stderr!r}")
live.send({"cmd": "quit"})
live.expect_ack("quit")
live.wait_exit()
ok("a live server's socket is not displaced: " + r.stderr.strip())

stale = os.path.join(priv, "stale.sock")
ghost = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
ghost.bind(stale)
ghost.close()  # the file stays, nobody listens: a crashed server's leftover
srv2 = Server(sock_path=stale)
srv2.send({"cmd": "quit"})
srv2.expect_ack("quit")
srv2.wait_exit()
ok("a stale socket of ours is replaced")

# --- a directory others can write: the socket goes into a private 0700 directory ----
shared = os.path.join(TMP, "shared")
os.mkdir(shared)
os.chmod(shared, 0o1777)
srv3 = Server(sock_path=os.path.join(shared, "x.sock"))
want_dir = os.path.join(shared, f"asmspy-{os.geteuid()}")
if srv3.real_path != os.path.join(want_dir, "x.sock"):
    fail(f"in a world-writable directory the socket went to {srv3.real_path}")
dst = os.lstat(want_dir)
if not stat.S_ISDIR(dst.st_mode) or stat.S_IMODE(dst.st_mode) != 0o700:
    fail(f"private directory mode {oct(dst.st_mode)}")
if os.path.exists(os.path.join(shared, "x.sock")):
    fail("a socket was created in the shared directory itself")
srv3.send({"cmd": "quit"})
srv3.expect_ack("quit")
srv3.wait_exit()
ok(f"world-writable directory: socket in {want_dir} (0700)")

os.chmod(want_dir, 0o755)  # no longer private: refused, not silently used
r = subprocess.run([ASMSPY, "--serve=" + os.path.join(shared, "y.sock")], capture_output=True,
                   text=True, timeout=60)
if r.returncode == 0 or "not a private directory" not in r.stderr:
    fail(f"a non-private asmspy-<uid> directory was used: rc {r.returncode} {r.stderr!r}")
os.rmdir(want_dir)
os.symlink(priv, want_dir)  # a symlink planted where the private directory goes
r = subprocess.run([ASMSPY, "--serve=" + os.path.join(shared, "y.sock")], capture_output=True,
                   text=True, timeout=60)
if r.returncode == 0 or "symlink" not in r.stderr:
    fail(f"a symlinked asmspy-<uid> directory was followed: rc {r.returncode} {r.stderr!r}")
ok("a private directory that is not 0700, or is a symlink, is refused")

r = subprocess.run([ASMSPY, "--serve=" + os.path.join(priv, "x" * 120)], capture_output=True,
                   text=True, timeout=60)
if r.returncode != 1 or "longer than" not in r.stderr:
    fail(f"an over-long socket path: rc {r.returncode} {r.stderr!r}")
r = subprocess.run([ASMSPY, "--serve=", "x"], capture_output=True, text=True, timeout=60)
if r.returncode != 2:
    fail(f"--serve= with an empty path: rc {r.returncode}")
ok("over-long path -> exit 1, empty path -> exit 2")
cleanup()
