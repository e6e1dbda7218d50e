#!/usr/bin/env python3
"""The calls oracle: asmspy's call log against uftrace's, program by program.

For each program of the corpus (progs/, built -O0 and -O2 by meson.build):

  uftrace record -P . <prog>        uftrace's own dynamic patching
  uftrace replay -f tid             the oracle's call log
  asmspy --launch calls -1 --json --follow -- <prog>
  (--singlestep: asmspy --launch tree -1 --json --backend=singlestep too)

both logs are normalised (see normalise() and docs/calls_oracle.md) to a
per-thread list of (depth, function) entries and compared. The verdict of a
run is one of

  equal     the normalised lists are the same, names included
  names     the same calls, but the names as printed differ (C++ parameter
            lists, template arguments, clone suffixes): only the spelling
  differs   the calls differ (a unified diff of the first differences)
  error     a tool failed (timeout, crash, no output)

and is judged against expected_differences.txt: a run listed there must still
differ the way it says (else "now equal: remove from expected_differences.txt"),
a run not listed must be equal. Exit 0 pass, 1 fail, 77 skip (meson).

Environment: ASMSPY (the CLI), ORACLE_DIR (the built programs), ORACLE_SRC
(this directory); ORACLE_FULL=1 runs every program, both flavours (default: a
small subset); ORACLE_SINGLESTEP=1 adds the singlestep runs (slow).
Options: --full, --singlestep, --only=a,b (program names, with or without
-O0/-O2), --backend=entrypatch|singlestep (only those runs), --report=<file.json> (every verdict and diff), --no-gate (print the
verdicts, exit 0), -v (print every diff in full).
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("ORACLE_SRC", HERE)
EXPECTED = os.path.join(SRC, "expected_differences.txt")

C_PROGS = ["fib", "ackermann", "mutual", "funcptr", "qsort_cb", "static_fn",
           "tailcall", "prologue_call", "leaves", "varargs", "signal", "threads",
           "pthread_exit", "exit_nested", "exit_raw", "longjmp", "ucontext", "fork",
           "vfork_exec", "exec", "daemon", "atexit_dtor", "noplt"]
CXX_PROGS = ["cxx_exceptions", "cxx_names", "cxx_virtual", "cxx_static_init",
             "cxx_lambda", "cxx_stl"]
FLAVOURS = ["O0", "O2"]
# the default (CI) subset: one of each family, both flavours (~15 s)
DEFAULT_PROGS = ["fib", "funcptr", "prologue_call", "threads", "longjmp",
                 "exit_nested", "fork", "cxx_names", "cxx_exceptions"]
# the singlestep subset (each run steps every instruction from ld.so on:
# seconds each, printf alone is ~100k steps)
SINGLESTEP_PROGS = ["prologue_call", "signal", "exit_raw", "pthread_exit", "longjmp",
                    "ucontext", "vfork_exec", "noplt", "cxx_exceptions"]

TIMEOUT = 60          # per tool run, seconds
DIFF_LINES = 40       # lines of a unified diff printed per differing run

# Functions of the program that are not the program's source: the C runtime's
# start-up and tear-down glue. Neither tool is judged on them.
CRT_GLUE = {"_start", "_init", "_fini", "frame_dummy", "register_tm_clones",
            "deregister_tm_clones", "__do_global_dtors_aux", "__libc_csu_init",
            "__libc_csu_fini", "_dl_relocate_static_pie", "__libc_start_main",
            "__gmon_start__", "_ITM_registerTMCloneTable",
            "_ITM_deregisterTMCloneTable"}
# PLT calls uftrace never records by design (libmcount/plthook.c skip_syms):
# dropped from both sides, so they are not a difference.
UFTRACE_SKIPS = {"_mcleanup", "__libc_start_main", "__cxa_throw", "__cxa_rethrow",
                 "__cxa_begin_catch", "__cxa_end_catch", "__cxa_finalize",
                 "__gxx_personality_v0", "_Unwind_Resume", "mcount", "_mcount",
                 "__fentry__", "__gnu_mcount_nc"}


# ---------------------------------------------------------------- names

CLONE_RE = re.compile(r"(\.(constprop|isra|part|cold|lto_priv|localalias)(\.\d+)?)+$")
OPERATOR_RE = re.compile(r"operator\s*(\(\)|\[\]|<<=|>>=|<=>|->\*|->|<<|>>|<=|>=|<|>|new\[\]|"
                         r"delete\[\]|new|delete|[-+*/%^&|~!=,]+)")


def plain_name(name):
    """The name with what the call site adds taken off: `@plt` (`@got`: a
    -fno-plt call through the GOT slot, traced there), a version."""
    name = name.strip()
    name = re.sub(r"@(plt|got)$", "", name)
    name = re.sub(r"@@?[A-Za-z_][\w.]*$", "", name)
    return name


def spell_name(name):
    """The name as the names check compares it: plain_name(), and the two
    spellings uftrace cannot print taken off both sides: a lambda's type
    (`{lambda(int)#1}` / uftrace's `$_0`) and `operator()` (uftrace prints
    `operator`, then its own `()`)."""
    name = plain_name(name)
    name = re.sub(r"\{lambda\([^{}]*\)#\d+\}", "{lambda}", name)
    name = re.sub(r"\$_\d+", "{lambda}", name)
    name = re.sub(r"::operator\(\)(?=\(|$)", "::operator", name)
    return name


def norm_name(name):
    """A function name as uftrace's simple demangler prints it: no return
    type, no template arguments, no parameters or qualifiers, no clone
    suffix; lambdas as `{lambda}`."""
    name = plain_name(name)
    name = re.sub(r"( \[clone [^\]]*\])+", "", name)
    name = CLONE_RE.sub("", name)
    name = re.sub(r"\{lambda\([^{}]*\)#\d+\}", "{lambda}", name)
    name = re.sub(r"\$_\d+", "{lambda}", name)
    ops = []

    def keep_op(m):
        ops.append(m.group(0))
        return "\x01%d\x01" % (len(ops) - 1)
    name = OPERATOR_RE.sub(keep_op, name)
    name = name.replace("(anonymous namespace)", "\x02")
    prev = None
    while prev != name:  # template arguments, innermost first
        prev = name
        name = re.sub(r"<[^<>]*>", "", name)
    i = name.find("(")  # the parameter list and what follows it
    if i > 0:
        name = name[:i]
    name = name.strip()
    if " " in name:  # a return type before the name
        name = name.rsplit(" ", 1)[1]
    name = name.replace("\x02", "(anonymous namespace)")
    name = re.sub(r"\x01(\d+)\x01", lambda m: ops[int(m.group(1))], name)
    name = re.sub(r"operator\s*\(\)$", "operator", name)  # uftrace: `operator`
    return name


# ---------------------------------------------------------------- programs

def run(cmd, timeout=TIMEOUT, **kw):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, **kw)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        err = (e.stderr or b"").decode(errors="replace")
        return None, out, err + "\n(timed out after %d s)" % timeout


def program_names(path):
    """The program's own functions and the functions it imports, normalised."""
    own, imports = set(), set()
    _, out, _ = run(["nm", "--defined-only", path])
    _, outc, _ = run(["nm", "-C", "--defined-only", path])
    for text in (out, outc):
        for line in text.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "TtWwi":
                own.add(norm_name(parts[2]))
    for flags in (["-D"], ["-D", "-C"]):
        _, out, _ = run(["nm"] + flags + ["--undefined-only", path])
        for line in out.splitlines():
            imports.add(norm_name(line.split()[-1]))
    return own - CRT_GLUE, imports - CRT_GLUE


# ---------------------------------------------------------------- parsing

def parse_uftrace(text):
    """uftrace replay -f tid -> [(tid, kind, depth, name)]."""
    ev = []
    line_re = re.compile(r"^\s*\[\s*(\d+)\]\s*\|( *)(.*)$")
    for line in text.splitlines():
        m = line_re.match(line)
        if not m:
            continue
        tid, indent, body = int(m.group(1)), len(m.group(2)) - 1, m.group(3).rstrip()
        depth = indent // 2
        if body.startswith("/*"):
            continue  # an event (linux:sched-out ...)
        if body.startswith("}"):
            ev.append((tid, "exit", depth, ""))
        elif body.endswith("() {"):
            ev.append((tid, "entry", depth, body[:-4]))
        elif body.endswith("();"):
            ev.append((tid, "leaf", depth, body[:-3]))
        elif body.endswith("{"):
            ev.append((tid, "entry", depth, body[:-1].rstrip()))
        elif body.endswith(";"):
            ev.append((tid, "leaf", depth, body[:-1].rstrip()))
    return ev


def parse_asmspy_calls(text):
    """asmspy --calls --json -> events, notes."""
    ev, notes = [], []
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "call_log":
            ev.append((r["tid"], r["what"], r["depth"], r.get("name") or r.get("addr") or "?"))
        elif r.get("type") == "note":
            notes.append(r.get("text", ""))
    return ev, notes


def parse_asmspy_tree(text, module):
    """asmspy --tree --json (singlestep): call records only (no exits); the
    depth says the nesting. Only calls into the program's module (its own
    functions and its PLT stubs) and calls made from the program's code
    (into libc through the GOT) are kept here."""
    ev, notes = [], []
    parents = {}  # tid -> [(depth, module)]: the enclosing calls
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "call":
            d = r.get("depth", 0)
            name = r.get("name") or r.get("addr") or "?"
            st = parents.setdefault(r["tid"], [])
            while st and st[-1][0] >= d:
                st.pop()
            # the program's own code, or a call made directly from it (into
            # libc through the GOT: -fno-plt)
            direct = r.get("module") == module or (st and st[-1][1] == module)
            st.append((d, r.get("module")))
            ev.append((r["tid"], "call" if direct else "foreign", d, name))
        elif r.get("type") == "note":
            notes.append(r.get("text", ""))
    return ev, notes


# ---------------------------------------------------------------- normalising

def normalise(events, own, imports):
    """Per thread (renamed T1, T2, ... in order of first appearance), the
    entries (depth, normalised name, printed name) of the functions kept:
    the program's own functions and the functions it imports (called through
    its PLT/GOT), minus CRT_GLUE and UFTRACE_SKIPS. A kept entry's depth is
    its printed depth minus the dropped frames above it."""
    keep = (own | imports) - CRT_GLUE - UFTRACE_SKIPS
    threads, order = {}, []
    for tid, kind, depth, name in events:
        if tid not in threads:
            threads[tid] = {"stack": [], "entries": []}
            order.append(tid)
        t = threads[tid]
        st = t["stack"]
        while st and st[-1][0] >= depth:
            st.pop()
        if kind == "exit":
            continue
        n = norm_name(name)
        kept = n in keep and kind != "foreign"
        if kept:
            dropped = sum(1 for _, k in st if not k)
            t["entries"].append((depth - dropped, n, spell_name(name)))
        if kind in ("entry", "call", "foreign"):
            # a tree record (singlestep: call, foreign) is a call whose
            # children follow at depth+1, like an entry's
            st.append((depth, kept))
    out = []
    for i, tid in enumerate(order):
        if threads[tid]["entries"]:
            out.append(("T%d" % (len(out) + 1), threads[tid]["entries"]))
    return out


def render(threads, raw=False):
    lines = []
    for name, entries in threads:
        for depth, n, r in entries:
            lines.append("%s %s%s" % (name, "  " * depth, r if raw else n))
    return lines


# ---------------------------------------------------------------- one program

def trace_uftrace(prog, tmp):
    data = os.path.join(tmp, "uftrace.data")
    shutil.rmtree(data, ignore_errors=True)
    rc, out, err = run(["uftrace", "record", "--no-pager", "-d", data, "-P", ".", prog],
                       cwd=tmp)
    if rc is None or not os.path.isdir(data):
        return None, "uftrace record failed: " + err.strip()[-300:]
    rc, out, err = run(["uftrace", "replay", "--no-pager", "-d", data, "-f", "tid"], cwd=tmp)
    if rc != 0:
        return None, "uftrace replay failed: " + err.strip()[-300:]
    return parse_uftrace(out), None


def trace_asmspy(asmspy, prog, tmp, backend):
    if backend == "singlestep":
        cmd = [asmspy, "--launch", "tree", "-1", "--json", "--backend=singlestep", "--", prog]
    else:
        # --follow: uftrace records forked children by default
        cmd = [asmspy, "--launch", "calls", "-1", "--json", "--follow", "--", prog]
    rc, out, err = run(cmd, timeout=TIMEOUT * (5 if backend == "singlestep" else 1), cwd=tmp)
    if rc is None:
        return None, [], "asmspy timed out: " + err.strip()[-300:]
    if backend == "singlestep":
        ev, notes = parse_asmspy_tree(out, os.path.basename(prog))
    else:
        ev, notes = parse_asmspy_calls(out)
    if rc != 0 and not ev:
        return None, notes, "asmspy exit %s: %s" % (rc, err.strip()[-300:])
    notes += [l[2:] for l in err.splitlines() if l.startswith("# ")]
    return ev, notes, None


def judge(key, prog, asmspy, backend, tmp, utrace_cache):
    own, imports = program_names(prog)
    res = {"key": key, "backend": backend}
    if prog not in utrace_cache:
        utrace_cache[prog] = trace_uftrace(prog, tmp)
    uev, uerr = utrace_cache[prog]
    aev, notes, aerr = trace_asmspy(asmspy, prog, tmp, backend)
    res["notes"] = [n for n in notes if "refused" in n or "patched" in n]
    if uerr or aerr:
        res["verdict"] = "error"
        res["diff"] = [uerr or aerr]
        return res
    u = normalise(uev, own, imports)
    a = normalise(aev, own, imports)
    ul, al = render(u), render(a)
    if ul != al:
        res["verdict"] = "differs"
        res["diff"] = list(difflib.unified_diff(ul, al, "uftrace", "asmspy " + backend,
                                                n=2, lineterm=""))
    else:
        ur, ar = render(u, raw=True), render(a, raw=True)
        if ur != ar:
            res["verdict"] = "names"
            pairs = []
            for x, y in zip(ur, ar):
                x, y = x.split(" ", 1)[1].strip(), y.split(" ", 1)[1].strip()
                if x != y and (x, y) not in pairs:
                    pairs.append((x, y))
            res["diff"] = ["uftrace %r  asmspy %r" % p for p in pairs]
        else:
            res["verdict"] = "equal"
            res["diff"] = []
    res["uftrace"], res["asmspy"] = ul, al
    return res


# ---------------------------------------------------------------- gate

def read_expected(path):
    exp = {}
    if not os.path.exists(path):
        return exp
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.split("#", 1)[0].rstrip() if line.lstrip().startswith("#") else line.rstrip()
            if not line.strip():
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in ("differs", "names", "error"):
                sys.exit("%s:%d: want `<program>-<O0|O2>[@singlestep] <differs|names|error> "
                         "<reason>`, got %r" % (path, ln, line))
            exp[parts[0]] = (parts[1], parts[2])
    return exp


def main(argv):
    full = os.environ.get("ORACLE_FULL") == "1" or "--full" in argv
    singlestep = os.environ.get("ORACLE_SINGLESTEP") == "1" or "--singlestep" in argv
    gate = "--no-gate" not in argv
    verbose = "-v" in argv
    only, report = None, None
    for a in argv:
        if a.startswith("--only="):
            only = [x for x in a[7:].split(",") if x]
        if a.startswith("--report="):
            report = a[9:]
    asmspy = os.environ.get("ASMSPY")
    odir = os.environ.get("ORACLE_DIR")
    if not asmspy or not odir:
        sys.exit("set ASMSPY and ORACLE_DIR (meson test does)")
    if not shutil.which("uftrace"):
        print("SKIP: uftrace is not installed (the oracle); apt-get install uftrace")
        return 77
    if not shutil.which("nm"):
        print("SKIP: nm (binutils) is not installed")
        return 77
    rc, out, err = run([asmspy, "--backends"])
    line = [l for l in (out + err).splitlines() if l.split()[1:2] == ["entrypatch"]]
    if not line or "usable" not in line[0]:
        print("SKIP: entrypatch is not usable here: %s" % (line[0] if line else "not built"))
        return 77

    for a in argv:
        if a.startswith("--only="):
            full = True  # --only picks from the whole corpus
    progs = C_PROGS + CXX_PROGS if full else DEFAULT_PROGS
    runs = []
    for p in progs:
        for fl in FLAVOURS:
            runs.append(("%s-%s" % (p, fl), "entrypatch"))
    if singlestep:
        for p in (C_PROGS + CXX_PROGS if full else SINGLESTEP_PROGS):
            if p in SINGLESTEP_PROGS:
                for fl in FLAVOURS:
                    runs.append(("%s-%s" % (p, fl), "singlestep"))
    for a in argv:
        if a.startswith("--backend="):
            runs = [r for r in runs if r[1] == a[10:]]
    if only:
        runs = [r for r in runs if r[0] in only or r[0].rsplit("-", 1)[0] in only]
    expected = read_expected(EXPECTED)

    results, failures = [], []
    cache = {}
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="asmspy-oracle.")
    try:
        for name, backend in runs:
            prog = os.path.join(odir, "oracle_" + name)
            key = name if backend == "entrypatch" else name + "@singlestep"
            if not os.path.exists(prog):
                print("# %s: not built (no C++ compiler?)" % key)
                continue
            t1 = time.time()
            res = judge(key, prog, asmspy, backend, tmp, cache)
            res["seconds"] = round(time.time() - t1, 2)
            results.append(res)
            v = res["verdict"]
            exp = expected.get(key)
            status = "ok"
            if gate:
                if v == "equal" and exp:
                    status = "FAIL now equal: remove from expected_differences.txt"
                elif v != "equal" and not exp:
                    status = "FAIL new difference"
                elif v != "equal" and exp and exp[0] != v:
                    status = "FAIL now %s (listed as %s): update expected_differences.txt" % (v, exp[0])
                if status != "ok":
                    failures.append((key, status))
            print("%-28s %-8s %5.1fs  %s%s" % (key, v, res["seconds"], status,
                                              ("  (known: %s)" % (exp[1] if len(exp[1]) < 90 else exp[1][:87] + "...")) if exp and v != "equal" else ""))
            if v != "equal" and (verbose or status != "ok"):
                for n in res["notes"]:
                    print("    # " + n)
                d = res["diff"]
                for l in (d if verbose else d[:DIFF_LINES]):
                    print("    " + l)
                if len(d) > DIFF_LINES and not verbose:
                    print("    ... (%d more lines; -v prints all)" % (len(d) - DIFF_LINES))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if report:
        with open(report, "w") as f:
            json.dump(results, f, indent=1)
    n = {v: sum(1 for r in results if r["verdict"] == v) for v in ("equal", "names", "differs", "error")}
    print("# %d runs in %.1f s: %d equal, %d names, %d differ, %d errors"
          % (len(results), time.time() - t0, n["equal"], n["names"], n["differs"], n["error"]))
    for fl in FLAVOURS:
        rs = [r for r in results if r["key"].endswith("-" + fl) and r["backend"] == "entrypatch"]
        if rs:
            print("#   entrypatch -%s: %d/%d equal" % (fl, sum(r["verdict"] == "equal" for r in rs), len(rs)))
    if failures:
        print("FAIL: %d run(s) disagree with expected_differences.txt:" % len(failures))
        for k, s in failures:
            print("  %s: %s" % (k, s))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
