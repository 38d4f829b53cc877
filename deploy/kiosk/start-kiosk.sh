#!/usr/bin/env bash
# Show the yamscope table page full screen: wait until the page answers, then chromium in
# kiosk mode. Started by the desktop session (/etc/xdg/autostart/yamscope-kiosk.desktop),
# installed by `deploy/install.sh --kiosk` as /opt/yamscope/kiosk/start-kiosk.sh.
#
#   YAMSCOPE_URL            the page (default http://127.0.0.1:8600/)
#   YAMSCOPE_KIOSK_WAIT     seconds to wait for it before showing chromium anyway (default 120)
#   YAMSCOPE_KIOSK_BROWSER  the browser (default: chromium-browser or chromium)
set -euo pipefail

url=${YAMSCOPE_URL:-http://127.0.0.1:8600/}
wait_s=${YAMSCOPE_KIOSK_WAIT:-120}

answers() {
	if command -v curl >/dev/null; then
		curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null
	else
		python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
			"$1" 2>/dev/null
	fi
}

# The service may still be starting at login (the advisor's first solve, a slow SD card).
# After wait_s chromium starts anyway: its error page says more than a black screen.
for ((i = 0; i < wait_s; i++)); do
	answers "$url" && break
	sleep 1
done

browser=${YAMSCOPE_KIOSK_BROWSER:-}
if [[ -z $browser ]]; then
	for b in chromium-browser chromium; do
		if command -v "$b" >/dev/null; then
			browser=$b
			break
		fi
	done
fi
[[ -n $browser ]] || {
	echo "start-kiosk.sh: no chromium-browser or chromium: sudo apt install chromium-browser" >&2
	exit 1
}

flags=(
	--kiosk
	--noerrdialogs
	--disable-infobars
	--check-for-update-interval=31536000
	--no-first-run
	# a power cut is not a crash to offer restoring
	--disable-session-crashed-bubble
	--hide-crash-restore-bubble
	# a touch screen: no pinch zoom, no swipe back out of the page
	--disable-pinch
	--overscroll-history-navigation=0
	# no keyring prompt on a desktop logged in automatically
	--password-store=basic
)
# Wayland (wayfire, labwc) natively when the session is one
[[ -n ${WAYLAND_DISPLAY:-} ]] && flags+=(--ozone-platform=wayland)

exec "$browser" "${flags[@]}" "$url"
