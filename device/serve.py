"""``yamscope serve``: one process, one table session, a threaded HTTP server.

Why werkzeug's threaded server and not a pool of workers: the table is one game with one
lock, and a camera can only be opened by one process; a few clients (the kiosk, some
phones) hold one thread each for their pushed states. No reloader: it would start a
second process.
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import sys
from pathlib import Path
from types import FrameType

CAMERAS = ("simulated",)
PIN_LENGTH = (4, 32)


class ServeError(ValueError):
    """A ``serve`` request that cannot be honoured (reported on one line, exit 2)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to the LAN


def check(host: str, pin: str | None, camera: str | None) -> None:
    """Refuse what would be unsafe or unsupported, before anything is opened."""
    if camera is not None and camera not in CAMERAS:
        raise ServeError(f"camera {camera!r} is not supported yet (only: {', '.join(CAMERAS)})")
    if pin is not None and not (
        PIN_LENGTH[0] <= len(pin) <= PIN_LENGTH[1] and pin.isprintable() and " " not in pin
    ):
        raise ServeError(f"--pin must be {PIN_LENGTH[0]} to {PIN_LENGTH[1]} characters, no spaces")
    if not is_loopback(host) and pin is None:
        raise ServeError(
            f"serving {host} makes the table reachable from the network: give --pin too"
        )


def serve(host: str, port: int, data: Path, pin: str | None, *, advice: bool = True) -> int:
    from werkzeug.serving import make_server

    from device.store import Store
    from device.table import TableSession
    from device.web import create_app

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    store = Store(data)
    session = TableSession(store, advice=advice)
    app = create_app(session, pin=pin)
    server = make_server(host, port, app, threaded=True)
    server.daemon_threads = True  # pushed-state clients never keep the process alive

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    shown = f"[{host}]" if ":" in host else host
    print(
        f"yamscope: serving http://{shown}:{server.server_port}/ (records: {data})",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        session.close()
    return 0
