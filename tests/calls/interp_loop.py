"""interp_loop.py: a python3 program for the call tests. Prints its pid,
waits for SIGUSR1, then spends its time in the interpreter's own C
functions (int hashing, list building) for the given number of rounds and
prints "checksum <n>". A second SIGUSR1-free phase keeps it alive for
`linger` seconds afterwards, so a test can check it runs on."""
import os
import signal
import sys
import time

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
linger = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print(os.getpid(), flush=True)
signal.sigwait({signal.SIGUSR1})
acc = 0
for r in range(rounds):
    acc += sum(hash((r, i)) & 0xFFFF for i in range(500))
    acc += len([str(i) for i in range(100)])
print("checksum", acc, flush=True)
end = time.monotonic() + linger
while time.monotonic() < end:
    acc += sum(range(1000))
print("done", flush=True)
