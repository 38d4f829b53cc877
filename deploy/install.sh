#!/usr/bin/env bash
# Install (or update) yamscope on Raspberry Pi OS Bookworm 64-bit, from this checkout:
#
#   sudo deploy/install.sh [--kiosk]
#
# What it does, each step only when it is not already right (a second run changes nothing):
#   1. apt: python3-picamera2 (--no-install-recommends), python3-venv, curl; with --kiosk
#      chromium-browser (or chromium)
#   2. a system user yamscope, in the group video (the camera's devices)
#   3. a virtual environment in /opt/yamscope/venv made with --system-site-packages (to see
#      apt's picamera2 and libcamera), and this checkout pip-installed into it with
#      deploy/constraints-pi.txt (numpy<2, opencv-python-headless<4.12)
#   4. /etc/yamscope/yamscope.toml from deploy/yamscope.example.toml, only when there is
#      none: an existing configuration is never overwritten, only checked
#   5. the systemd unit yamscope.service, enabled, (re)started when something changed
#   6. with --kiosk: chromium in kiosk mode on the desktop, once the page answers
# then prints the page's address. --dry-run prints every command instead of running it.
# Where systemd is not running (a chroot building an image, deploy/qemu-check.sh) the unit is
# installed and enabled, and starts at the next boot; nothing is started now.

set -euo pipefail

PROG=install.sh
usage() {
	cat <<EOF
usage: sudo deploy/install.sh [--kiosk] [--reinstall] [--constraints FILE] [--without-picamera2]
       deploy/install.sh --dry-run [--kiosk] [--root DIR]

Install or update yamscope from this checkout on Raspberry Pi OS Bookworm (64-bit):
packages, the user yamscope, /opt/yamscope/venv, /etc/yamscope/yamscope.toml (only if
absent), the systemd unit yamscope.service. Running it again changes only what is not
already right.

  --kiosk            also show the page full screen on the Pi's desktop (chromium kiosk)
  --dry-run          print each command instead of running it (needs neither root nor a Pi)
  --reinstall        pip-install the checkout even if the same source is installed
  --constraints FILE pip constraints (default: deploy/constraints-pi.txt, for Bookworm)
  --without-picamera2  on an arm64 Debian without Raspberry Pi OS's archive (a USB webcam,
                     the simulated tray, deploy/qemu-check.sh): no python3-picamera2
  --root DIR         with --dry-run: look for the installed files (configuration, unit,
                     venv) under DIR instead of /; packages, users and services are still
                     this machine's
  -h, --help         this help
EOF
}

say() { printf '%s\n' "$*"; }
step() { printf '\n==> %s\n' "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}

# -- options ----------------------------------------------------------------------------------
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
ARGS=("$@")
DRY_RUN=0
KIOSK=0
REINSTALL=0
PICAMERA2=1
ROOT=
CONSTRAINTS=$SRC/deploy/constraints-pi.txt
CONSTRAINTS_GIVEN=0
while (($#)); do
	case $1 in
	--kiosk) KIOSK=1 ;;
	--dry-run | -n) DRY_RUN=1 ;;
	--reinstall) REINSTALL=1 ;;
	--without-picamera2) PICAMERA2=0 ;;
	--constraints)
		(($# >= 2)) || die "--constraints needs a FILE"
		CONSTRAINTS=$(realpath -- "$2") || die "--constraints: no such file: $2"
		CONSTRAINTS_GIVEN=1
		shift
		;;
	--constraints=*)
		CONSTRAINTS=$(realpath -- "${1#*=}") || die "--constraints: no such file: ${1#*=}"
		CONSTRAINTS_GIVEN=1
		;;
	--root)
		(($# >= 2)) || die "--root needs a DIR"
		ROOT=$(realpath -- "$2") || die "--root: no such folder: $2"
		shift
		;;
	--root=*) ROOT=$(realpath -- "${1#*=}") || die "--root: no such folder: ${1#*=}" ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		die "unknown option: $1"
		;;
	esac
	shift
done
[[ -f $CONSTRAINTS ]] || die "no constraints file $CONSTRAINTS"
if [[ -n $ROOT ]]; then
	((DRY_RUN)) || die "--root is only for --dry-run (it does not install into another root)"
	[[ $ROOT == / ]] && ROOT=
fi

# -- where things go (the unit, the kiosk files and the README name these paths) ---------------
PREFIX=/opt/yamscope
VENV=$PREFIX/venv
YAMSCOPE=$VENV/bin/yamscope
STAMP=$PREFIX/installed-source.sha256
KIOSK_SCRIPT=$PREFIX/kiosk/start-kiosk.sh
ETC=/etc/yamscope
CONFIG=$ETC/yamscope.toml
UNIT=/etc/systemd/system/yamscope.service
AUTOSTART=/etc/xdg/autostart/yamscope-kiosk.desktop
SERVICE_USER=yamscope
STATE_DIR=/var/lib/yamscope
SYSTEM_PYTHON=/usr/bin/python3 # apt's picamera2 is built for this Python, not another one
# polkitd: the rule that lets the service power the machine off (the owner's page)
BASE_PACKAGES=(python3-venv curl polkitd)
POLKIT_RULE=/etc/polkit-1/rules.d/50-yamscope.rules
SYSTEMD_UP=1 # 0 in a chroot: the unit is installed and enabled, started at the next boot

# -- running, or printing, commands -------------------------------------------------------------
# Only `run` changes the system. Everything else reads (and is done in --dry-run too).
run() {
	if ((DRY_RUN)); then
		local quoted
		printf -v quoted ' %q' "$@"
		say "+${quoted}"
	else
		"$@"
	fi
}

# a path as seen by this run: under --root when it is given
at() { printf '%s%s' "$ROOT" "$1"; }

# $1 (a rendered file) differs from the installed $2
differs() { ! cmp -s -- "$1" "$(at "$2")"; }

# -- checks before anything changes -------------------------------------------------------------
preflight() {
	[[ $(uname -s) == Linux ]] || die "this installs on Raspberry Pi OS (Linux), not $(uname -s)"
	for f in pyproject.toml deploy/yamscope.service deploy/yamscope.example.toml deploy/yamscope-poweroff.rules \
		deploy/kiosk/start-kiosk.sh deploy/kiosk/yamscope-kiosk.desktop; do
		[[ -f $SRC/$f ]] || die "$SRC is not a whole yamscope checkout: no $f"
	done
	local codename=
	if [[ -r /etc/os-release ]]; then
		# shellcheck source=/dev/null
		codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
	fi
	if ((DRY_RUN)); then
		say "dry run: printing the commands that would change this machine, running none"
		[[ $codename == bookworm ]] || warn "this is not Bookworm (${codename:-unknown})"
		return
	fi
	((EUID == 0)) || die "run it as root: sudo $0 ${ARGS[*]}  (or --dry-run to see what it would do)"
	command -v apt-get >/dev/null || die "no apt-get: this is for Raspberry Pi OS (Debian)"
	if [[ ! -d /run/systemd/system ]]; then
		SYSTEMD_UP=0
		warn "systemd is not running (a chroot?): the service is installed and enabled," \
			"and starts at the next boot"
	fi
	[[ -x $SYSTEM_PYTHON ]] || die "no $SYSTEM_PYTHON"
	if [[ $codename != bookworm ]] && ((!CONSTRAINTS_GIVEN)); then
		die "this is ${codename:-an unknown release}, not Bookworm: deploy/constraints-pi.txt" \
			"(numpy<2) is for Bookworm's apt numpy 1.24. Write constraints that match this" \
			"release's apt numpy and pass them with --constraints FILE"
	fi
	case $(uname -m) in
	aarch64) ;;
	*) warn "this is $(uname -m), not 64-bit (aarch64): the wheels may have to be built" ;;
	esac
}

((PICAMERA2)) && BASE_PACKAGES=(python3-picamera2 "${BASE_PACKAGES[@]}")

# -- 1. packages ------------------------------------------------------------------------------
# (outputs captured, not piped into grep -q: with pipefail a writer cut short fails the test)
installed() { [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == *'install ok installed'* ]]; }
candidate() {
	local policy
	policy=$(apt-cache policy "$1" 2>/dev/null) || return 1
	[[ $policy == *"Candidate: "* && $policy != *"Candidate: (none)"* ]]
}

packages() {
	step "packages"
	local missing=() p chromium=
	for p in "${BASE_PACKAGES[@]}"; do
		installed "$p" || missing+=("$p")
	done
	if ((KIOSK)); then
		if installed chromium-browser || installed chromium; then
			:
		elif candidate chromium-browser; then
			chromium='chromium-browser' # Raspberry Pi OS Bookworm's name for it
		else
			chromium=chromium # Debian's, and Raspberry Pi OS's since 2025
		fi
	fi
	if ((${#missing[@]} == 0)) && [[ -z $chromium ]]; then
		say "already installed: ${BASE_PACKAGES[*]}$( ((KIOSK)) && printf ' chromium')"
		return
	fi
	run apt-get update
	if ((${#missing[@]})); then
		if ((!DRY_RUN && PICAMERA2)) && ! candidate python3-picamera2; then
			die "python3-picamera2 is not in this machine's apt sources: yamscope's camera" \
				"needs Raspberry Pi OS (its archive.raspberrypi.com repository)"
		fi
		# picamera2's own README: without the recommends it does not pull in the GUI
		# (Qt, OpenGL) it needs only for its preview windows
		run apt-get install -y --no-install-recommends "${missing[@]}"
	fi
	[[ -z $chromium ]] || run apt-get install -y "$chromium"
}

# -- 2. the service's user ----------------------------------------------------------------------
user() {
	step "user $SERVICE_USER"
	if ! getent passwd "$SERVICE_USER" >/dev/null; then
		run useradd --system --user-group --groups video --home-dir "$STATE_DIR" \
			--no-create-home --shell /usr/sbin/nologin --comment "yamscope dice table" \
			"$SERVICE_USER"
	elif [[ " $(id -nG "$SERVICE_USER") " != *' video '* ]]; then
		run usermod --append --groups video "$SERVICE_USER"
	else
		say "exists, in the group video"
	fi
}

# -- 3. the virtual environment and the code --------------------------------------------------
venv_is_right() {
	local cfg
	cfg=$(at "$VENV/pyvenv.cfg")
	[[ -f $cfg && (-e $(at "$VENV/bin/python") || -L $(at "$VENV/bin/python")) ]] || return 1
	grep -Eqi '^include-system-site-packages *= *true' "$cfg" || return 1
	# made by another Python (a release upgrade): its packages no longer load
	local made wanted
	made=$(sed -nE 's/^version(_info)? *= *([0-9]+\.[0-9]+).*/\2/p' "$cfg" | head -n1)
	wanted=$("$SYSTEM_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null ||
		true)
	[[ -z $wanted || $made == "$wanted" ]]
}

STAGE=
cleanup() { [[ -z $STAGE ]] || rm -rf -- "$STAGE"; }
trap cleanup EXIT

# A copy of the checkout's files (those git tracks or would track, as they are now): pip
# builds there, so root-owned build files never land in the user's checkout.
stage_source() {
	STAGE=$(mktemp -d "${TMPDIR:-/tmp}/yamscope-install.XXXXXX")
	chmod 0755 "$STAGE"
	if git -c safe.directory="$SRC" -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -c safe.directory="$SRC" -C "$SRC" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				if [[ -f $SRC/$f ]]; then printf '%s\0' "$f"; fi
			done |
			tar -C "$SRC" --null -T - -cf - | tar -C "$STAGE" -xf -
	else
		tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./data --exclude=./build \
			--exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ \
			--exclude=.pytest_cache --exclude=.ruff_cache --exclude=.hypothesis -cf - . |
			tar -C "$STAGE" -xf -
	fi
}

# what is installed: the staged files, the constraints and the Python
fingerprint() {
	{
		(cd "$STAGE" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		printf 'constraints\n'
		cat "$CONSTRAINTS"
		"$SYSTEM_PYTHON" --version 2>&1 || true
	} | sha256sum | cut -d' ' -f1
}

CODE_CHANGED=0
code() {
	step "virtual environment $VENV"
	local fresh=0
	if venv_is_right; then
		say "exists, with --system-site-packages"
	else
		if [[ -e $(at "$VENV") ]]; then
			say "$VENV was made without --system-site-packages or by another Python: remaking it"
			run rm -rf -- "$VENV"
		fi
		run install -d -m 0755 "$PREFIX"
		run "$SYSTEM_PYTHON" -m venv --system-site-packages "$VENV"
		fresh=1
	fi

	step "yamscope from $SRC"
	stage_source
	local fp old=
	fp=$(fingerprint)
	say "source fingerprint: $fp"
	[[ -r $(at "$STAMP") ]] && old=$(cat -- "$(at "$STAMP")")
	if ((!fresh && !REINSTALL)) && [[ $old == "$fp" ]]; then
		say "already installed from this source (--reinstall to install it again)"
		return
	fi
	CODE_CHANGED=1
	run env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
		"$VENV/bin/python" -m pip install --constraint "$CONSTRAINTS" "$STAGE"
	# the two things that break apt's picamera2 if they go wrong
	run "$VENV/bin/python" -c 'import numpy, sys
if int(numpy.__version__.split(".")[0]) >= 2:
    sys.exit(f"numpy {numpy.__version__} in the venv: picamera2 from apt needs numpy<2")' ||
		die "pip put numpy 2 in $VENV: check $CONSTRAINTS"
	if ((PICAMERA2)); then
		run "$VENV/bin/python" -c 'import picamera2, libcamera' ||
			die "$VENV does not see apt's picamera2 (python3-picamera2, --system-site-packages)"
	fi
	printf '%s\n' "$fp" >"$STAGE/.fingerprint"
	run install -m 0644 "$STAGE/.fingerprint" "$STAMP"
}

# -- 4. the configuration ---------------------------------------------------------------------
config() {
	step "configuration $CONFIG"
	# the owner's settings page writes the configuration: the folder is the service's group's
	# (a new file is renamed into place there), the unit's ReadWritePaths lets it write there
	if [[ $(stat -c '%a %U %G' -- "$(at "$ETC")" 2>/dev/null) != "770 root $SERVICE_USER" ]]; then
		run install -d -m 0770 -o root -g "$SERVICE_USER" "$ETC"
	fi
	if [[ -e $(at "$CONFIG") ]]; then
		say "exists: kept as it is (the example is $SRC/deploy/yamscope.example.toml)"
	else
		# readable by the service, not by every user (it may hold the PIN)
		run install -m 0640 -o root -g "$SERVICE_USER" "$SRC/deploy/yamscope.example.toml" "$CONFIG"
	fi
	# checked as the service's user: it must be able to read it, and every problem is named
	# before the service is (re)started on it
	if ((DRY_RUN)); then
		run runuser -u "$SERVICE_USER" -- "$YAMSCOPE" validate-config "$CONFIG"
	elif ! runuser -u "$SERVICE_USER" -- "$YAMSCOPE" validate-config "$CONFIG"; then
		die "$CONFIG has the problems above: fix them, then run $0 again"
	fi
}

# -- 5. the service ---------------------------------------------------------------------------
unit_enabled() {
	if [[ -n $ROOT ]]; then
		[[ -L $(at /etc/systemd/system/multi-user.target.wants/yamscope.service) ]]
	else
		systemctl is-enabled --quiet yamscope.service 2>/dev/null
	fi
}
unit_active() { [[ -z $ROOT ]] && systemctl is-active --quiet yamscope.service 2>/dev/null; }

service() {
	step "service yamscope.service"
	local changed=0
	if differs "$SRC/deploy/yamscope.service" "$UNIT"; then
		run install -m 0644 "$SRC/deploy/yamscope.service" "$UNIT"
		((SYSTEMD_UP)) && run systemctl daemon-reload
		changed=1
	else
		say "unit $UNIT up to date"
	fi
	# the owner's page may power the machine off (polkit asks logind on the service's behalf)
	if differs "$SRC/deploy/yamscope-poweroff.rules" "$POLKIT_RULE"; then
		run install -D -m 0644 "$SRC/deploy/yamscope-poweroff.rules" "$POLKIT_RULE"
	fi
	if unit_enabled; then
		say "enabled"
	else
		run systemctl enable yamscope.service
	fi
	if ((!SYSTEMD_UP)); then
		say "systemd is not running here: yamscope.service starts at the next boot"
	elif ((changed || CODE_CHANGED)); then
		run systemctl restart yamscope.service
	elif unit_active; then
		say "running"
	else
		run systemctl start yamscope.service
	fi
}

# -- 6. the kiosk -----------------------------------------------------------------------------
kiosk() {
	((KIOSK)) || return 0
	step "kiosk (chromium full screen on the desktop)"
	local changed=0
	if differs "$SRC/deploy/kiosk/start-kiosk.sh" "$KIOSK_SCRIPT"; then
		run install -D -m 0755 "$SRC/deploy/kiosk/start-kiosk.sh" "$KIOSK_SCRIPT"
		changed=1
	fi
	# /etc/xdg/autostart: the one place X, wayfire and labwc (Bookworm's desktops) all read
	if differs "$SRC/deploy/kiosk/yamscope-kiosk.desktop" "$AUTOSTART"; then
		run install -D -m 0644 "$SRC/deploy/kiosk/yamscope-kiosk.desktop" "$AUTOSTART"
		changed=1
	fi
	((changed)) || say "already installed: $KIOSK_SCRIPT, $AUTOSTART"
	if [[ -z $ROOT ]] && [[ $(systemctl get-default 2>/dev/null || true) != graphical.target ]]; then
		say "The Pi does not boot to the desktop: the kiosk starts with the desktop, so turn on"
		say "  sudo raspi-config nonint do_boot_behaviour B4    (desktop, logged in automatically)"
	fi
	say "It starts at the next desktop login (or reboot). To keep the screen on:"
	say "  sudo raspi-config nonint do_blanking 1"
}

# -- the address --------------------------------------------------------------------------------
HOST=127.0.0.1
PORT=8600
read_address() {
	# the configuration's, once the venv can read it
	local got
	if [[ -z $ROOT && -x $VENV/bin/python && -r $CONFIG ]] && got=$(
		"$VENV/bin/python" -c 'import sys
from device.config import load_config
c = load_config(sys.argv[1]).server
print(c.host, c.port)' "$CONFIG" 2>/dev/null
	); then
		read -r HOST PORT <<<"$got"
	fi
}

wait_for_page() {
	local local_host=$HOST
	case $HOST in 0.0.0.0 | :: | "[::]") local_host=127.0.0.1 ;; esac
	[[ $local_host == *:* && $local_host != \[* ]] && local_host="[$local_host]"
	local url="http://$local_host:$PORT/api/state"
	if ((DRY_RUN)); then
		run curl -fsS -o /dev/null --retry 30 --retry-delay 1 --retry-connrefused "$url"
		return
	fi
	local i
	for ((i = 0; i < 40; i++)); do
		curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
		sleep 1
	done
	journalctl -u yamscope.service -n 30 --no-pager >&2 || true
	die "the service did not answer on $url within 40 s (its log is above)"
}

show_address() {
	step "done"
	local shown=$HOST
	[[ $shown == *:* && $shown != \[* ]] && shown="[$shown]"
	case $HOST in
	0.0.0.0 | :: | "[::]")
		say "yamscope is serving on every network address, port $PORT:"
		say "  on this Pi:        http://127.0.0.1:$PORT/"
		local ip
		ip=$(hostname -I 2>/dev/null | awk '{print $1}') || true
		[[ -z $ip ]] || say "  on the network:    http://$ip:$PORT/"
		say "  by name:           http://$(hostname).local:$PORT/"
		;;
	*) say "yamscope: http://$shown:$PORT/" ;;
	esac
	say "configuration $CONFIG, records $STATE_DIR, log: journalctl -u yamscope"
	say "check it: sudo $SRC/deploy/smoke-test.sh"
}

main() {
	preflight
	# the service's user must not need to enter the user's home (0700 on Bookworm)
	cd /
	packages
	user
	code
	config
	service
	read_address
	((SYSTEMD_UP)) && wait_for_page
	kiosk
	show_address
}

main
