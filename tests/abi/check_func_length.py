#!/usr/bin/env python3
"""check_func_length: no C function in the tree's own sources is over 100 lines.

Issue 28 ("code a newcomer can live in"): a function a reader has to scroll
through three times is split into named steps. This keeps it so: every C
function definition in the tree's own .c and .h files (SCAN_DIRS below;
build directories, tests/ and bench/ are not scanned) is measured from the
line of its opening brace to the line of its closing brace, both counted,
and any over LIMIT lines is listed.

long_functions_allowed.txt (next to this script) names the exceptions, one
per line: `<path> <function>  # why`. An entry that no longer matches a long
function is stale and fails the test too (the function was split: drop the
line), so the list never names more than it lets through.

The detector is a brace-depth scanner: it steps over comments, string and
character literals and preprocessor lines (a #define's braces are not
code), and takes a `{` met at depth 0 (`extern "C" {` does not count as a
level) as a function body when the text since the previous top-level `;`
or `}` reads like a function signature: `name(...)` followed by nothing
but attributes, and no `=` (an initializer) or struct/union/enum keyword
in front of the brace. A file whose braces do not balance is a harness
problem (exit 99): the scanner would be guessing. Generated files (a
comment among the first lines says "@generated" or "generated ... do not
edit") are not scanned.

usage: check_func_length.py <source-root> [limit]
       check_func_length.py --file <file.c> [limit]   (one file, no allowlist)
exit: 0 pass, 1 long functions (listed), 99 harness problem"""
import os
import re
import sys

LIMIT = 100
SCAN_DIRS = ["host", "cli", "tui", "tools", "plugins", "bindings", "common", "include",
             "examples"]
SKIP_DIR_NAMES = {".git", "node_modules", "target", "__pycache__"}
EXTS = (".c", ".h")
ALLOWLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "long_functions_allowed.txt")


class Unbalanced(Exception):
    pass


def blank_out(text):
    """The text with comments, string/char literals and preprocessor lines
    replaced by spaces (newlines kept, so line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True  # only whitespace since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if at_line_start and c == "#":
            # A directive runs to the first newline not escaped by '\'
            # (comments inside it are blanked with it).
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                if text.startswith("/*", i):
                    end = text.find("*/", i + 2)
                    end = n if end < 0 else end + 2
                    out.append(re.sub(r"[^\n]", " ", text[i:end]))
                    i = end
                    continue
                out.append(" ")
                i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # Keep the quotes so `x = "a"` still reads as an initializer.
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else c)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else"}


def strip_attributes(h):
    """h without its __attribute__((...)) and __asm__(...) parts (balanced
    parentheses: visibility("hidden") nests)."""
    out = []
    i = 0
    for m in re.finditer(r"\b(__attribute__|__asm__|asm)\s*\(", h):
        if m.start() < i:
            continue
        depth = 0
        j = m.end() - 1
        while j < len(h):
            if h[j] == "(":
                depth += 1
            elif h[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append(h[i:m.start()])
        out.append(" ")
        i = j + 1
    out.append(h[i:])
    return "".join(out)


def function_name(header):
    """The name a function signature defines, or None when `header` (the
    text between the previous top-level statement and a top-level `{`) is
    not one (an initializer, a struct/enum, `extern "C"`)."""
    h = strip_attributes(header).strip()
    if not h or "=" in h:
        return None
    if re.search(r"\b(struct|union|enum)\s*\w*\s*$", h):
        return None
    if not h.endswith(")"):
        return None
    # The name is the identifier before the first top-level '('.
    depth = 0
    for k, ch in enumerate(h):
        if ch == "(":
            if depth == 0:
                # `type (*name(args))(args)`: the name is inside.
                inner = re.match(r"\(\s*\*\s*(\w+)\s*\(", h[k:])
                if inner:
                    return inner.group(1)
                m = re.search(r"(\w+)\s*$", h[:k])
                return m.group(1) if m and m.group(1) not in KEYWORDS else None
            depth += 1
        elif ch == ")":
            depth -= 1
    return None


def functions(text):
    """(name, open_line, close_line) for each function defined in `text`."""
    code = blank_out(text)
    found = []
    depth = 0
    line = 1
    header_start = 0
    open_line = 0
    name = None
    linkage = 0  # open `extern "C" {` blocks: their contents are top level
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            if depth == 0 and re.fullmatch(r'\s*extern\s*"[^"]*"\s*', code[header_start:i]):
                linkage += 1
                header_start = i + 1
                continue
            if depth == 0:
                name = function_name(code[header_start:i])
                open_line = line
            depth += 1
        elif c == "}":
            if depth == 0 and linkage:
                linkage -= 1
                header_start = i + 1
                continue
            depth -= 1
            if depth < 0:
                raise Unbalanced("'}' without '{' at line %d" % line)
            if depth == 0:
                if name:
                    found.append((name, open_line, line))
                name = None
                header_start = i + 1
        elif c == ";" and depth == 0:
            header_start = i + 1
    if depth != 0 or linkage:
        raise Unbalanced("%d '{' left open at the end" % (depth + linkage))
    return found


def source_files(root):
    for top in SCAN_DIRS:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in SKIP_DIR_NAMES and not d.startswith("build"))
            for f in sorted(filenames):
                if f.endswith(EXTS):
                    yield os.path.join(dirpath, f)


def read_allowlist(path):
    allowed = {}
    with open(path) as fh:
        for raw in fh:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ValueError("%s: expected '<path> <function>': %r" % (path, raw.rstrip()))
            allowed[(parts[0], parts[1])] = False
    return allowed


def is_generated(text):
    """A generated file says so in a comment among its first lines
    ("@generated", or "generated ... do not edit"): it is not the tree's
    prose. (A generator's own source, whose string literals say it, is.)"""
    for line in text.splitlines()[:8]:
        s = line.strip()
        if not s.startswith(("/*", "//", "*")):
            continue
        if "@generated" in s or (re.search(r"generated", s, re.I) and
                                 re.search(r"do not edit", s, re.I)):
            return True
    return False


def long_functions(path, limit):
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    if is_generated(text):
        return []
    return [(name, a, b - a + 1) for name, a, b in functions(text) if b - a + 1 > limit]


def main(argv):
    args = argv[1:]
    if args and args[0] == "--file":
        if len(args) < 2:
            print(__doc__)
            return 99
        limit = int(args[2]) if len(args) > 2 else LIMIT
        try:
            hits = long_functions(args[1], limit)
        except Unbalanced as e:
            print("harness: %s: %s" % (args[1], e))
            return 99
        for name, line, length in hits:
            print("%s:%d: %s is %d lines (limit %d)" % (args[1], line, name, length, limit))
        return 1 if hits else 0
    if not args:
        print(__doc__)
        return 99
    root = args[0]
    limit = int(args[1]) if len(args) > 1 else LIMIT
    try:
        allowed = read_allowlist(ALLOWLIST)
    except (OSError, ValueError) as e:
        print("harness: %s" % e)
        return 99
    bad = []
    scanned = 0
    for path in source_files(root):
        rel = os.path.relpath(path, root)
        scanned += 1
        try:
            hits = long_functions(path, limit)
        except Unbalanced as e:
            print("harness: %s: %s" % (rel, e))
            return 99
        for name, line, length in hits:
            key = (rel, name)
            if key in allowed:
                allowed[key] = True
                print("allowed: %s:%d: %s is %d lines" % (rel, line, name, length))
            else:
                bad.append("%s:%d: %s is %d lines" % (rel, line, name, length))
    for (rel, name), seen in sorted(allowed.items()):
        if not seen:
            bad.append("stale: %s %s is no longer over %d lines (drop it from %s)"
                       % (rel, name, limit, os.path.basename(ALLOWLIST)))
    if bad:
        print("FAIL: %d function(s) over %d lines; split them into named steps (issue 28)"
              " or list them with the reason in %s:" % (len(bad), limit,
                                                          os.path.basename(ALLOWLIST)))
        for b in bad:
            print("  " + b)
        return 1
    print("ok: %d files, no function over %d lines outside the allowlist" % (scanned, limit))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
