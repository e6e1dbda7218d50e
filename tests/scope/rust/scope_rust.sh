#!/bin/sh
# scope_rust.sh: the Rust scope binding's meson test (suite scope-rust).
# Builds the test program and the example with cargo (offline, no crates
# registry) into CARGO_TARGET_DIR under the meson build dir, then runs them
# through test_scope_counts.sh (the callgrind oracle sets SCOPE_EXP_*).
# Usage: scope_rust.sh <scope_driver> <test_scope_counts.sh> <source root> <target dir>
# cargo: $CARGO, else what meson found ($ASMSPY_CARGO_FOUND: /usr/bin/cargo
# first, the distribution's), else none -> skip. rustc: $RUSTC, else the
# rustc beside that cargo (so /usr/bin/cargo never picks up a rustup rustc
# from PATH), else rustc on PATH.
set -eu
driver=$1 counts=$2 src=$3 target=$4
cargo=${CARGO:-${ASMSPY_CARGO_FOUND:-}}
if [ -z "$cargo" ] || [ ! -x "$cargo" ]; then
  echo "SKIP: cargo not installed (apt-get install -y rustc cargo)"; exit 77
fi
rustc=${RUSTC:-$(dirname "$cargo")/rustc}
[ -x "$rustc" ] || rustc=$(command -v rustc 2>/dev/null) || { echo "SKIP: rustc not installed"; exit 77; }
export RUSTC="$rustc" CARGO_TARGET_DIR="$target"
echo "# $("$cargo" --version), $("$rustc" --version)"
for m in tests/scope/rust examples/scope/rust; do
  "$cargo" build --offline --release --quiet --manifest-path "$src/$m/Cargo.toml" ||
    { echo "FAIL: cargo build --manifest-path $m/Cargo.toml"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the scopes' text files go to a fresh TMPDIR (the tests read them back)
export TMPDIR="$tmp" SCOPE_RUST_BIN="$target/release"
here=$(dirname "$0")
exec sh "$counts" "$driver" "$here/rust_checks.sh"
