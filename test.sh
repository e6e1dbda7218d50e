#!/bin/bash
# Run every test: install dependencies (scripts/install-deps.sh --dev: the
# test-time toolchains too), build (plus an ASan/UBSan build with
# ASMSPY_ASAN=1), run `meson test`, and print one closing line
#   N passed, N failed, N skipped
# Exit status is non-zero when anything failed.
set -eu
cd "$(dirname "$0")"
scripts/install-deps.sh --dev

# The per-backend CI matrix: every backend plugin the built registry lists
# gets its own `meson test --suite <backend>` run (its live and offline
# tests), the rest of the suite runs once without them, and the summary
# prints one line per backend with its probe's verdict and each skip's reason.
backend_list() { # backend_list BUILD-DIR -> "name<TAB>status<TAB>reason" lines
  "$1/cli/asmspy" --backends --json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r.get("type") == "plugin" and r.get("kind") == "backend":
        print("\t".join((r["name"], r["status"], r.get("reason", "").replace("\t", " "))))
'
}

run_suite() { # run_suite BUILD-DIR [meson setup args...]
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; exit 1; }
  fi
  ninja -C "$dir" >"$dir.ninja.log" 2>&1 || { tail -40 "$dir.ninja.log"; exit 1; }
  rm -f "$dir"/meson-logs/rest.json "$dir"/meson-logs/backend-*.json
  backend_list "$dir" >"$dir/meson-logs/backends.tsv"
  meson introspect "$dir" --tests >"$dir/meson-logs/tests.json"
  local name status reason without=() with=()
  while IFS=$'\t' read -r name status reason; do
    if grep -q "\"asmspy:$name\"" "$dir/meson-logs/tests.json"; then
      without+=(--no-suite "$name"); with+=("$name")
    fi
  done <"$dir/meson-logs/backends.tsv"
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 --logbase rest \
    "${without[@]}" || true
  for name in "${with[@]}"; do
    echo "== backend suite $name ($dir)"
    meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 --suite "$name" \
      --logbase "backend-$name" || true
  done
}

run_suite build
dirs=(build)
if [ "${ASMSPY_ASAN:-0}" = 1 ]; then
  run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false
  dirs+=(build-asan)
fi

# AArch64: the tree cross-built (cross/aarch64-linux-gnu.ini) and its suite
# run inside an emulated arm64 Debian machine (tests/arm64/ci.sh: qemu
# -M virt -cpu max, Debian's arm64 kernel); its last line is the counts.
# ASMSPY_ARM64=0 leaves it out.
arm64_log=build-arm64.suite.log
rm -f "$arm64_log"
if [ "${ASMSPY_ARM64:-1}" = 1 ]; then
  if [ ! -f build-arm64/build.ninja ]; then
    meson setup build-arm64 --cross-file cross/aarch64-linux-gnu.ini >build-arm64.setup.log 2>&1 ||
      { tail -20 build-arm64.setup.log; echo "arm64 cross build: meson setup failed" >"$arm64_log"; }
  fi
  if [ -f build-arm64/build.ninja ]; then
    if ninja -C build-arm64 >build-arm64.ninja.log 2>&1; then
      echo "== arm64 suite (emulated machine)"
      tests/arm64/ci.sh build-arm64 2>&1 | tee "$arm64_log" | grep -E '^(not ok|skip|# [0-9]+_)|passed,' || true
    else
      tail -40 build-arm64.ninja.log
      echo "0 passed, 1 failed, 0 skipped (the arm64 cross build failed)" >"$arm64_log"
    fi
  fi
fi

python3 - "${dirs[@]}" <<'PY'
import glob, json, os, sys
from collections import defaultdict
passed = failed = skipped = 0
per = defaultdict(lambda: [0, 0, 0])  # suite -> passed / failed / skipped
failed_names = []  # "build: test (result)", listed just above the counts

def skip_reason(rec):
    """The reason a skipped test printed: its last line naming SKIP, else its last line."""
    lines = [l.strip() for l in (rec.get("stdout") or "").splitlines() if l.strip()]
    named = [l for l in lines if "SKIP" in l.upper()]
    return (named or lines or ["(no reason printed)"])[-1][:200]

def fail_evidence(rec):
    """A failed test's own verdict lines (FAIL / not ok / evidence / ERROR),
    at most 8, so CI's kept tail says why and not only which."""
    import re
    out = (rec.get("stdout") or "") + "\n" + (rec.get("stderr") or "")
    keep = [l.rstrip()[:240] for l in out.splitlines()
            if re.match(r"\s*(FAIL\b|not ok\b|evidence:|HARNESS ERROR|ERROR\b|Traceback|AssertionError)", l)
            or "BELOW FLOOR" in l]
    return keep[:8]

def tally(path):
    global passed, failed, skipped
    counts, reasons = [0, 0, 0], []
    suites_of = {}
    intro = os.path.join(os.path.dirname(path), "tests.json")
    if os.path.exists(intro):
        for t in json.load(open(intro)):
            suites_of[t["name"]] = t["suite"]
    for line in open(path):
        rec = json.loads(line)
        r = rec["result"]
        k = 0 if r in ("OK", "EXPECTEDFAIL") else 2 if r == "SKIP" else 1
        counts[k] += 1
        if k == 1:
            failed_names.append(os.path.basename(os.path.dirname(os.path.dirname(path)))
                                + ": " + rec["name"].split(" / ", 1)[-1] + " (" + r + ")"
                                + "".join("\n    " + l for l in fail_evidence(rec)))
        if k == 2:
            reasons.append(rec["name"].split(" / ", 1)[-1] + ": " + skip_reason(rec))
        short = rec["name"].split(" / ", 1)[-1]
        for suite in suites_of.get(short, [rec["name"].split(" / ", 1)[0]]):
            suite = suite.split(":", 1)[-1]
            if suite != "asmspy":
                per[suite][k] += 1
    passed += counts[0]; failed += counts[1]; skipped += counts[2]
    return counts, reasons

matrix = []
for d in sys.argv[1:]:
    logs = os.path.join(d, "meson-logs")
    if os.path.exists(os.path.join(logs, "rest.json")):
        tally(os.path.join(logs, "rest.json"))
    for line in open(os.path.join(logs, "backends.tsv")):
        name, status, reason = (line.rstrip("\n").split("\t") + ["", ""])[:3]
        path = os.path.join(logs, f"backend-{name}.json")
        if not os.path.exists(path):
            matrix.append(f"  {d:10s} {name:11s} no suite of its own  probe: {status}: {reason}")
            continue
        (p, f_, s), reasons = tally(path)
        matrix.append(f"  {d:10s} {name:11s} {p:3d} passed, {f_:3d} failed, {s:3d} skipped"
                      f"  probe: {status}" + ("" if status == "usable" else f": {reason}"))
        for why in sorted(set(reasons)):
            matrix.append(f"  {'':10s} {'':11s}   skip {why}")

# the emulated arm64 machine's suite (test.sh ran tests/arm64/ci.sh)
if os.path.exists("build-arm64.suite.log"):
    import re
    last = [l for l in open("build-arm64.suite.log") if re.match(r"^\d+ passed, \d+ failed, \d+ skipped", l)]
    if last:
        p, f_, s = map(int, re.findall(r"\d+", last[-1])[:3])
    else:
        p, f_, s = 0, 1, 0  # it printed no counts: a failure
    per["arm64 (emulated)"] = [p, f_, s]
    failed_names += ["arm64: " + l.strip()[:160] for l in open("build-arm64.suite.log")
                     if l.startswith("not ok")]
    passed += p; failed += f_; skipped += s
print("per suite (all builds): passed / failed / skipped")
for suite in sorted(per):
    p, f_, s = per[suite]
    print(f"  {suite:12s} {p:3d} / {f_:3d} / {s:3d}")
print("per backend (meson test --suite <backend>, the registry's backends):")
print("\n".join(matrix))
for name in failed_names:
    print(f"FAILED {name}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
