"""``yamscope serve``: one process, one table session, a threaded HTTP server.

Why werkzeug's threaded server and not a pool of workers: the table is one game with one
lock, and a camera can only be opened by one process; a few clients (the kiosk, some
phones) hold one thread each for their pushed states. No reloader: it would start a
second process.
"""

from __future__ import annotations

import logging
import signal
import stat
import sys
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from device import memory
from device.camera.frames import CameraError
from device.config import ConfigError, problems
from device.config_sections import CameraSource, Config, Server, parse_camera_source
from device.storage import Store, StoreDamaged, StoreError, is_url
from device.table import TableSession
from vision.errors import VisionError

if TYPE_CHECKING:
    from device.logbook import Logbook
    from device.power import Power
    from device.tray import TrayWatcher
    from device.web.server import TableServer

log = logging.getLogger(__name__)

CALIBRATION_FILE = "calibration.json"
ENROLMENT_FILE = "enrolment.json"  # the table's own dice (yamscope enrol), beside the calibration


def read_pin_file(path: Path) -> str:
    """The PIN kept in a file (its first line), so that it is not on the command line,
    where every user of the machine reads it (``ps``, /proc/PID/cmdline). Raises
    ConfigError; warns when other users may read the file."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > 1024:
            raise ConfigError([f"--pin-file {path}: not a small text file holding the PIN"])
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError([f"--pin-file {path}: no such file"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"--pin-file {path}: cannot be read ({exc})"]) from None
    if info.st_mode & 0o077:
        print(
            f"yamscope: warning: {path} can be read by other users: chmod 600 {path}",
            file=sys.stderr,
        )
    lines = text.splitlines()
    return lines[0].strip() if lines else ""


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


def backup_path(data: Path) -> Path:
    """Where the copy made at each start is kept: beside the records."""
    return data.with_name(data.name + ".backup")


def records_target(config: Config, data: str | None) -> str | Path:
    """Where the records are: ``--data`` (a file or a postgresql:// address), else the
    configuration's ``storage.url``, else yamscope.db in its data folder."""
    if data is None:
        return config.storage.records()
    return data if is_url(data) else Path(data)


def open_records(data: str | Path, table: str = "", photo_budget: int | None = None) -> Store:
    """The records, an SQLite file checked page by page first (SQLite's integrity check),
    then copied to its backup, or a club's PostgreSQL database. Raises StoreError with one
    line (StoreUnavailable when the server cannot be reached); a damaged file's names the
    backup to restore, which was made at the last start that found the file whole.
    ``photo_budget``: see :class:`Store`."""
    if is_url(data):
        return Store(data, table=table, photo_budget=photo_budget)
    data = Path(data)
    backup = backup_path(data)
    try:
        store = Store(data, check=True, table=table, photo_budget=photo_budget)
    except StoreDamaged as exc:
        raise StoreError(f"{exc}: {_restore_hint(data, backup)}") from None
    try:
        store.backup(backup)
    except (StoreError, OSError) as exc:
        log.warning("records: no backup made this time: %s", exc)
    return store


def _restore_hint(data: Path, backup: Path) -> str:
    if not backup.is_file():
        return f"there is no backup ({backup}); move the file away to start new records"
    made = datetime.fromtimestamp(backup.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return (
        f"restore the backup {backup} (made {made}): move {data.name} and its -wal and -shm "
        f"files away, then copy the backup to {data}"
    )


def enrol_table(recogniser: Any, path: Path) -> None:
    """Read with the table's own dice when they were enrolled; a damaged or foreign
    enrolment is said in the log, and the model's own head reads."""
    from vision.enrolment import BadEnrolmentError
    from vision.enrolment import load as load_enrolment

    if not path.exists():
        return
    try:
        recogniser.enrol(load_enrolment(path, recogniser.reader.path))
    except BadEnrolmentError as exc:
        log.warning("the model's own head reads the dice: %s", exc)
        return
    log.info("reading with the table's own dice (%s)", path)


def start_tray(
    session: TableSession, config: Config, source: CameraSource, data: str | Path
) -> Any:
    """The camera, the settle detector and the reader feeding the session (None for
    ``none``). Raises CameraError or VisionError with one readable line."""
    if source.kind == "none":
        session.tray = "none"
        return None
    from device.camera import CameraRunner, open_source
    from device.tray import TrayWatcher
    from vision import calibration as calibrations
    from vision.recognise import Recogniser

    frames = open_source(source, config.camera)
    beside = config.storage.data_dir if is_url(data) else Path(data).parent
    path = config.camera.calibration or beside / CALIBRATION_FILE
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
    enrol_table(recogniser, path.with_name(ENROLMENT_FILE))
    if tray is None:  # a real table's dice, learned from play (not a drawn tray's)
        from device.learning import PlayLearner

        session.learner = PlayLearner(recogniser.reader, path.with_name(ENROLMENT_FILE))
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
    data: str | Path,
    *,
    camera: CameraSource | None = None,
    advice: bool = True,
    config_path: Path | None = None,
) -> int:
    """Serve until stopped; the exit status (the owner's restart: see device/power.py).
    ``config_path``: the file the owner's settings page writes (default: device.settings')."""
    from device import logbook
    from device.web.security import common_pin

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    book = logbook.install()
    memory.limit_arenas()
    host, pin = server_settings.host, server_settings.pin
    try:
        store = open_records(
            data, config.table.table_name(), photo_budget=config.storage.photo_budget_mb * 2**20
        )
    except StoreError as exc:
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 2
    if pin is not None and common_pin(pin):
        print(
            "yamscope: warning: this PIN is among the first anyone tries (a run, a repeat, a "
            "year): choose another",
            file=sys.stderr,
        )
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
    server, power = _web_server(session, config, server_settings, data, config_path, book)
    _serve_until_stopped(server, host, store, session, watcher)
    restart = power.finish()  # the owner's restart: an exit status for systemd, or exec
    return restart if restart is not None else 0


def _web_server(
    session: TableSession,
    config: Config,
    server_settings: Server,
    data: str | Path,
    config_path: Path | None,
    book: Logbook,
) -> tuple[TableServer, Power]:
    """The table's app with the owner's pages, on its server; and the ``Power`` that the
    owner's restart and shut down go through."""
    from device.power import Power
    from device.settings import config_file
    from device.web import create_app
    from device.web.owner import Owner, install_owner
    from device.web.server import make_table_server

    host, port, pin = server_settings.host, server_settings.port, server_settings.pin
    app = create_app(
        session,
        pin=pin,
        max_players=config.table.max_players,
        language=config.table.language,
        default_rules=config.table.rules,
    )
    server = make_table_server(host, port, app)
    power = Power(stop=server.shutdown)
    owner = Owner(config, config_file(config_path), data, power, host, server.server_port)
    owner.pin, owner.logbook = pin, book
    install_owner(app, owner)
    return server, power


def _serve_until_stopped(
    server: TableServer, host: str, store: Store, session: TableSession, watcher: TrayWatcher | None
) -> None:
    """Serve until SIGTERM, Ctrl-C or the owner's restart; then stop the tray and the
    session (the records stay as the last action left them)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    shown = f"[{host}]" if ":" in host else host
    print(
        f"yamscope: serving http://{shown}:{server.server_port}/ (records: {store.where})",
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
