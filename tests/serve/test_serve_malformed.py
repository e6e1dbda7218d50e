#!/usr/bin/env python3
"""200 malformed command lines — truncated JSON, wrong types, huge strings,
binary garbage, unknown commands / modes / parameters, commands out of
place — each yields exactly one err line (carrying its line number) and the
server keeps serving: a valid start afterwards works, through the pipe and
through the socket."""
import json
import os
import random

from serve_lib import TMP, Server, assert_runs, cleanup, fail, ok, start_victim

_, pid, _ = start_victim("victim_loop")
rng = random.Random(20261202)  # deterministic garbage


def malformed_lines():
    good = [
        {"cmd": "start", "mode": "log", "pid": pid, "max": 3},
        {"cmd": "start", "mode": "trace", "pid": pid, "region": "work", "max": 1},
        {"cmd": "stop"},
        {"cmd": "quit"},
    ]
    out = []
    # truncated JSON: every proper prefix of real commands that is not JSON
    for g in good:
        s = json.dumps(g).encode()
        for cut in range(1, len(s), 3):
            out.append(s[:cut])
    out = out[:60]
    # wrong types
    wrong = [
        {"cmd": 3}, {"cmd": None}, {"cmd": ["start"]}, {"cmd": {"x": 1}}, {"cmd": True},
        {"cmd": "start", "mode": 7, "pid": pid}, {"cmd": "start", "mode": None, "pid": pid},
        {"cmd": "start", "mode": "log", "pid": str(pid)}, {"cmd": "start", "mode": "log", "pid": -1},
        {"cmd": "start", "mode": "log", "pid": 0}, {"cmd": "start", "mode": "log", "pid": 1.5},
        {"cmd": "start", "mode": "log", "pid": 2 ** 40}, {"cmd": "start", "mode": "log", "pid": [pid]},
        {"cmd": "start", "mode": "log", "pid": pid, "max": "5"},
        {"cmd": "start", "mode": "log", "pid": pid, "max": 0},
        {"cmd": "start", "mode": "log", "pid": pid, "max": 2.5},
        {"cmd": "start", "mode": "log", "pid": pid, "tid": "1"},
        {"cmd": "start", "mode": "log", "pid": pid, "tid": -3},
        {"cmd": "start", "mode": "log", "pid": pid, "follow": [1]},
        {"cmd": "start", "mode": "trace", "pid": pid, "region": 12},
        {"cmd": "start", "mode": "trace", "pid": pid, "region": ""},
        {"cmd": "start", "mode": "trace", "pid": pid, "region": "-x"},
        {"cmd": "start", "mode": "log", "launch": "ls"},
        {"cmd": "start", "mode": "log", "launch": []},
        {"cmd": "start", "mode": "log", "launch": [1, 2]},
        {"cmd": "start", "mode": "log", "pid": pid, "launch": ["/bin/true"]},
        {"cmd": "start", "mode": "log", "pid": pid, "depth": None},
        {"cmd": "start", "mode": "log", "pid": pid, "depth": {"a": 1}},
        {"cmd": "start", "mode": "log", "pid": pid, "json": True},
        {"cmd": "stop", "now": True}, {"cmd": "quit", "force": 1}, {"cmd": "pause", "x": None},
        {"cmd": "start", "mode": "log", "pid": pid, "id": [1]},
        {"cmd": "start", "mode": "log", "pid": pid, "id": {"a": 1}},
        {"cmd": "start", "mode": "log", "pid": pid, "id": 1.25},
    ]
    out += [json.dumps(w).encode() for w in wrong]
    # unknown commands, modes, parameters; a missing target; out-of-place verbs
    out += [json.dumps(x).encode() for x in [
        {"cmd": "launch"}, {"cmd": "START"}, {"cmd": ""}, {"cmd": "start\u0000"},
        {"cmd": "start", "mode": "nosuchmode", "pid": pid},
        {"cmd": "start", "mode": "Log", "pid": pid},
        {"cmd": "start", "mode": "log", "pid": pid, "depth": 3},        # log has no --depth
        {"cmd": "start", "mode": "trace", "pid": pid},                  # no region
        {"cmd": "start", "mode": "trace", "pid": pid, "region": "no_such_function_x", "x": 1},
        {"cmd": "start", "mode": "log", "pid": pid, "backend": "nosuchbackend"},
        {"cmd": "start", "mode": "log", "pid": pid, "tid": 5, "follow": True},
        {"cmd": "start", "mode": "log", "pid": 2147483646, "max": 1},   # no such process
        {"cmd": "start", "mode": "log", "pid": pid, "Bad Name": 1},
        {"cmd": "pause"}, {"cmd": "resume"}, {"cmd": "stop"},           # no session
        {"mode": "log", "pid": pid},                                     # no cmd
    ]]
    # not objects, duplicate keys, trailing garbage
    out += [b"[]", b"null", b"42", b'"start"', b"true", b'{"cmd":"stop"} x',
            b'{"cmd":"stop","cmd":"stop"}', b'{"cmd":"stop",}', b"{'cmd':'stop'}",
            b'{"cmd":"stop"}{"cmd":"stop"}', b"", b"   ", b"\t", b"\r"]
    # huge strings: a value over the parameter cap, and lines over the command cap
    out.append(json.dumps({"cmd": "start", "mode": "log", "pid": pid, "focus": "A" * 60000}).encode())
    out.append(b'{"cmd":"' + b"s" * 70000 + b'"}')
    out.append(b"x" * 200000)
    out.append(json.dumps({"cmd": "start", "mode": "log", "pid": pid, "focus": "\u00e9" * 3000}).encode())
    # binary garbage (no newline inside a line)
    while len(out) < 200:
        n = rng.randint(1, 300)
        b = bytes(rng.choice([rng.randrange(256), 0, 0xff, 0x7b, 0x22]) for _ in range(n))
        b = b.replace(b"\n", b"")
        if b:
            out.append(b)
    return out[:200]


def drive(srv, where):
    lines = malformed_lines()
    if len(lines) != 200:
        fail(f"built {len(lines)} malformed lines")
    for raw in lines:
        srv.send_raw(raw + b"\n")
    errs = [srv.expect_err() for _ in lines]
    for i, e in enumerate(errs, 1):
        if e.get("line") != i:
            fail(f"{where}: err #{i} names line {e.get('line')}: {e}")
    rules = {}
    for e in errs:
        rules[e["rule"]] = rules.get(e["rule"], 0) + 1
    if any(o.get("type") in ("cmd", "header") for o in srv.lines):
        fail(f"{where}: a malformed line was acted upon: {[o for o in srv.lines if o.get('type') in ('cmd', 'header')][:3]}")
    # the server survived: a real session still works
    srv.send({"cmd": "start", "mode": "log", "pid": pid, "max": 2})
    s = srv.expect_ack("start")["session"]
    if srv.wait_ended(s).get("events") != 2:
        fail(f"{where}: the session after the garbage did not run")
    srv.send({"cmd": "quit"})
    srv.expect_ack("quit")
    if srv.wait_exit() != 0:
        fail(f"{where}: the server did not exit 0")
    assert_runs(pid, where)
    ok(f"{where}: 200 malformed lines -> 200 err lines with their line numbers "
       f"({', '.join(f'{k}={v}' for k, v in sorted(rules.items()))}); a start afterwards ran")


drive(Server(), "pipe")
d = os.path.join(TMP, "sock")
os.mkdir(d, 0o700)
drive(Server(sock_path=os.path.join(d, "m.sock")), "socket")
cleanup()
