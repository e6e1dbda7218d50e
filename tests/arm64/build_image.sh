#!/bin/bash
# Build (or reuse) the emulated arm64 test machine's boot files:
#   <cache-dir>/img-<key>/Image        Debian's own arm64 kernel (from the
#                                      versioned linux-image-*-arm64 package)
#   <cache-dir>/img-<key>/base.cpio.gz a small initramfs: busybox-static, the
#                                      arm64 dynamic loader and the shared
#                                      libraries asmspy links, and our /init
#   <cache-dir>/img-<key>/versions.txt the exact .deb files it was made from
# Everything comes from the machine's configured Debian archive (apt-get
# download of :arm64 packages through dpkg multiarch); nothing else is
# fetched. The key is a hash of the .deb file names + SHA256s apt would
# download and of this script and init, so a new package version or a changed
# recipe builds a new image and an unchanged one is reused (cached run: only
# an `apt-get --print-uris` query).
# An initramfs (not a disk image) because it needs no block driver: the
# Debian kernel has virtio-blk/9p only as modules, but an initramfs is
# unpacked by the kernel itself.
# The last stdout line is the image directory. Exit 77 (skip) with the reason
# when the arm64 packages cannot be had (no arm64 architecture and not root,
# archive unreachable); exit 1 when an image was built but is inconsistent.
# Usage: build_image.sh <cache-dir>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: build_image.sh <cache-dir>" >&2; exit 2; }
cache=$1
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
log() { echo "build_image: $*" >&2; }
skip() { echo "SKIP: $*"; exit 77; }

# The runtime set: busybox-static for the shell and tools, libc6 for the
# loader, and the libraries asmspy, its plugins and victims link (checked by
# the NEEDED closure below, so a missing one fails the build, not the boot).
runtime_pkgs=(busybox-static libc6 libgcc-s1 libcapstone4 libdw1 libelf1 libncursesw6
              libtinfo6 libpfm4 zlib1g libzstd1 liblzma5 libbz2-1.0)

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  [ "$(id -u)" = 0 ] || skip "dpkg has no arm64 architecture and we are not root to add it (dpkg --add-architecture arm64 && apt-get update)"
  log "adding the arm64 architecture to dpkg (multiarch) and updating the package lists"
  dpkg --add-architecture arm64
  apt-get update -qq >&2 || skip "apt-get update failed after adding arm64"
fi

# The kernel: linux-image-arm64 is a metapackage; its Depends names the
# versioned package that holds /boot/vmlinuz-<abi>-arm64.
kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
       sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-arm64\).*/\1/p' | head -n1)
[ -n "$kpkg" ] || skip "apt knows no linux-image-arm64:arm64 (is the arm64 architecture's package list fetched?)"

pkgs=("$kpkg:arm64")
for p in "${runtime_pkgs[@]}"; do pkgs+=("$p:arm64"); done

# What apt would download, in an empty directory (--print-uris omits files
# already present in the current directory).
q=$(mktemp -d "$cache/.query.XXXXXX")
trap 'rm -rf "$q"' EXIT
uris=$(cd "$q" && apt-get download --print-uris "${pkgs[@]}" 2>&1) ||
  skip "apt cannot resolve the arm64 packages: $(echo "$uris" | grep -m1 '^E:' || echo "$uris" | tail -n1)"
debs=$(echo "$uris" | awk '$1 ~ /^\x27/ {print $2, $4}' | sort)
[ "$(echo "$debs" | grep -c .)" -eq "${#pkgs[@]}" ] ||
  skip "apt resolved $(echo "$debs" | grep -c .) of ${#pkgs[@]} arm64 packages"
key=$( { echo "$debs"; cat "$here/build_image.sh" "$here/init"; } | sha256sum | cut -c1-16)
img=$cache/img-$key
if [ -s "$img/Image" ] && [ -s "$img/base.cpio.gz" ] && [ -s "$img/versions.txt" ]; then
  log "cached image $img ($(grep -c . "$img/libs.txt") libraries; $(sed -n 's/^# kernel: //p' "$img/versions.txt"))"
  echo "$img"
  exit 0
fi

t0=$(date +%s.%N)
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$q" "$work"' EXIT
log "downloading ${#pkgs[@]} arm64 packages from the Debian archive"
# as root apt would drop to _apt, which cannot write our directory
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root "${pkgs[@]}" >&2) ||
  skip "apt-get download of the arm64 packages failed"

root=$work/root
mkdir -p "$root"
for d in "$work"/*.deb; do
  case $(basename "$d") in
    linux-image-*)
      # only the kernel image; modules are not needed (see the header)
      dpkg-deb --fsys-tarfile "$d" | tar -x -C "$work" --wildcards './boot/vmlinuz-*' ;;
    *) dpkg-deb -x "$d" "$root" ;;
  esac
done
vmlinuz=$(ls "$work"/boot/vmlinuz-* | head -n1)
# qemu -kernel takes a raw arm64 Image or a gzip'd one; check it is one of
# them (the arm64 Image header has "ARM\x64" at offset 56).
if [ "$(od -An -c -j56 -N4 "$vmlinuz" | tr -d ' ')" = 'ARMd' ]; then
  kind="raw arm64 Image"
elif [ "$(od -An -tx1 -N2 "$vmlinuz" | tr -d ' ')" = 1f8b ]; then
  kind="gzip'd arm64 Image"
  [ "$(gzip -dc "$vmlinuz" | od -An -c -j56 -N4 | tr -d ' ')" = 'ARMd' ] ||
    { log "$vmlinuz: gzip'd but not an arm64 Image"; exit 1; }
else
  log "$vmlinuz is neither an arm64 Image nor a gzip'd one"; exit 1
fi

# Trim what a test machine never reads: docs, locales, gconv modules,
# busybox's man page, lintian overrides.
rm -rf "$root"/usr/share "$root"/usr/lib/aarch64-linux-gnu/gconv "$root"/etc/ld.so.conf.d
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,asmspy}
[ -x "$root/bin/busybox" ] || { log "busybox-static did not provide /bin/busybox"; exit 1; }
# the loader's default search path without an ld.so.cache is its compiled-in
# multiarch directories; /init also exports LD_LIBRARY_PATH for both layouts
printf '/lib/aarch64-linux-gnu\n/usr/lib/aarch64-linux-gnu\n' >"$root/etc/ld.so.conf"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
install -m 0755 "$here/init" "$root/init"

# The NEEDED closure: every library a binary in the image names is in the
# image (the payload's binaries are checked against this list by ci.sh).
libs_in_image=$(find "$root" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)
missing=""
while IFS= read -r f; do
  for n in $(aarch64-linux-gnu-readelf -d "$f" 2>/dev/null |
             sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
    echo "$libs_in_image" | grep -qxF "$n" || missing="$missing $n(${f#"$root"})"
  done
done < <(find "$root" -type f \( -name '*.so*' -o -perm -u+x \))
[ -z "$missing" ] || { log "libraries named but not in the image:$missing"; exit 1; }

mkdir -p "$work/out"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -9n) >"$work/out/base.cpio.gz"
cp "$vmlinuz" "$work/out/Image"
{ echo "$debs"; echo "# kernel: $(basename "$vmlinuz") ($kind)"; } >"$work/out/versions.txt"
echo "$libs_in_image" >"$work/out/libs.txt"
rm -rf "$img"
mv "$work/out" "$img"
# one image per cache: an older key's image is never used again
for old in "$cache"/img-*; do [ "$old" = "$img" ] || rm -rf "$old"; done
t1=$(date +%s.%N)
log "built $img in $(echo "$t1 - $t0" | bc) s: kernel $(basename "$vmlinuz") ($kind, $(du -k "$img/Image" | cut -f1) KiB), initramfs $(du -k "$img/base.cpio.gz" | cut -f1) KiB"
echo "$img"
