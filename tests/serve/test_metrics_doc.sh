#!/bin/sh
# test_metrics_doc: docs/metrics.md is generated from the record schemas (the
# host's, every in-tree view's `records`, the command's) by tools/metrics_md;
# fail when the committed file differs from what the schemas say now.
# usage: test_metrics_doc.sh <metrics_md> <docs/metrics.md>
set -eu
[ $# -eq 2 ] || { echo "usage: $0 <metrics_md> <metrics.md>" >&2; exit 99; }
unset ASMSPY_PLUGIN_PATH # only the build tree's views: the in-tree catalogue
OUT=$(mktemp "${TMPDIR:-/tmp}/metrics.XXXXXX")
trap 'rm -f "$OUT"' EXIT
"$1" >"$OUT" || { echo "FAIL: $1 exited non-zero" >&2; exit 1; }
if ! diff -u "$2" "$OUT" >&2; then
  echo "FAIL: docs/metrics.md is not what the record schemas say; regenerate it:" >&2
  echo "  build/tools/metrics_md > docs/metrics.md" >&2
  exit 1
fi
echo "ok: docs/metrics.md matches the record schemas ($(grep -c '^## ' "$2") sections)"
