"""Shared pieces of the serve suite: a scripted --serve client (pipe or unix
socket), victims, the session slicer, and meson's exit codes.

Environment (tests/serve/meson.build): ASMSPY, VICTIM_DIR, ASMTRACE_CHECK.
Timeouts here only guard against a hang (a failing test); nothing is
measured by wall clock: every wait is for a count of lines or a state."""
import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

ASMSPY = os.environ["ASMSPY"]
VICTIM_DIR = os.environ["VICTIM_DIR"]
ASMTRACE_CHECK = os.environ["ASMTRACE_CHECK"]
HANG_GUARD = 120.0  # seconds: a server this silent is broken
CONTROL_TYPES = ("session", "cmd", "err")

_victims = []
_servers = []
_tmpdir = tempfile.TemporaryDirectory(prefix="asmspy-serve-")
TMP = _tmpdir.name


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    cleanup()
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def skip(msg):
    print("SKIP: " + msg)
    cleanup()
    sys.exit(77)


def cleanup():
    # servers first: a session stuck behind its server (the bug a failing
    # test may be showing) only lets its target go once the server is gone
    for p in _servers:
        try:
            if p.poll() is None:
                p.kill()
                p.wait()
        except Exception:
            pass
    _servers.clear()
    for p in _victims:
        try:
            p.kill()
            p.wait()
        except Exception:
            pass
    _victims.clear()


# a test that dies of an exception still takes its servers and victims along
atexit.register(lambda: cleanup())


def start_victim(name, *args):
    """Start a victim; returns (Popen, pid, extra output lines)."""
    out = open(os.path.join(TMP, name + ".out"), "w+")
    p = subprocess.Popen([os.path.join(VICTIM_DIR, name)] + [str(a) for a in args],
                         stdout=out, stderr=subprocess.DEVNULL)
    _victims.append(p)
    for _ in range(2000):
        out.seek(0)
        lines = out.read().splitlines()
        if lines and (name != "victim_jit" or len(lines) >= 2):
            break
        time.sleep(0.005)
    if not lines or int(lines[0]) != p.pid:
        fail(f"victim {name} did not report its pid")
    return p, p.pid, lines[1:]


def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def tracer_of(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("TracerPid:"):
                return int(line.split()[1])
    return -1


def assert_runs(pid, what):
    """The target survived: alive, not stopped, not traced."""
    for _ in range(500):
        st = proc_state(pid)
        if st in "RSD" and tracer_of(pid) == 0:
            return
        time.sleep(0.01)
    fail(f"{what}: pid {pid} is in state {proc_state(pid)!r}, tracer {tracer_of(pid)} after the session")


def children_named(ppid, comm):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        fields = st.rsplit(")", 1)[1].split()
        if int(fields[1]) == ppid and name == comm:
            out.append(int(d))
    return out


class Server:
    """One asmspy --serve process and one client connection to it."""

    def __init__(self, sock_path=None, argv_prefix=(), env=None):
        self.lines = []  # every line received, decoded (the transcript)
        self.raw = []    # the same, as bytes
        self.buf = b""
        self.sock = None
        self.sock_path = sock_path
        cmd = list(argv_prefix) + [ASMSPY, "--serve" if not sock_path else "--serve=" + sock_path]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        _servers.append(self.proc)
        if sock_path:
            self.real_path = self._wait_listening()
            self.connect()

    def _wait_listening(self):
        line = self.proc.stderr.readline().decode()
        if "serving on " not in line:
            fail(f"--serve={self.sock_path}: no 'serving on' line: {line!r}")
        return line.split("serving on ", 1)[1].split(" ", 1)[0].strip()

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.real_path)

    def fileno(self):
        return self.sock.fileno() if self.sock else self.proc.stdout.fileno()

    def send_raw(self, data):
        if self.sock:
            self.sock.sendall(data)
        else:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, obj):
        self.send_raw((json.dumps(obj) if not isinstance(obj, (bytes, str)) else obj).encode()
                      if not isinstance(obj, bytes) else obj)
        self.send_raw(b"\n")

    def close_commands(self):
        """EOF on the command channel."""
        if self.sock:
            self.sock.shutdown(socket.SHUT_WR)
        else:
            self.proc.stdin.close()

    def _read_more(self):
        r, _, _ = select.select([self.fileno()], [], [], HANG_GUARD)
        if not r:
            fail("the server sent nothing for %ds (hung?); last lines: %s" % (HANG_GUARD, self.lines[-5:]))
        data = self.sock.recv(65536) if self.sock else os.read(self.fileno(), 65536)
        if not data:
            return False
        self.buf += data
        return True

    def read_line(self):
        """The next line as a dict, or None at EOF."""
        while b"\n" not in self.buf:
            if not self._read_more():
                if self.buf:
                    fail(f"a line without newline at EOF: {self.buf[:200]!r}")
                return None
        raw, self.buf = self.buf.split(b"\n", 1)
        try:
            obj = json.loads(raw)
        except ValueError:
            fail(f"the server sent a line that is not JSON: {raw[:200]!r}")
        self.raw.append(raw)
        self.lines.append(obj)
        return obj

    def read_until(self, pred, what, max_lines=1000000):
        for _ in range(max_lines):
            obj = self.read_line()
            if obj is None:
                fail(f"EOF while waiting for {what}; last lines: {self.lines[-5:]}")
            if pred(obj):
                return obj
        fail(f"{max_lines} lines without {what}")

    def expect_ack(self, verb):
        obj = self.read_until(lambda o: o.get("type") in ("cmd", "err"), f"the {verb} ack")
        if obj.get("type") != "cmd" or obj.get("cmd") != verb:
            fail(f"expected the ack of {verb}, got {obj}")
        return obj

    def expect_err(self, rule=None):
        obj = self.read_until(lambda o: o.get("type") in ("cmd", "err"), "an err line")
        if obj.get("type") != "err" or (rule and obj.get("rule") != rule):
            fail(f"expected err {rule}, got {obj}")
        return obj

    def wait_ended(self, session):
        return self.read_until(lambda o: o.get("type") == "session" and o.get("event") == "ended"
                               and o.get("session") == session, f"session {session} ended")

    def wait_exit(self):
        try:
            rc = self.proc.wait(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("the server did not exit")
        return rc

    def stderr_text(self):
        try:
            return self.proc.stderr.read().decode(errors="replace")
        except Exception:
            return ""


def slice_session(raw_lines, session):
    """One session's recording out of a transcript: its lines from header to
    end, control lines dropped (the protocol's slicing law)."""
    out, current, copying = [], None, False
    for raw in raw_lines:
        obj = json.loads(raw)
        t = obj.get("type")
        if t in CONTROL_TYPES:
            if t == "cmd" and obj.get("cmd") == "start":
                current = obj.get("session")
            continue
        if t == "header" and current == session:
            copying = True
        if copying:
            out.append(raw)
            if t == "end":
                break
    return out


def write_lines(path, raw_lines):
    with open(path, "wb") as f:
        for raw in raw_lines:
            f.write(raw + b"\n")


def check_recording(path, what):
    r = subprocess.run([ASMTRACE_CHECK, path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{what}: asmtrace-check: {r.stdout}{r.stderr}")
    return r.stdout


def run(argv, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, **kw)


def require_view(mode):
    r = run([ASMSPY, "--backends"], text=True)
    return any(line.split()[:2] == ["view", mode] or (mode in line.split() and "view" in line.split())
               for line in r.stdout.splitlines())
