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
        # real programs: dates in ls's listing, inode/size values that move
        ln = re.sub(r'[A-Z][a-z]{2} [ \d]\d (\d\d:\d\d| \d{4})', 'DATE', ln)
        if loose:
            ln = re.sub(r'\)\s+= ', ') = ', ln)
        out.append(ln)
    return out


SCRIPTS = {'pynet'}  # progs/<name>.py, run by this interpreter with -S

# Real programs (issue 26 D): name -> (argv, follow). Both sides write the
# trace to a file (strace -o, asmspy --output=) so the program's own stdout
# stays out of it. Run when their binary is installed; by name only when
# marked opt-in (nondeterministic or slow: not in the default run).
REAL = {
    'ls': (['ls', '-la', '/'], False),
    'shpipe': (['sh', '-c', 'cat /etc/hostname | wc -c'], True),
    'python': ([sys.executable, '-c', 'print(1)'], False),
    'sqlite': (['sqlite3', ':memory:', 'create table t(a); insert into t values(1); select * from t;'],
               False),
    'node': (['node', '-e', '0'], True),
}
REAL_OPT_IN = {'node'}  # threads: its line order differs run to run


def per_task(lines):
    """Real programs under -f: their processes run concurrently, so the
    interleaving (and which calls strace splits) differs run to run. Join each
    task's `<unfinished ...>` / `<... resumed>` halves into one line and list
    the tasks one after another (the launched one, then by content): what is
    compared is each task's own sequence of calls. asmspy leaves the launched
    process's lines unprefixed while it is alone: it is the task no fork or
    clone of the log returned."""
    rows = []
    for ln in lines:
        m = re.match(r'^(?:(\d+) +|\[pid\s+(\d+)\] )?(.*)$', ln.rstrip('\n'))
        rows.append((m.group(1) or m.group(2), m.group(3)))
    # the launched process: the task no fork/clone of this log created (the
    # lowest pid is not always it: pids wrap around at pid_max)
    nums = [int(p) for p, _ in rows if p]
    born = {int(c.group(1)) for _, b in rows
            for c in [re.match(r'^(?:<\.\.\. )?(?:v?fork|clone3?)\b.*= (\d+)$', b)] if c}
    roots = [n for n in nums if n not in born]
    main = str(min(roots or nums)) if nums else 'main'
    order, by, pend = [], {}, {}
    for pid, body in rows:
        pid = pid or main
        if pid not in by:
            order.append(pid)
            by[pid] = []
        if body.endswith(' <unfinished ...>'):
            pend[pid] = body[:-len(' <unfinished ...>')]
            continue
        r = re.match(r'^<\.\.\. \w+ resumed>(.*)$', body)
        if r and pid in pend:
            head, rest = pend.pop(pid), r.group(1)
            sep = '' if head.endswith(('(', ', ')) or rest.startswith(')') else ', '
            body = head + sep + rest
        by[pid].append(body)
    # the launched process first, its children by the program they exec'd,
    # then by what they did (which one ran first is the scheduler's choice).
    # The exec comes first in the key: the calls before it (a few dup2/close
    # of a forked sh child) may come out in another order run to run, and a
    # sort on them alone paired cat's sequence with wc's (shpipe, 63%).
    # Blanks are squeezed for the key: strace pads a whole line and a joined
    # `<unfinished>`/`<resumed>` pair differently.
    def key(p):
        calls = [re.sub(r'\s+', ' ', b) for b in by[p]]
        execs = [b for b in calls if b.startswith('execve(')]
        return (execs[0] if execs else '', calls)
    order = [order[0]] + sorted(order[1:], key=key) if order else order
    return [ln for pid in order for ln in by[pid]]


def run(prog_path, name, asmspy, extra, tmp):
    st_out = os.path.join(tmp, name + '.strace')
    if name in REAL:
        argv, follow = REAL[name]
        as_out = os.path.join(tmp, name + '.asmspy')
        f = ['-f'] if follow else []
        subprocess.run(['strace'] + f + ['-o', st_out] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60, check=False)
        fo = ['--follow'] if follow else []
        subprocess.run([asmspy, '--launch', 'log', '-1'] + fo + extra + ['--output=' + as_out, '--']
                       + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
                       check=False)
        with open(st_out) as fh, open(as_out) as fa:
            st, ours = fh.readlines(), fa.read().splitlines()
        if follow:
            return per_task(st), per_task(ours)
        return st, ours
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
    names = [a for a in args if not a.startswith('--')] or (
        PROGS + [r for r in REAL if r not in REAL_OPT_IN and shutil.which(REAL[r][0][0])])
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
            fol = name in FOLLOW or (name in REAL and REAL[name][1])
            a, b = mask(st, loose, fol), mask(ours, loose, fol)
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
