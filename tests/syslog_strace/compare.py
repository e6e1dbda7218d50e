#!/usr/bin/env python3
"""strace comparison of `asmspy --launch log -1 --strace`: each program of
progs/ runs under strace (-o, -f) and under asmspy, both outputs are masked
(addresses, pids, times), and the lines are compared; the share of strace's
lines asmspy prints identically is reported per program and in total.

usage: compare.py [--loose] [--show] [--asmspy-args="..."] [prog ...]

Environment: ASMSPY (the binary), STRACE_PROGS_DIR (the built programs),
SRC (this directory, for expected_differences.txt). Exit 1 when a program's
share falls below its floor in expected_differences.txt (a regression) or
strace is missing (exit 77: skipped). --loose also folds strace's column-40
alignment (to measure the house style); --show prints the differing lines.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROGS = ['files', 'fds', 'memory', 'process', 'time', 'signals', 'sockets', 'net', 'misc',
         'fileinfo', 'fdctl', 'ioctls', 'sigs', 'procinfo', 'pynet']
FOLLOW = {'process', 'procinfo'}  # forks: strace -f, asmspy --follow
PID_CALLS = ('getpid', 'gettid', 'getppid', 'fork', 'vfork', 'clone', 'clone3', 'wait4',
             'set_tid_address', 'getpgrp', 'setsid', 'getsid', 'getpgid')


def mask(lines, loose, follow=False):
    out = []
    launched = False
    for ln in lines:
        ln = ln.rstrip('\n')
        if not ln or ln.startswith('#'):
            continue
        if follow:
            # strace -f -o prefixes every line with the pid, asmspy only a
            # child's: compare without the prefix (and so without the
            # column-40 alignment the prefix shifts)
            ln = re.sub(r'^(\d+ +|\[pid\s+\d+\] )', '', ln)
            loose = True
        ln = re.sub(r'^\[pid\s+\d+\] ', '[pid P] ', ln)
        body = ln[len('[pid P] '):] if ln.startswith('[pid P] ') else ln
        if body.startswith('execve(') and not launched:  # the launch: asmspy sees only its exit
            launched = True
            continue
        if body.startswith('+++ ') or body.startswith('--- '):
            pass
        ln = re.sub(r'0x[0-9a-f]{6,}', 'ADDR', ln)
        ln = re.sub(r'\b(tv_sec|tv_nsec|tv_usec)=\d+', r'\1=N', ln)
        ln = re.sub(r'(si_pid|si_uid|si_status|si_utime|si_stime)=\d+', r'\1=N', ln)
        ln = re.sub(r'getrandom\("[^"]*"', 'getrandom("R"', ln)
        ln = re.sub(r'\bkill\(\d+,', 'kill(P,', ln)
        ln = re.sub(r'\btgkill\(\d+, \d+,', 'tgkill(P, P,', ln)
        # ephemeral ports (the kernel's choice for port 0) and the clock
        ln = re.sub(r'htons\((3[2-9]\d{3}|[4-6]\d{4})\)', 'htons(PORT)', ln)
        ln = re.sub(r'\b\d{9,} /\* [-\dT:+]+ \*/', 'T', ln)
        ln = re.sub(r'= \d+ \([-\dT:+]+\)$', '= T', ln)
        ln = re.sub(r'^(times\(.*\))(\s*)= \d+$', r'\1\2= T', ln)
        ln = re.sub(r'\b(tms_[a-z]+|tv_sec|tv_usec|tv_nsec)=\d+', r'\1=N', ln)
        ln = re.sub(r'\b(tkill|rt_sigqueueinfo|rt_tgsigqueueinfo)\(\d+,', r'\1(P,', ln)
        ln = re.sub(r'\bwaitid\((P_PID|P_PGID|P_PIDFD), \d+,', r'waitid(\1, P,', ln)
        # values that change run to run: system load and memory, pty numbers
        ln = re.sub(r'\b(uptime|freeram|sharedram|bufferram|freeswap|procs|ru_maxrss|ru_minflt|ru_majflt|ru_nvcsw|ru_nivcsw)=\d+', r'\1=N', ln)
        ln = re.sub(r'\bloads=\[\d+, \d+, \d+\]', 'loads=[N]', ln)
        ln = re.sub(r'/dev/pts/\d+', '/dev/pts/N', ln)
        ln = re.sub(r'TIOCGPTN, \[\d+\]', 'TIOCGPTN, [N]', ln)
        name = re.match(r'^(?:\[pid P\] )?(?:<\.\.\. )?(\w+)(?:\(| resumed>)', ln)
        if name and name.group(1) in PID_CALLS:
            ln = re.sub(r'= \d+$', '= PID', ln)
            ln = re.sub(r'wait4\(\d+', 'wait4(PID', ln)
        if loose:
            ln = re.sub(r'\)\s+= ', ') = ', ln)
        out.append(ln)
    return out


SCRIPTS = {'pynet'}  # progs/<name>.py, run by this interpreter with -S


def run(prog_path, name, asmspy, extra, tmp):
    st_out = os.path.join(tmp, name + '.strace')
    if name in SCRIPTS:
        src = os.environ.get('SRC', os.path.dirname(os.path.abspath(__file__)))
        prog_path = [sys.executable, '-S', os.path.join(src, 'progs', name + '.py')]
    else:
        prog_path = [prog_path]
    f = ['-f'] if name in FOLLOW else []
    subprocess.run(['strace'] + f + ['-o', st_out] + prog_path, stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL, timeout=20, check=False)
    fo = ['--follow'] if name in FOLLOW else []
    r = subprocess.run([asmspy, '--launch', 'log', '-1'] + fo + extra + ['--'] + prog_path,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20,
                       check=False, text=True)
    with open(st_out) as fh:
        return fh.readlines(), r.stdout.splitlines()


def main():
    args = sys.argv[1:]
    loose = '--loose' in args
    show = '--show' in args
    extra = ['--strace']
    for a in args:
        if a.startswith('--asmspy-args='):
            extra = a.split('=', 1)[1].split()
    names = [a for a in args if not a.startswith('--')] or PROGS
    if not shutil.which('strace'):
        print('strace not installed: skipped')
        return 77
    asmspy = os.environ.get('ASMSPY', 'asmspy')
    pdir = os.environ.get('STRACE_PROGS_DIR', '.')
    src = os.environ.get('SRC', os.path.dirname(os.path.abspath(__file__)))
    floors = {}
    with open(os.path.join(src, 'expected_differences.txt')) as fh:
        for ln in fh:
            p = ln.split('#', 1)[0].split()
            if len(p) >= 2:
                floors[p[0]] = float(p[1])
    tot_same = tot = 0
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            st, ours = run(os.path.join(pdir, 'strace_' + name), name, asmspy, extra, tmp)
            a, b = mask(st, loose, name in FOLLOW), mask(ours, loose, name in FOLLOW)
            sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
            same = sum(blk.size for blk in sm.get_matching_blocks())
            pct = 100.0 * same / max(len(a), 1)
            tot_same += same
            tot += len(a)
            floor = floors.get(name)
            verdict = ''
            if floor is not None and pct + 1e-9 < floor:
                verdict = '  BELOW FLOOR %.0f%%' % floor
                bad.append(name)
            elif floor is not None and pct >= floor + 5:
                verdict = '  (above the floor %.0f%%: raise it in expected_differences.txt)' % floor
            print('%-8s %3d/%3d lines identical (%5.1f%%)%s' % (name, same, len(a), pct, verdict))
            if show or verdict.startswith('  BELOW'):
                for line in difflib.unified_diff(a, b, 'strace', 'asmspy', lineterm='', n=0):
                    print('    ' + line)
    print('total    %3d/%3d lines identical (%5.1f%%)' % (tot_same, tot, 100.0 * tot_same / max(tot, 1)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
