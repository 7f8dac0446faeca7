#!/bin/sh
# bpftrace27.sh [ROOT] installs the reference bpftrace for the differential
# check (cmd/btdiff): bpftrace 0.27.1, which Debian ships only in sid, in a
# minimal sid chroot at ROOT (default /opt/bt027) so that it does not touch
# this machine's packages, and /usr/local/bin/bpftrace27, which runs it
# against the host kernel from the caller's directory (/proc, /sys, /dev,
# /tmp and /work are bind-mounted into the chroot). About 3 minutes and
# 600 MB the first time; it does nothing when both are in place.
set -eu
root=${1:-/opt/bt027}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
wrapper=/usr/local/bin/bpftrace27
if [ ! -x "$root/usr/bin/bpftrace" ]; then
	if ! command -v debootstrap >/dev/null; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
	fi
	[ -x "$root/bin/sh" ] || debootstrap --variant=minbase sid "$root" "$mirror" >/dev/null
	# sid's Release file may be past its Valid-Until on a mirror
	chroot "$root" /bin/sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Check-Valid-Until=false install -y -qq --no-install-recommends bpftrace >/dev/null"
fi
if [ ! -x "$wrapper" ]; then
	cat >"$wrapper" <<WRAP
#!/bin/sh
# bpftrace 0.27 from the chroot at $root, on the host kernel, in the caller's directory.
for d in proc sys dev tmp work; do
	[ -d /\$d ] || continue
	mkdir -p $root/\$d
	mountpoint -q $root/\$d || mount --rbind /\$d $root/\$d
done
exec chroot $root /bin/sh -c 'cd "\$0" 2>/dev/null || cd /; exec /usr/bin/bpftrace "\$@"' "\$PWD" "\$@"
WRAP
	chmod +x "$wrapper"
fi
"$wrapper" --version
