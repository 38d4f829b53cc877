"""``yamscope serve``: one process, one table session, a threaded HTTP server.

Why werkzeug's threaded server and not a pool of workers: the table is one game with one
lock, and a camera can only be opened by one process; a few clients (the kiosk, some
phones) hold one thread each for their pushed states. No reloader: it would start a
second process.
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from pydantic import ValidationError

from device import memory
from device.camera.frames import CameraError
from device.config import CameraSource, Config, ConfigError, Server, parse_camera_source, problems
from device.table import TableSession
from vision.errors import VisionError

log = logging.getLogger(__name__)

CALIBRATION_FILE = "calibration.json"


def settings(
    config: Config,
    *,
    host: str | None = None,
    port: int | None = None,
    pin: str | None = None,
    camera: str | None = None,
) -> tuple[Server, str]:
    """The server settings and camera source: the configuration, then the command line.

    The command line goes through the configuration's own checks (a PIN off loopback,
    its form), so both ways of asking are refused alike. Raises ConfigError.
    """
    wanted = config.server.model_dump()
    wanted |= {k: v for k, v in {"host": host, "port": port, "pin": pin}.items() if v is not None}
    try:
        server = Server.model_validate(wanted)
    except ValidationError as exc:
        raise ConfigError([f"server.{line}" for line in problems(exc)]) from None
    spec = camera if camera is not None else config.camera.source
    try:
        source = parse_camera_source(spec)
    except ValueError as exc:
        raise ConfigError([f"camera: {exc}"]) from None
    return server, source


def start_tray(session: TableSession, config: Config, source: CameraSource, data: Path) -> Any:
    """The camera, the settle detector and the reader feeding the session (None for
    ``none``). Raises CameraError or VisionError with one readable line."""
    if source.kind == "none":
        return None
    from device.camera import CameraRunner, open_source
    from device.tray import TrayWatcher
    from vision import calibration as calibrations
    from vision.recognise import Recogniser

    frames = open_source(source, config.camera)
    path = config.camera.calibration or data.parent / CALIBRATION_FILE
    calibration = calibrations.load(path) if path.exists() else None
    tray = getattr(frames, "tray", None)
    told = "file"
    if calibration is None and tray is not None:  # the simulated tray calibrates itself
        import numpy as np

        from device.camera.simulated_source import calibrate_tray

        calibration, told = calibrate_tray(tray, np.random.default_rng(0)), "camera"
    runner = CameraRunner(frames, watchdog_seconds=config.camera.watchdog_seconds)
    lock = config.camera.lock_exposure_after_calibration
    recogniser = Recogniser(calibration)
    if recogniser.check_model() is not None:
        log.warning("every die will be flagged unsure: %s", recogniser.distrust)
    watcher = TrayWatcher(
        session,
        runner,
        recogniser,
        snapshots=config.storage.snapshots,
        lock_exposure=calibration is not None and lock,
        lock_after_calibrating=lock,
        # a simulated table is drawn anew at each start: its calibration is not kept
        calibration_path=path if tray is None else None,
        field_of_view=config.camera.field_of_view,
        field_of_view_from=told,
    )
    session.tray = str(source) if source.kind != "auto" else f"auto:{frames.name}"
    session.watcher = watcher
    watcher.start()
    return watcher


def serve(
    config: Config,
    server_settings: Server,
    data: Path,
    *,
    camera: CameraSource | None = None,
    advice: bool = True,
) -> int:
    from werkzeug.serving import make_server

    from device.store import Store
    from device.web import create_app

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    memory.limit_arenas()
    host, port, pin = server_settings.host, server_settings.port, server_settings.pin
    store = Store(data, photo_budget=config.storage.photo_budget_mb * 2**20)
    session = TableSession(
        store,
        advice=advice,
        cache_dir=config.advisor.cache_dir,
        computer_pace=config.table.computer_pace,
    )
    try:
        watcher = start_tray(session, config, camera or CameraSource("none"), data)
        memory.trim()  # the models' loading and a calibration freed more than they keep
    except (CameraError, VisionError) as exc:
        session.close()
        print(f"yamscope: {exc}", file=sys.stderr)
        return 1
    app = create_app(
        session,
        pin=pin,
        max_players=config.table.max_players,
        language=config.table.language,
        default_rules=config.table.rules,
    )
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
        if watcher is not None:
            watcher.stop()
        session.close()
    return 0
