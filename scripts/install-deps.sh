#!/bin/bash
# Install everything asmspy needs to build, run its tests and benchmarks on
# Debian 12. Idempotent: does nothing when all packages are present.
set -eu
pkgs=(meson ninja-build gcc pkg-config
      libcapstone-dev libdw-dev libelf-dev libpfm4-dev libipt-dev libncurses-dev
      g++ binutils python3 bc util-linux procps strace valgrind graphviz gdb uftrace
      tmux jq groff man-db gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
