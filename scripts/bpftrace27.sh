#!/bin/sh
# bpftrace27.sh [ROOT] installs the reference bpftrace for the differential
# check (cmd/btdiff): bpftrace 0.27.1, which Debian ships only in sid, in a
# minimal sid chroot at ROOT (default /opt/bt027) so that it does not touch
# this machine's packages, and /usr/local/bin/bpftrace27, which runs it
# against the host kernel from the caller's directory (/proc, /sys, /dev,
# /tmp, /work and the caller's directory are bind-mounted, in a mount
# namespace of its own, into the chroot). About 3 minutes and
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
# The wrapper is (re)written unless it is this version: an older one, or the
# one of /work/shared/bpftrace-0.27/setup.sh, does not mount the caller's
# directory, and a clone outside /tmp and /work (CI's) then cannot be seen.
# The wrapper is (re)written unless it is this version: an older one, or the
# one of /work/shared/bpftrace-0.27/setup.sh, does not mount the caller's
# directory, and a clone outside /tmp and /work (CI's) then cannot be seen.
if ! grep -q 'gotrace-bpftrace27-wrapper 3' "$wrapper" 2>/dev/null; then
	cat >"$wrapper" <<WRAP
#!/bin/sh
# gotrace-bpftrace27-wrapper 3: bpftrace 0.27 from the chroot at $root, on the
# host kernel, in the caller's directory. In a mount namespace of its own (so
# nothing stays mounted), /proc, /sys, /dev, /tmp, /work, the caller's
# directory and \$TMPDIR are bind-mounted at the same paths.
exec unshare --mount --propagation private /bin/sh -c '
root=\$1; shift
for d in /proc /sys /dev /tmp /work "\$PWD" "\${TMPDIR:-}"; do
	[ -n "\$d" ] && [ "\$d" != / ] && [ -d "\$d" ] || continue
	[ -d "\$root\$d" ] && [ "\$d" -ef "\$root\$d" ] && continue
	mkdir -p "\$root\$d" && mount --rbind "\$d" "\$root\$d" || exit 1
done
exec chroot "\$root" /bin/sh -c "cd \\"\\\$0\\" 2>/dev/null || cd /; exec /usr/bin/bpftrace \\"\\\$@\\"" "\$PWD" "\$@"
' sh $root "\$@"
WRAP
	chmod +x "$wrapper"
fi
"$wrapper" --version
