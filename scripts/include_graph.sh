#!/bin/sh
# include_graph.sh [REV]: which part of the tree includes which, counted from
# the #include "dir/..." lines of the C sources at REV (default: the work
# tree, untracked files too). A part is a top-level folder, except that
# plugins are named one by one (plugins/<name>, plugins/views/<name>) and
# plugins/common stands alone, and include/ is named by its header folders
# (asmspy: the public API, asmspy-internal: the application API). The
# boundary rules it shows: host/ includes only include/ (asmspy/,
# asmspy-internal/) and common/; cli/, tui/ and tools/ include asmspy/,
# asmspy-internal/ and common/, never host/, and tui/ never cli/; a plugin
# includes asmspy/, common/, plugins/common and itself, never host/ nor
# another plugin.
cd "$(dirname "$0")/.." || exit 1
if [ -n "${1:-}" ]; then
  git grep -E '^#include "[a-z_-]+/' "$1" -- '*.c' '*.h' | sed "s/^$1://"
else
  git grep --untracked -E '^#include "[a-z_-]+/' -- '*.c' '*.h'
fi | python3 -c '
import collections, re, sys
def part(path):
    p = path.split("/")
    if p[0] == "plugins":
        if p[1] == "views" and len(p) > 3: return "/".join(p[:3])
        return "/".join(p[:2])
    if p[0] == "include" and len(p) > 2: return p[1]
    return p[0]
edges = collections.Counter()
for line in sys.stdin:
    src, _, rest = line.partition(":")
    if src.split("/")[0] in ("tests", "bench", "examples"): continue
    m = re.search(r"#include \"([^\"]+)\"", rest)
    if not m: continue
    dst = m.group(1)
    a, b = part(src), part(dst) if "/" in dst else part(src)
    if a == b: continue  # a folder including itself
    edges[(a, b)] += 1
for (a, b), n in sorted(edges.items()):
    print(f"{n:4d}  {a} -> {b}")
'
