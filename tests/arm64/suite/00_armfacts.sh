# The emulated CPU and kernel as a ptrace tracer sees them (armfacts.c):
# register set, single-step, brk, hardware watchpoints. Independent of
# asmspy, so it also proves the machine and the payload pipeline.
. ./lib.sh
bin=$ASMSPY_PAYLOAD/bin/armfacts
if [ ! -x "$bin" ]; then skip armfacts "no bin/armfacts in the payload"; exit 0; fi
"$bin"
