#!/usr/bin/python3
"""serve_client.py ASMSPY PID TRANSCRIPT RECORDING [MIN_EVENTS] [READ_S]

The survival matrix's --serve cell: one `asmspy --serve` (stdio) host, one
client that starts a stream session on PID with no count
({"cmd":"start","mode":"stream","pid":PID,"max":-1}), reads until it has
MIN_EVENTS (default 200) recording events or READ_S seconds (default 3)
have passed, sends {"cmd":"stop"}, reads until the session's `ended` line,
then sends {"cmd":"quit"} and waits for the host to exit.

Writes every line received to TRANSCRIPT and the session's recording
lines (header to end footer, control lines dropped: the protocol's slicing
law) to RECORDING. Prints one summary line:
  serve: events=<n> stop_acked=<0|1> ended=<the ended line or none> exit=<host status>
Exit status: 0 the exchange completed; 3 no `ended` line within 20 s of the
stop (a hang); 4 the host did not exit within 10 s of quit (a hang); 5 the
host refused a command (an `err` line) or closed the channel early. The
time bounds only catch a hang; nothing is measured."""
import json
import os
import select
import subprocess
import sys
import time


def main():
    asmspy, pid, transcript, recording = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    min_events = int(sys.argv[5]) if len(sys.argv) > 5 else 200
    read_s = float(sys.argv[6]) if len(sys.argv) > 6 else 3.0
    host = subprocess.Popen([asmspy, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    buf = b""
    lines = []
    rec = []
    events = 0
    ended = None
    stop_acked = False
    errs = []
    eof = False

    def send(obj):
        try:
            host.stdin.write((json.dumps(obj) + "\n").encode())
            host.stdin.flush()
        except BrokenPipeError:
            pass

    def pump(deadline, until):
        """Read lines until until() is true, EOF, or the deadline."""
        nonlocal buf, events, ended, stop_acked, eof
        while not until() and not eof:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([host.stdout], [], [], min(left, 0.2))
            if not r:
                continue
            chunk = os.read(host.stdout.fileno(), 65536)
            if not chunk:
                eof = True
                break
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                lines.append(raw)
                try:
                    obj = json.loads(raw)
                except ValueError:
                    errs.append("not JSON: " + raw[:200].decode(errors="replace"))
                    continue
                t = obj.get("type")
                if t in ("cmd", "err", "session"):
                    if t == "err":
                        errs.append(raw.decode(errors="replace"))
                    if t == "cmd" and obj.get("cmd") == "stop":
                        stop_acked = True
                    if t == "session" and obj.get("event") == "ended":
                        ended = raw.decode(errors="replace")
                    continue
                rec.append(raw)
                if "seq" in obj:
                    events += 1
        return until()

    status = 0
    send({"cmd": "start", "mode": "stream", "pid": pid, "max": -1, "id": 1})
    pump(time.monotonic() + read_s, lambda: events >= min_events or ended is not None or errs)
    if ended is None and not errs:
        send({"cmd": "stop", "id": 2})
        if not pump(time.monotonic() + 20, lambda: ended is not None):
            status = 3 if not eof else 5
    send({"cmd": "quit", "id": 3})
    try:
        host.stdin.close()
    except BrokenPipeError:
        pass
    pump(time.monotonic() + 10, lambda: False)
    try:
        code = host.wait(timeout=10)
    except subprocess.TimeoutExpired:
        host.kill()
        code = host.wait()
        status = status or 4
    if errs and not status:
        status = 5
    with open(transcript, "wb") as f:
        f.write(b"".join(l + b"\n" for l in lines))
    with open(recording, "wb") as f:
        f.write(b"".join(l + b"\n" for l in rec))
    print(f"serve: events={events} stop_acked={int(stop_acked)} ended={ended or 'none'} exit={code}"
          + (f" errors={errs[:3]}" if errs else ""))
    sys.exit(status)


if __name__ == "__main__":
    main()
