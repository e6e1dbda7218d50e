"""interp_loop.py: a python3 program for the call tests. Prints its pid,
waits for SIGUSR1, then spends its time in the interpreter's own C
functions (int hashing, list building) for the given number of rounds and
prints "checksum <n>". Then, with linger "sig", it waits for a second
SIGUSR1 (the test checks it meanwhile), runs the same work once more and
prints "done": it ran on. A number lingers that many seconds instead."""
import os
import signal
import sys
import time

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
linger = sys.argv[2] if len(sys.argv) > 2 else "0"
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print(os.getpid(), flush=True)
signal.sigwait({signal.SIGUSR1})
acc = 0
for r in range(rounds):
    acc += sum(hash((r, i)) & 0xFFFF for i in range(500))
    acc += len([str(i) for i in range(100)])
print("checksum", acc, flush=True)
if linger == "sig":
    signal.sigwait({signal.SIGUSR1})
    for r in range(rounds):
        acc += sum(hash((r, i)) & 0xFFFF for i in range(500))
else:
    end = time.monotonic() + float(linger)
    while time.monotonic() < end:
        acc += sum(range(1000))
print("done", flush=True)
