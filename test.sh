#!/bin/bash
# Run every test: install dependencies, build (plus an ASan/UBSan build with
# ASMSPY_ASAN=1), run `meson test`, and print one closing line
#   N passed, N failed, N skipped
# Exit status is non-zero when anything failed.
set -eu
cd "$(dirname "$0")"
scripts/install-deps.sh

run_suite() { # run_suite BUILD-DIR [meson setup args...]
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; exit 1; }
  fi
  ninja -C "$dir" >"$dir.ninja.log" 2>&1 || { tail -40 "$dir.ninja.log"; exit 1; }
  meson test -C "$dir" --print-errorlogs --num-processes 2 || true
}

run_suite build
logs=(build/meson-logs/testlog.json)
if [ "${ASMSPY_ASAN:-0}" = 1 ]; then
  run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false
  logs+=(build-asan/meson-logs/testlog.json)
fi

for b in build build-asan; do
  [ -f "$b/build.ninja" ] && meson introspect "$b" --tests >"$b/meson-logs/tests.json" 2>/dev/null || true
done
python3 - "${logs[@]}" <<'PY'
import json, os, sys
from collections import defaultdict
passed = failed = skipped = 0
# per suite (the per-backend CI matrix: meson test --suite <backend>)
per = defaultdict(lambda: [0, 0, 0])
for path in sys.argv[1:]:
    suites_of = {}
    intro = os.path.join(os.path.dirname(path), "tests.json")
    if os.path.exists(intro):
        for t in json.load(open(intro)):
            suites_of[t["name"]] = t["suite"]
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            r = rec["result"]
            short = rec["name"].split(" / ", 1)[-1]
            rec["suite"] = suites_of.get(short, [rec["name"].split(" / ", 1)[0]])
            k = 0 if r in ("OK", "EXPECTEDFAIL") else 2 if r == "SKIP" else 1
            if k == 0: passed += 1
            elif k == 2: skipped += 1
            else: failed += 1
            for suite in rec.get("suite", []):
                suite = suite.split(":", 1)[-1]
                if suite != "asmspy":
                    per[suite][k] += 1
print("per suite (both builds): passed / failed / skipped")
for suite in sorted(per):
    p, f_, s = per[suite]
    print(f"  {suite:12s} {p:3d} / {f_:3d} / {s:3d}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
