#!/usr/bin/env bash
# The Raspberry Pi install path run for real, on any Debian machine: an arm64 Debian Bookworm
# made with debootstrap and run through qemu-user, then in it, as on a Pi:
#
#   sudo deploy/qemu-check.sh [--root DIR] [--mirror URL] [--fresh]
#
#   1. the host's tools (apt: qemu-user-static, debootstrap, binfmt-support), arm64 binaries
#      run through binfmt_misc
#   2. debootstrap an arm64 Bookworm into DIR (kept: a second run starts from it; --fresh
#      makes it again)
#   3. deploy/install.sh --without-picamera2 in it (Debian has no python3-picamera2: that is
#      Raspberry Pi OS's archive), with pip fetching the arm64 wheels
#   4. systemd-analyze verify on the installed unit, in the arm64 system
#   5. yamscope serve as the service's user, as the unit runs it, on the simulated tray
#   6. deploy/smoke-test.sh against it, then one game: a throw read by the camera pipeline
#      (the detector and die-face models on arm64 onnxruntime)
#
# One PASS/FAIL line per step with its time; exit status 1 when any failed. Needs root
# (debootstrap, chroot, mounts) and the network to the Debian mirror and PyPI; about 20-40
# minutes on two cores, most of it emulated dpkg and pip. What it proves and what only a
# real Pi can: deploy/README.md.
set -uo pipefail

ROOTFS=/var/tmp/yamscope-qemu/rootfs
MIRROR=http://deb.debian.org/debian
SUITE=bookworm
FRESH=0
while (($#)); do
	case $1 in
	--root)
		ROOTFS=$2
		shift
		;;
	--mirror)
		MIRROR=$2
		shift
		;;
	--fresh) FRESH=1 ;;
	-h | --help)
		sed -n '2,21p' "$0"
		exit 0
		;;
	*)
		printf 'qemu-check.sh: unknown option: %s\n' "$1" >&2
		exit 2
		;;
	esac
	shift
done

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LOG=$(dirname -- "$ROOTFS")/qemu-check.log
failed=0
began=$SECONDS
now() { printf '%4ds' $((SECONDS - began)); }
pass() { printf 'PASS  %s  %s\n' "$(now)" "$*"; }
fail() {
	printf 'FAIL  %s  %s (log: %s)\n' "$(now)" "$*" "$LOG"
	failed=1
}
die() {
	fail "$*"
	exit 1
}
in_arm() { chroot "$ROOTFS" "$@"; }

((EUID == 0)) || {
	printf 'qemu-check.sh: run it as root (debootstrap, chroot and mounts need it)\n' >&2
	exit 2
}
mkdir -p -- "$(dirname -- "$ROOTFS")"
: >"$LOG"

# -- 1. the host's tools --------------------------------------------------------------------
missing=()
for p in qemu-user-static debootstrap binfmt-support; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	{ apt-get update && apt-get install -y "${missing[@]}"; } >>"$LOG" 2>&1 ||
		die "apt-get install ${missing[*]}"
fi
[[ -e /proc/sys/fs/binfmt_misc/register ]] ||
	mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc >>"$LOG" 2>&1
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] ||
	update-binfmts --enable qemu-aarch64 >>"$LOG" 2>&1 ||
	die "arm64 binaries cannot run here: no binfmt_misc entry for qemu-aarch64"
pass "host: qemu-user-static, debootstrap, binfmt for aarch64"

# -- 2. an arm64 Debian --------------------------------------------------------------------------
MARK=$ROOTFS/.yamscope-debootstrapped
if ((FRESH)) || [[ ! -e $MARK ]]; then
	rm -rf -- "$ROOTFS"
	t0=$SECONDS
	if debootstrap --arch=arm64 --variant=minbase \
		--include=python3,python3-venv,ca-certificates,curl,systemd,git \
		"$SUITE" "$ROOTFS" "$MIRROR" >>"$LOG" 2>&1; then
		touch "$MARK"
		pass "debootstrap arm64 $SUITE from $MIRROR ($((SECONDS - t0)) s)"
	else
		die "debootstrap arm64 $SUITE from $MIRROR"
	fi
else
	pass "arm64 $SUITE already in $ROOTFS (--fresh to make it again)"
fi
[[ $(in_arm uname -m) == aarch64 ]] || die "the chroot does not run as aarch64"

# the checkout, as install.sh stages it (the files git tracks or would track)
rm -rf -- "$ROOTFS/src/yamscope"
mkdir -p -- "$ROOTFS/src/yamscope"
git -c safe.directory="$SRC" -C "$SRC" ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [[ -f $SRC/$f ]] && printf '%s\0' "$f"; done |
	tar -C "$SRC" --null -T - -cf - | tar -C "$ROOTFS/src/yamscope" -xf -

mounted=()
# shellcheck disable=SC2329  # run by the EXIT trap
cleanup() {
	[[ -n ${SERVE_PID:-} ]] && kill "$SERVE_PID" 2>/dev/null
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l -- "${mounted[i]}" 2>/dev/null; done
}
trap cleanup EXIT
# not /sys: the host's (x86) sysfs read by arm64 code under qemu-user is no ARM machine's,
# and onnxruntime's CPU probe crashes on it; without it, it only warns
for m in proc dev dev/pts; do
	mountpoint -q "$ROOTFS/$m" && continue
	case $m in
	proc) mount -t proc proc "$ROOTFS/proc" ;;
	*) mount --bind "/$m" "$ROOTFS/$m" ;;
	esac && mounted+=("$ROOTFS/$m")
done
cp -L /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
# a host behind a TLS-inspecting proxy trusts its own authorities: so must pip in the chroot
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
	cp /usr/local/share/ca-certificates/*.crt "$ROOTFS/usr/local/share/ca-certificates/"
	in_arm update-ca-certificates >>"$LOG" 2>&1 || fail "update-ca-certificates in the chroot"
fi

# -- 3. install.sh ------------------------------------------------------------------------------
t0=$SECONDS
if in_arm env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	/src/yamscope/deploy/install.sh --without-picamera2 >>"$LOG" 2>&1; then
	pass "deploy/install.sh --without-picamera2 ($((SECONDS - t0)) s)"
else
	die "deploy/install.sh --without-picamera2 ($((SECONDS - t0)) s)"
fi
t0=$SECONDS
if in_arm env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	/src/yamscope/deploy/install.sh --without-picamera2 >"$LOG.second" 2>&1 &&
	grep -q 'already installed from this source' "$LOG.second"; then
	pass "install.sh again: nothing to do ($((SECONDS - t0)) s)"
else
	fail "install.sh again did more than check"
fi
cat "$LOG.second" >>"$LOG"

# -- 4. the unit --------------------------------------------------------------------------------
if in_arm systemd-analyze verify /etc/systemd/system/yamscope.service >"$LOG.verify" 2>&1 &&
	! grep -q 'yamscope.service' "$LOG.verify"; then
	pass "systemd-analyze verify yamscope.service (systemd $(in_arm systemctl --version | head -n1 | cut -d' ' -f2), arm64)"
else
	fail "systemd-analyze verify yamscope.service: $(grep yamscope.service "$LOG.verify" | head -n3)"
fi
cat "$LOG.verify" >>"$LOG"

# -- 5. yamscope serve, as the unit runs it ------------------------------------------------------
# systemd's StateDirectory= and CacheDirectory= would make these at start
in_arm install -d -m 0750 -o yamscope -g yamscope /var/lib/yamscope
in_arm install -d -m 0750 -o yamscope -g yamscope /var/cache/yamscope
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT/
t0=$SECONDS
chroot --userspec=yamscope:yamscope "$ROOTFS" env -i PATH=/usr/bin:/bin HOME=/var/lib/yamscope \
	YAMSCOPE_DATA_DIR=/var/lib/yamscope YAMSCOPE_CACHE_DIR=/var/cache/yamscope \
	PYTHONUNBUFFERED=1 /opt/yamscope/venv/bin/yamscope serve --config /etc/yamscope/yamscope.toml \
	--port "$PORT" --camera simulated >"$LOG.serve" 2>&1 &
SERVE_PID=$!
up=0
for ((i = 0; i < 600; i++)); do
	curl -fsS -o /dev/null --max-time 5 "${URL}api/state" 2>/dev/null && up=1 && break
	kill -0 "$SERVE_PID" 2>/dev/null || break
	sleep 1
done
if ((up)); then
	pass "yamscope serve on the simulated tray answers on $URL ($((SECONDS - t0)) s to start)"
else
	fail "yamscope serve did not answer: $(tail -n 3 "$LOG.serve")"
fi

# -- 6. the smoke test, and one throw read by the pipeline ---------------------------------------
if ((up)); then
	if in_arm env -i PATH=/usr/bin:/bin YAMSCOPE_URL="$URL" YAMSCOPE_SERVICE= YAMSCOPE_TIMEOUT=60 \
		/src/yamscope/deploy/smoke-test.sh >"$LOG.smoke" 2>&1; then
		pass "deploy/smoke-test.sh: $(grep -c '^PASS' "$LOG.smoke") checks passed"
	else
		fail "deploy/smoke-test.sh: $(grep '^FAIL' "$LOG.smoke" | head -n 3 | tr '\n' ' ')"
	fi
	sed 's/^/      /' "$LOG.smoke"
	t0=$SECONDS
	if in_arm /usr/bin/python3 /src/yamscope/deploy/qemu-throw.py "$URL" >"$LOG.throw" 2>&1; then
		pass "a game on the simulated tray: $(tail -n 1 "$LOG.throw") ($((SECONDS - t0)) s)"
	else
		fail "a throw read on the simulated tray: $(tail -n 2 "$LOG.throw" | tr '\n' ' ')"
	fi
fi
cat "$LOG.serve" "$LOG.smoke" "$LOG.throw" >>"$LOG" 2>/dev/null

printf '%s  total %d s\n' "$( ((failed)) && echo FAILED || echo PASSED)" $((SECONDS - began))
exit "$failed"
