#!/usr/bin/env python3
"""check_screen_router: only the router (tui/tui_main.c) moves between screens.

Issue 28 part 2: the screens used to call each other (the mode menu entered
the symbol picker, the live view entered the mode menu, ...), a cycle
through every screen file. Now a screen's key handler returns where to go
next (struct tui_next, tui/app.h) and tui_main.c's router enters it. This
check holds every other file in tui/ to that, outside comments and string
literals:

  enter    a call to a screen's entry (tui_<screen>_enter, tui_live_start*):
           only the router enters screens, a screen does not even re-enter
           itself (a restart is a tui_next to the same screen);
  cross    a call to another file's tui_<screen>_enter / _start* / _stop
           (the live view's detach is the router's to call, or its own);
  assign   a write to app->screen (`->screen =`): the router alone sets it.

It prints the counts per file and in all, and fails on any. With --count
it only prints them and exits 0 (for a before/after count on another
checkout).

usage: check_screen_router.py [--count] <tui-dir>
exit: 0 pass, 1 hits (listed), 99 harness problem"""
import os
import re
import sys

ROUTER = "tui_main.c"
ENTRY = re.compile(r"\btui_[a-z]+_(enter|start|start_args|stop)\b")
IS_ENTER = re.compile(r"^tui_[a-z]+_(enter|start|start_args)$")
DEFN = re.compile(r"^[A-Za-z_][\w \t\*]*\b(tui_[a-z]+_(?:enter|start|start_args|stop))\s*\(",
                  re.M)
ASSIGN = re.compile(r"\bapp\s*->\s*screen\s*=(?!=)")
SCREEN_FILE = re.compile(r"^(screen_\w+|watch_prompt)\.c$")


def strip(text):
    """Comments and string/char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main(argv):
    count_only = "--count" in argv
    args = [a for a in argv[1:] if a != "--count"]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__)
        return 99
    tui = args[0]
    files = sorted(f for f in os.listdir(tui) if f.endswith(".c"))
    if ROUTER not in files:
        print("ERROR: no %s in %s" % (ROUTER, tui))
        return 99
    src = {}
    for f in files:
        with open(os.path.join(tui, f), encoding="utf-8", errors="replace") as fh:
            src[f] = strip(fh.read())
    owner = {}  # a screen's entry function -> the screen file that defines it
    for f, text in src.items():
        if not SCREEN_FILE.match(f):
            continue
        for m in DEFN.finditer(text):
            if not re.match(r"[^;{]*\)\s*\{", text[m.end(1):]):
                continue  # a declaration or a call, not a definition
            owner[m.group(1)] = f
    hits = []
    totals = {"enter": 0, "cross": 0, "assign": 0}
    for f, text in src.items():
        if f == ROUTER:
            continue
        defs = {m.start(1) for m in DEFN.finditer(text)}
        lines = text.split("\n")
        per = {"enter": 0, "cross": 0, "assign": 0}
        for m in ENTRY.finditer(text):
            name = m.group(0)
            if name not in owner or m.start() in defs or not re.match(r"\s*\(", text[m.end():]):
                continue
            line = text.count("\n", 0, m.start()) + 1
            kinds = []
            if IS_ENTER.match(name):
                kinds.append("enter")
            if owner[name] != f:
                kinds.append("cross")
            for k in kinds:
                per[k] += 1
                hits.append("%s:%d: %s: %s" % (f, line, k, lines[line - 1].strip()))
        for m in ASSIGN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            per["assign"] += 1
            hits.append("%s:%d: assign: %s" % (f, line, lines[line - 1].strip()))
        for k in per:
            totals[k] += per[k]
        if any(per.values()):
            print("%-18s enter %2d  cross %2d  assign %2d" % (f, per["enter"], per["cross"],
                                                             per["assign"]))
    print("total: %d screen entries outside the router (%d of them cross-screen calls), "
          "%d writes of app->screen outside it" % (totals["enter"], totals["cross"],
                                                    totals["assign"]))
    if count_only:
        return 0
    for h in hits:
        print(h)
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
