#!/usr/bin/env bash
# On-device smoke test, after deploy/install.sh:  sudo deploy/smoke-test.sh
#
# One line per check, PASS / FAIL / SKIP / INFO; exit status 1 when any check failed.
# Everything it looks at can be changed from the environment, so it also runs against a
# `yamscope serve` started by hand (the tests do this):
#
#   YAMSCOPE_URL      the page (default: from the configuration's server.host and port,
#                     else http://127.0.0.1:8600/)
#   YAMSCOPE_SERVICE  the systemd unit that must be active (default yamscope.service;
#                     empty: not checked)
#   YAMSCOPE_BIN      the yamscope command (default /opt/yamscope/venv/bin/yamscope)
#   YAMSCOPE_CONFIG   the configuration checked with validate-config
#                     (default /etc/yamscope/yamscope.toml; empty: not checked)
#   YAMSCOPE_PYTHON   the Python that lists cameras with picamera2 when rpicam-hello is
#                     missing (default: the python beside YAMSCOPE_BIN)
#   YAMSCOPE_REQUIRE_CAMERA=1   no camera listed is a failure (by default it is reported:
#                     without a camera the table runs on the simulated tray)
#   YAMSCOPE_TIMEOUT  seconds per HTTP request (default 10)
set -uo pipefail

SERVICE=${YAMSCOPE_SERVICE-yamscope.service}
BIN=${YAMSCOPE_BIN:-/opt/yamscope/venv/bin/yamscope}
CONFIG=${YAMSCOPE_CONFIG-/etc/yamscope/yamscope.toml}
PY=${YAMSCOPE_PYTHON:-$(dirname -- "$BIN")/python}
REQUIRE_CAMERA=${YAMSCOPE_REQUIRE_CAMERA:-0}
TIMEOUT=${YAMSCOPE_TIMEOUT:-10}

failed=0
pass() { printf 'PASS  %s\n' "$*"; }
fail() {
	printf 'FAIL  %s\n' "$*"
	failed=1
}
skip() { printf 'SKIP  %s\n' "$*"; }
info() { printf 'INFO  %s\n' "$*"; }
indent() { sed 's/^/      /'; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/yamscope-smoke.XXXXXX") || exit 1
trap 'rm -rf -- "$WORK"' EXIT

# -- the service ------------------------------------------------------------------------------
if [[ -z $SERVICE ]]; then
	skip "service (YAMSCOPE_SERVICE is empty)"
elif ! command -v systemctl >/dev/null; then
	fail "service $SERVICE: no systemctl on this machine (YAMSCOPE_SERVICE= to skip)"
else
	state=$(systemctl is-active "$SERVICE" 2>/dev/null)
	if [[ $state == active ]]; then
		pass "service $SERVICE is active"
	else
		fail "service $SERVICE is ${state:-unknown}: see journalctl -u $SERVICE -n 50"
	fi
fi

# -- the configuration --------------------------------------------------------------------------
if [[ -z $CONFIG ]]; then
	skip "configuration (YAMSCOPE_CONFIG is empty)"
elif [[ ! -x $BIN ]]; then
	fail "configuration: no yamscope command at $BIN (YAMSCOPE_BIN)"
elif [[ -e $CONFIG && ! -r $CONFIG ]]; then
	fail "configuration $CONFIG is not readable by $(id -un): run the smoke test with sudo"
elif "$BIN" validate-config "$CONFIG" >"$WORK/validate" 2>&1; then
	pass "configuration $CONFIG is valid"
	indent <"$WORK/validate" | tail -n +2
else
	fail "configuration $CONFIG: yamscope validate-config says"
	indent <"$WORK/validate"
fi

# -- the die-face model computes here as where it was exported -----------------------------------
if [[ ! -x $BIN ]]; then
	fail "die-face model: no yamscope command at $BIN (YAMSCOPE_BIN)"
elif "$BIN" check-model >"$WORK/check" 2>&1; then
	pass "$(cat "$WORK/check")"
else
	fail "die-face model: yamscope check-model says"
	indent <"$WORK/check"
fi

# -- the page and the API ---------------------------------------------------------------------
url=${YAMSCOPE_URL:-}
if [[ -z $url ]]; then
	host=127.0.0.1 port=8600
	if [[ -n $CONFIG && -r $CONFIG && -x $PY ]] && address=$("$PY" -c 'import sys
from device.config import load_config
s = load_config(sys.argv[1]).server
print(s.host, s.port)' "$CONFIG" 2>/dev/null); then
		read -r host port <<<"$address"
	fi
	case $host in 0.0.0.0 | :: | "[::]") host=127.0.0.1 ;; esac
	[[ $host == *:* && $host != \[* ]] && host="[$host]"
	url="http://$host:$port/"
fi
url=${url%/}
info "page $url/"

# fetch PATH: the body into $WORK/body, the status code on stdout ("000": no answer)
fetch() {
	curl -sS -o "$WORK/body" -w '%{http_code}' --max-time "$TIMEOUT" "$url$1" 2>"$WORK/curl"
}
is_json() {
	# a JSON object holding every key named
	python3 -c 'import json, sys
data = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(not isinstance(data, dict) or any(k not in data for k in sys.argv[2:]))' "$WORK/body" "$@" \
		2>/dev/null
}

if ! command -v curl >/dev/null; then
	fail "HTTP checks: no curl (sudo apt install curl)"
else
	code=$(fetch /)
	if [[ $code == 200 ]] && grep -qi '<html' "$WORK/body"; then
		pass "GET / answers 200 with the table page"
	elif [[ $code == 000 ]]; then
		fail "GET / : no answer ($(head -c 200 "$WORK/curl"))"
	else
		fail "GET / answers $code"
	fi

	for check in "/api/openapi.json openapi paths" "/api/state version game" \
		"/api/rules rules max_players" "/api/health version tray camera"; do
		read -r path keys <<<"$check"
		code=$(fetch "$path")
		# shellcheck disable=SC2086  # keys: several words on purpose
		if [[ $code == 200 ]] && is_json $keys; then
			pass "GET $path answers 200 with JSON"
		elif [[ $code == 200 ]]; then
			fail "GET $path answers 200 but not the JSON expected (keys: $keys)"
		elif [[ $code == 000 ]]; then
			fail "GET $path : no answer ($(head -c 200 "$WORK/curl"))"
		else
			fail "GET $path answers $code"
		fi
		if [[ $path == /api/health && $code == 200 ]]; then
			# what the service itself sees: its tray and its camera's state (a second process
			# cannot list a camera the service holds)
			seen=$(python3 -c 'import json, sys
h = json.load(open(sys.argv[1], encoding="utf-8"))
c = h.get("camera") or {}
print(h.get("version", "?"), h.get("tray", "?"), c.get("state", "none"), c.get("error") or "")
if h.get("camera"):
    k = c.get("calibration")
    print("calibration:", "none yet: with the tray empty, touch « Calibrer (piste vide) » on "
          "the page" if not k else "camera %s° across (%s), dice of %d px" % (
              k["field_of_view"], k["field_of_view_from"], k["die_side"]))' \
				"$WORK/body" 2>/dev/null)
			first=${seen%%$'\n'*}
			info "yamscope version, tray, camera state: ${first:-?}"
			if [[ $seen == *$'\n'* ]]; then
				info "${seen#*$'\n'}"
			fi
		fi
	done
fi

# -- the camera ---------------------------------------------------------------------------------
# Listing does not open a camera, but while the service has it open a second process may
# see none ("Pipeline handler in use by another process"): stop the service to be sure.
cameras=
lister=
for tool in rpicam-hello libcamera-hello; do
	if command -v "$tool" >/dev/null; then
		lister=$tool
		out=$(LIBCAMERA_LOG_LEVELS='*:3' timeout 20 "$tool" --list-cameras 2>&1)
		cameras=$(grep -E '^[[:space:]]*[0-9]+ : ' <<<"$out")
		break
	fi
done
if [[ -z $lister && -x $PY ]] && "$PY" -c 'import picamera2' 2>/dev/null; then
	lister="picamera2 (Picamera2.global_camera_info)"
	cameras=$(LIBCAMERA_LOG_LEVELS='*:3' timeout 20 "$PY" -c 'from picamera2 import Picamera2
for i, c in enumerate(Picamera2.global_camera_info()):
    print(i, ":", c.get("Model", "?"), c.get("Id", ""))' 2>/dev/null)
fi
if [[ -z $lister ]]; then
	if ((REQUIRE_CAMERA)); then
		fail "camera: neither rpicam-hello nor picamera2 is here to list cameras"
	else
		skip "camera: neither rpicam-hello nor picamera2 is here to list cameras"
	fi
elif [[ -n $cameras ]]; then
	pass "camera listed by $lister:"
	indent <<<"$cameras"
elif ((REQUIRE_CAMERA)); then
	fail "no camera listed by $lister (cable, camera_auto_detect=1 in /boot/firmware/config.txt)"
else
	info "no camera listed by $lister: the table runs on the simulated tray"
fi

if ((failed)); then
	echo "smoke test: FAILED"
	exit 1
fi
echo "smoke test: passed"
