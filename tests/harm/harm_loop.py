# harm_loop.py: python3's fixed loop for harm.sh (traced with
# --module=libpython3 where python3 maps it). Rounds forever; harm.h's
# protocol: `<pid> ready reference=X`, `round N OK|CORRUPT ...`.
import os
import sys


def round_work():
    s = 0
    d = {}
    for i in range(20000):
        s = (s * 31 + i * i) % 1000000007
        d[str(i % 500)] = s
    return s + sum(d.values()) % 1000003 + len(repr(sorted(d)[:50]))


out = open(os.environ["HARM_OUT"], "w") if os.environ.get("HARM_OUT") else sys.stdout
want = round_work()
print(os.getpid(), "ready reference=%d" % want, file=out, flush=True)
r = 1
while True:
    got = round_work()
    if got == want:
        print("round %d OK" % r, file=out, flush=True)
    else:
        print("round %d CORRUPT checksum: got %d want %d" % (r, got, want), file=out, flush=True)
    r += 1
