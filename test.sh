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

python3 - "${logs[@]}" <<'PY'
import json, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            r = json.loads(line)["result"]
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped += 1
            else:
                failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
