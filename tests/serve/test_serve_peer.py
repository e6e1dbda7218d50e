#!/usr/bin/env python3
"""--serve=<socket> and foreign uids (privileges are dropped with setpriv):
  - by default a foreign uid cannot even reach the socket (0600: connect()
    fails with EACCES);
  - even when the socket's permissions are loosened, a peer whose
    SO_PEERCRED uid differs from the server's gets an err line and is
    disconnected; no session can be started;
  - the same from the other side: a server running as nobody refuses root."""
import json
import os
import shutil
import subprocess
import tempfile

from serve_lib import ASMSPY, Server, cleanup, fail, ok, skip

NOBODY = 65534
SETPRIV = shutil.which("setpriv")
PY = "/usr/bin/python3"  # a python the dropped uid can execute
if os.geteuid() != 0:
    skip("needs root to drop privileges to nobody")
if not SETPRIV or not os.access(PY, os.X_OK):
    skip("needs setpriv and /usr/bin/python3")

as_nobody = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]

# A client that connects, sends one start, and prints what it got, or the
# connect error. Runs as nobody.
CLIENT = r"""
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(json.dumps({"connect_error": e.errno}))
    sys.exit(0)
try:
    s.sendall(b'{"cmd":"start","mode":"log","pid":1,"max":1}\n')
except OSError:
    pass
data = b""
while True:
    try:
        c = s.recv(4096)
    except ConnectionResetError:  # the server closed with our start unread
        break
    if not c:
        break
    data += c
print(json.dumps({"received": data.decode(errors="replace")}))
"""


def nobody_client(path):
    r = subprocess.run(as_nobody + [PY, "-c", CLIENT, path], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail(f"the nobody client failed: {r.stderr}")
    return json.loads(r.stdout)


def expect_peer_refusal(received, who):
    lines = [json.loads(l) for l in received.splitlines() if l.strip()]
    if len(lines) != 1 or lines[0].get("type") != "err" or lines[0].get("rule") != "peer-uid":
        fail(f"{who}: expected exactly one err peer-uid line then a disconnect, got {received!r}")
    return lines[0]["error"]


# --- root server, nobody client ----------------------------------------------------
base = tempfile.mkdtemp(prefix="asmspy-peer-")
try:
    path = os.path.join(base, "s.sock")
    srv = Server(sock_path=path)
    got = nobody_client(path)
    if got.get("connect_error") != 13:
        fail(f"nobody reached a 0600 socket in a private directory: {got}")
    ok("default permissions: nobody's connect() is refused by the kernel (EACCES)")

    os.chmod(base, 0o711)  # loosened by someone: the uid check still holds
    os.chmod(path, 0o666)
    got = nobody_client(path)
    msg = expect_peer_refusal(got.get("received", ""), "root server, nobody client")
    ok("permissions loosened: SO_PEERCRED refusal: " + msg)

    # the server is unharmed and still serves its own uid
    srv.send({"cmd": "quit"})
    srv.expect_ack("quit")
    if srv.wait_exit() != 0:
        fail("the server did not survive the foreign client")
    ok("the server still served its own uid afterwards")
finally:
    shutil.rmtree(base, ignore_errors=True)

# --- nobody server, root client ------------------------------------------------------
base = tempfile.mkdtemp(prefix="asmspy-peer-")
try:
    os.chown(base, NOBODY, NOBODY)
    path = os.path.join(base, "s.sock")
    srv = Server(sock_path=path, argv_prefix=as_nobody)
    st = os.lstat(path)
    if st.st_uid != NOBODY or (st.st_mode & 0o777) != 0o600:
        fail(f"nobody's socket: uid {st.st_uid} mode {oct(st.st_mode)}")
    # root passes the file permissions (CAP_DAC_OVERRIDE), not the uid check
    data = b""
    while True:
        line = srv.read_line()
        if line is None:
            break
        data += json.dumps(line).encode() + b"\n"
    msg = expect_peer_refusal(data.decode(), "nobody server, root client")
    ok("a server running as nobody refuses a root peer: " + msg)
    srv.sock.close()
    srv.proc.terminate()
    srv.wait_exit()
finally:
    shutil.rmtree(base, ignore_errors=True)
cleanup()
