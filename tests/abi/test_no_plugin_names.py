#!/usr/bin/env python3
"""test_no_plugin_names: the host and the applications know no plugin by name.

Every name the build's plugins answer to (`asmspy --backends --json`: each
plugin's name, each view's mode, each sampler's rung) is looked for as a C
string literal ("name") in host/, cli/ and tui/, outside comments. The host
learns plugins from their descriptors (sampler rungs, scope tiers, option
caps, TUI entries); a literal would be a plugin the host hard-codes. The few
literals that are something else (a record type, a word) are listed with the
reason in plugin_names_allowed.txt.

tui/ is held to more (issue 28: the TUI builds its screens from the roles
of the views' record fields): no identifier in its code (outside comments
and literals) starts with a view's name or mode and an underscore
(graph_by_fanout, procs_drill, trace_split), and no string literal in it holds a piece
of a view's rendered text (VIEW_TEXT below: "fanout=", "inv=", "functions
called", ...), which would be the TUI parsing a view's output.

usage: test_no_plugin_names.py <source-root> <asmspy>
exit: 0 pass, 1 hits (listed), 77 skip, 99 harness problem"""
import json
import os
import re
import subprocess
import sys


def view_modes(asmspy):
    env = dict(os.environ)
    env.pop("ASMSPY_PLUGIN_PATH", None)
    out = subprocess.run([asmspy, "--backends", "--json"], capture_output=True, text=True,
                         env=env, timeout=120)
    modes = set()
    for line in out.stdout.splitlines():
        ev = json.loads(line)
        if ev.get("type") == "plugin" and ev.get("kind") == "view":
            modes.update(v for v in (ev.get("name"), ev.get("mode")) if v)
    return modes


def names_from_registry(asmspy):
    env = dict(os.environ)
    env.pop("ASMSPY_PLUGIN_PATH", None)  # the build's own plugins only
    out = subprocess.run([asmspy, "--backends", "--json"], capture_output=True, text=True,
                         env=env, timeout=120)
    if out.returncode != 0:
        print("ERROR: asmspy --backends --json exited %d: %s" % (out.returncode, out.stderr))
        sys.exit(99)
    names = set()
    for line in out.stdout.splitlines():
        ev = json.loads(line)
        if ev.get("type") != "plugin":
            continue
        for key in ("name", "mode", "sampler_rung"):
            if ev.get(key):
                names.add(ev[key])
    return names


def string_literals(text):
    """(line, literal) for every C string literal outside comments."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif c == "'":  # a character literal ('"' is not a string)
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    buf.append(text[j:j + 2])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            yield line, "".join(buf)
            i = j + 1
        else:
            i += 1


# Pieces of the in-tree views' rendered text: a TUI literal holding one is
# the TUI reading a view's output instead of its typed records.
VIEW_TEXT = ("fanout=", "calls=", "inv=", "reach=", "sorted by invocations", "functions called",
             "assembly:", "sample #", "node ", "tid ", " -> ", ") = ", "[module]")
# Words that are a view's mode and also a plain word in the TUI's code.
TUI_WORDS_ALLOWED = {"tree"}  # the process picker's tree view (F2: tree_view ...)


def code_identifiers(text):
    """(line, identifier) outside comments and literals."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield line, text[i:j]
            i = j
        else:
            i += 1


def tui_hits(root, modes):
    hits = []
    modes = set(modes) - TUI_WORDS_ALLOWED
    for dirpath, _, files in os.walk(os.path.join(root, "tui")):
        for fn in sorted(files):
            if not re.search(r"\.(c|h)$", fn):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for line, ident in code_identifiers(text):
                first = ident.lower().split("_")[0]
                if "_" in ident and first in modes:
                    hits.append('%s:%d: identifier %s names the view "%s"' % (rel, line, ident, first))
            for line, lit in string_literals(text):
                for piece in VIEW_TEXT:
                    if piece in lit:
                        hits.append('%s:%d: "%s" holds a view\'s text "%s"' % (rel, line, lit, piece))
    return hits


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 99
    root, asmspy = sys.argv[1], sys.argv[2]
    names = names_from_registry(asmspy)
    if not names:
        print("ERROR: the registry lists no plugin")
        return 99
    allowed = set()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "plugin_names_allowed.txt")) as f:
        for raw in f:
            entry = raw.split("#", 1)[0].split()
            if len(entry) == 2:
                allowed.add((entry[0], entry[1]))
    hits, used = [], set()
    for top in ("host", "cli", "tui"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for fn in sorted(files):
                if not re.search(r"\.(c|h)$", fn):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for line, lit in string_literals(text):
                    if lit not in names:
                        continue
                    if (rel, lit) in allowed:
                        used.add((rel, lit))
                        continue
                    hits.append('%s:%d: "%s"' % (rel, line, lit))
    tui = tui_hits(root, view_modes(asmspy))
    print("# plugin names: %s" % " ".join(sorted(names)))
    if tui:
        print("FAIL: tui/ names views or reads their text (use the field roles instead):")
        for h in tui:
            print("  " + h)
        return 1
    for stale in sorted(allowed - used):
        print("note: allowed entry no longer matches (remove it): %s %s" % stale)
    if hits:
        print("FAIL: the host names plugins (read them from the descriptors instead):")
        for h in hits:
            print("  " + h)
        return 1
    print("PASS: no plugin name as a string literal in host/ cli/ tui/ (%d allowed, listed)"
          % len(used))
    return 0


if __name__ == "__main__":
    sys.exit(main())
