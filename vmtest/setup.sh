#!/usr/bin/env bash
# setup.sh installs what the gotrace VM test harness needs and caches the
# guest kernels. Idempotent: a second run does no network access.
#
#   - apt packages: qemu-system-x86 busybox-static (--no-install-recommends)
#   - kernels: the current Debian packages behind the meta packages
#       linux-image-6.12-cloud-amd64 -> $CACHE/vmlinuz-6.12
#       linux-image-cloud-amd64      -> $CACHE/vmlinuz-6.1
#       linux-image-cloud-amd64 of trixie-backports -> $CACHE/vmlinuz-7.3
#     (7.3 through apt options of its own: a source list, package lists and
#     archive cache under $CACHE/apt, so the machine's apt sources and
#     candidates stay as they are; the trixie keys are in bookworm's
#     debian-archive-keyring)
#
# CACHE is ${GOTRACE_VM_CACHE:-<repo root>/.cache/vm}. Set GOTRACE_VM_REFRESH=1
# to re-resolve and re-download the kernels. Must run as root on Debian 12
# (bookworm with the bookworm-security suite enabled; the 6.12 kernel comes
# from there).
set -euo pipefail

log() { printf 'vmtest/setup: %s\n' "$*"; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cache=${GOTRACE_VM_CACHE:-$root/.cache/vm}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
trap 'rm -rf "$cache"/dl.*' EXIT

if [ "$(id -u)" -ne 0 ]; then
	sudo=sudo
else
	sudo=
fi
export DEBIAN_FRONTEND=noninteractive

# apt_opts: extra options of apt-get/apt-cache (empty: the machine's own
# apt configuration; the 7.3 kernel sets its own).
apt_opts=()
apt_updated=0
apt_update() {
	if [ "$apt_updated" -eq 0 ]; then
		log "apt-get update ${apt_opts[*]}"
		$sudo apt-get "${apt_opts[@]}" update -qq
		apt_updated=1
	fi
}

# have_candidate PKG: true if apt knows an installable version of PKG.
have_candidate() {
	local c
	c=$(apt-cache "${apt_opts[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

# installed PKG: true if dpkg has PKG fully installed.
installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# 1. Packages.
need=()
for p in qemu-system-x86 busybox-static; do
	installed "$p" || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
	for p in "${need[@]}"; do
		have_candidate "$p" || apt_update
	done
	log "apt-get install ${need[*]}"
	$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
	log "qemu-system-x86 and busybox-static already installed"
fi
command -v qemu-system-x86_64 >/dev/null || { log "qemu-system-x86_64 not found after install"; exit 1; }
[ -x /bin/busybox ] || { log "/bin/busybox not found after install"; exit 1; }

# 2. Kernels.
# resolve META: the package holding the kernel image behind META: its
# linux-image-VERSION dependency, and that one's linux-binary-VERSION where
# the kernel image was split out of it (Debian's 7.x packages).
resolve() {
	local pkg bin
	pkg=$(apt-cache "${apt_opts[@]}" depends "$1" | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ && !n++ {print $2}')
	[ -n "$pkg" ] || return 0
	bin=$(apt-cache "${apt_opts[@]}" depends "$pkg" | awk '$1 == "Depends:" && $2 ~ /^linux-binary-/ && !n++ {print $2}')
	echo "${bin:-$pkg}"
}

# fetch_kernel META SHORT: resolve META to its versioned package, download
# it and extract its vmlinuz (./boot/vmlinuz-* or
# ./usr/lib/modules/*/vmlinuz) to $cache/vmlinuz-SHORT.
fetch_kernel() {
	local meta=$1 short=$2 dst="$cache/vmlinuz-$2"
	if [ -s "$dst" ] && [ "${GOTRACE_VM_REFRESH:-0}" != 1 ]; then
		log "kernel $short cached: $dst ($(cat "$dst.pkg" 2>/dev/null || echo unknown package))"
		return 0
	fi
	have_candidate "$meta" || apt_update
	local pkg
	pkg=$(resolve "$meta")
	if [ -z "$pkg" ]; then
		log "cannot resolve $meta to a linux-image package (Debian 12 needs the bookworm-security suite in its apt sources for the 6.12 kernel)"
		return 1
	fi
	local tmp
	tmp=$(mktemp -d "$cache/dl.XXXXXX")
	log "apt-get download $pkg (for $meta)"
	if ! (cd "$tmp" && apt-get "${apt_opts[@]}" download -qq "$pkg" 2>/dev/null); then
		# Stale package lists point at superseded .debs: refresh and retry once.
		apt_updated=0
		apt_update
		pkg=$(resolve "$meta")
		log "apt-get download $pkg (retry)"
		(cd "$tmp" && apt-get "${apt_opts[@]}" download -qq "$pkg")
	fi
	local debs=("$tmp"/*.deb) deb
	deb=${debs[0]}
	(cd "$tmp" && dpkg-deb --fsys-tarfile "$deb" | tar -x --wildcards './boot/vmlinuz-*' './usr/lib/modules/*/vmlinuz' 2>/dev/null || true)
	local img= f
	for f in "$tmp"/boot/vmlinuz-* "$tmp"/usr/lib/modules/*/vmlinuz; do
		if [ -f "$f" ]; then
			img=$f
			break
		fi
	done
	[ -n "$img" ] || { log "no ./boot/vmlinuz-* or ./usr/lib/modules/*/vmlinuz in $deb"; return 1; }
	mv -f "$img" "$dst.tmp"
	mv -f "$dst.tmp" "$dst"
	basename "$deb" .deb >"$dst.pkg"
	rm -rf "$tmp"
	log "kernel $short: $dst <- $(basename "$img") from $(cat "$dst.pkg")"
}

fetch_kernel linux-image-6.12-cloud-amd64 6.12
fetch_kernel linux-image-cloud-amd64 6.1

# Linux 7.3 from trixie-backports, through a private apt configuration.
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts" "$apt_dir/archives/partial"
echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main' >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
	-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
apt_updated=0
fetch_kernel linux-image-cloud-amd64 7.3

log "cache: $cache"
