"""The owner's pages (``/owner``) and their JSON under ``/api/owner/``: the first-run wizard,
settings, health, the log, backup and restore, restart and shut down, the phones' QR code.

Why a blueprint of its own, given what it needs by ``install_owner``: the table page works
without an owner (tests, a kiosk's second screen); ``yamscope serve`` adds this with the
configuration file, the records and the process it may restart. Changing actions pass the
table's guard (page token, PIN, JSON) as every other; reading the settings and the log also
needs the PIN when one is set (they say how the table is set up); the pictures (QR code,
the lesson's photos) do not, an ``<img>`` cannot send it. Request bodies are pydantic
models: a body that is not one is a 400 naming what is wrong, and nothing changes.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr
from pydantic import ValidationError as BodyError

from device import backup, health, join, settings
from device.config import ConfigError
from device.config_sections import Config
from device.logbook import Logbook
from device.power import Power, PowerRefused, under_unit
from device.storage import is_url
from device.web.security import PIN_HEADER, common_pin, same
from scoring.rulebooks import RULEBOOKS

log = logging.getLogger(__name__)
STATIC = {"owner.js": "text/javascript", "owner.css": "text/css"}
MARKER = "setup.json"  # beside the calibration: the wizard was finished once
PUBLIC = frozenset({"owner.page", "owner.join_svg", "owner.lesson_photo", "owner.status"})


class Refused(Exception):
    """An owner action refused: one English line, the same in French, an HTTP status."""

    def __init__(self, message: str, french: str, status: int = 409) -> None:
        super().__init__(message)
        self.french = french
        self.status = status


# -- request bodies ------------------------------------------------------------------------------
class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


Value = StrictBool | StrictInt | StrictFloat | StrictStr | None


class SettingsBody(Body):
    values: dict[str, Value]


class PinBody(Body):
    pin: StrictStr | None
    phones: StrictBool = False


class Confirmed(Body):
    confirm: Literal[True]


class LessonBody(Body):
    rules: Literal["impossible", "yams", "yahtzee", "cameroun"]


class Empty(Body):
    pass


# -- what serve gives ----------------------------------------------------------------------------
@dataclass
class Owner:
    """The appliance as its owner's pages see it."""

    config: Config
    config_path: Path
    records: str | Path
    power: Power
    host: str
    port: int
    pin: str | None = None
    logbook: Logbook | None = None
    lesson: Any = None  # device.teach.Lesson while the owner teaches the dice
    _reader: Any = field(default=None, repr=False)

    @property
    def folder(self) -> Path:
        """Where the calibration, the enrolment and the wizard's mark are kept."""
        if self.config.camera.calibration is not None:
            return self.config.camera.calibration.parent
        if is_url(self.records):
            return self.config.storage.data_dir
        return Path(self.records).parent

    @property
    def enrolment_path(self) -> Path:
        from device.serve import CALIBRATION_FILE, ENROLMENT_FILE

        calibration = self.config.camera.calibration or self.folder / CALIBRATION_FILE
        return calibration.with_name(ENROLMENT_FILE)

    @property
    def setup_done(self) -> bool:
        return (self.folder / MARKER).exists()


def install_owner(app: Flask, owner: Owner) -> None:
    """Add the owner's pages to the table's app."""
    app.extensions["yamscope.owner"] = owner
    app.register_blueprint(build_owner())


def _owner() -> Owner:
    return current_app.extensions["yamscope.owner"]


def _session() -> Any:
    return current_app.extensions["yamscope.session"]


def _watcher() -> Any:
    return _session().watcher


def _body(model: type[Body]) -> Any:
    data = request.get_json(silent=True)
    if data is None:
        raise Refused("the body must be JSON", "le corps doit être du JSON", 400)
    try:
        return model.model_validate(data)
    except BodyError as exc:
        said = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        raise Refused(said, f"requête refusée : {said}", 400) from None


def _answer(data: Any, status: int = 200) -> Response:
    response = jsonify(data)
    response.status_code = status
    return response


def _static() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("device.web") / "static"
    out = {}
    for name in STATIC:
        data = (folder / name).read_bytes()
        out[name] = (data, hashlib.sha256(data).hexdigest()[:12])
    return out


def build_owner() -> Blueprint:
    bp = Blueprint("owner", __name__)
    static = _static()

    @bp.app_context_processor
    def first_run() -> dict[str, Any]:
        owner = current_app.extensions.get("yamscope.owner")
        return {"owner_first_run": owner is not None and not owner.setup_done}

    @bp.before_request
    def pin_for_reading() -> Response | None:
        """GETs of the settings and the log need the PIN too (POSTs passed the table's guard)."""
        owner = _owner()
        if request.method != "GET" or owner.pin is None or request.endpoint in PUBLIC:
            return None
        if not request.path.startswith("/api/owner/"):  # the page and its files
            return None
        brake = current_app.extensions["yamscope.brake"]
        client = request.remote_addr or "?"
        why = brake.blocked(client)
        if why is not None:
            return _refusal(Refused(why, why, 429))
        if not same(request.headers.get(PIN_HEADER), owner.pin):
            brake.failed(client)
            return _refusal(Refused("missing or wrong PIN", "PIN absent ou faux", 403))
        return None

    @bp.errorhandler(Refused)
    def refused(exc: Refused) -> Response:
        return _refusal(exc)

    # -- the page ---------------------------------------------------------------------------
    @bp.get("/owner")
    def page() -> str:
        owner = _owner()
        boot = {
            "token": current_app.extensions["yamscope.token"],
            "pin": owner.pin is not None,
            "language": owner.config.table.language,
            "rules": owner.config.table.rules,
            "rulebooks": list(RULEBOOKS),
            "setup_done": owner.setup_done,
        }
        versions = {name: digest for name, (_, digest) in static.items()}
        return render_template("owner.html", boot=boot, versions=versions)

    for name in STATIC:

        def asset(n: str = name) -> Response:
            data, digest = static[n]
            response = Response(data, mimetype=STATIC[n])
            response.set_etag(digest)
            response.headers["Cache-Control"] = "no-cache"
            return response.make_conditional(request)

        bp.add_url_rule(f"/static/{name}", name.replace(".", "_"), asset)

    @bp.get("/api/owner/status")
    def status() -> Response:
        owner, watcher = _owner(), _watcher()
        session = _session()
        return _answer(
            {
                "setup_done": owner.setup_done,
                "pin": owner.pin is not None,
                "host": owner.host,
                "port": owner.port,
                "config": str(owner.config_path),
                "records": "postgresql" if is_url(owner.records) else "sqlite",
                "camera": watcher is not None,
                "tray": session.tray,
                "simulated": watcher is not None
                and callable(getattr(watcher.runner.source, "throw", None)),
                "restart": owner.power.how_restart(),
                "can_shut_down": under_unit(owner.power.cgroup),
                "lesson": owner.lesson.state() if owner.lesson is not None else None,
                "enrolment": _enrolled(watcher),
            }
        )

    @bp.post("/api/owner/setup-done")
    def setup_done() -> Response:
        _body(Empty)
        owner = _owner()
        marker = owner.folder / MARKER
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text('{"setup": "done"}\n', encoding="utf-8")
        return _answer({"setup_done": True})

    # -- settings ---------------------------------------------------------------------------
    @bp.get("/api/owner/settings")
    def read_settings() -> Response:
        owner = _owner()
        try:
            config = settings.current(owner.config_path)
        except ConfigError as exc:
            raise Refused(str(exc), f"le fichier de réglages a des problèmes : {exc}") from None
        shown = [vars(f) for f in settings.fields(config)]
        return _answer(
            {"path": str(owner.config_path), "fields": shown, "live": sorted(settings.LIVE_KEYS)}
        )

    @bp.post("/api/owner/settings")
    def write_settings() -> Response:
        body = _body(SettingsBody)
        if any(key in settings.SECRET_KEYS for key in body.values):
            raise Refused(
                "the PIN is set on its own (/api/owner/pin)", "le PIN se règle à part", 400
            )
        return _answer(_save(body.values))

    @bp.post("/api/owner/pin")
    def set_pin() -> Response:
        body = _body(PinBody)
        wanted: dict[str, Any] = {"server.pin": body.pin or None}
        if body.phones:
            wanted["server.host"] = "0.0.0.0"
        elif body.pin is None:
            wanted["server.host"] = None  # no PIN: this machine only
        saved = _save(wanted)
        return _answer(saved | {"common": body.pin is not None and common_pin(body.pin)})

    # -- health and the log -----------------------------------------------------------------
    @bp.get("/api/owner/health")
    def read_health() -> Response:
        owner, watcher = _owner(), _watcher()
        if watcher is None and owner._reader is None:
            from vision.faces import DEFAULT_MODEL, FaceReader

            try:
                owner._reader = FaceReader(DEFAULT_MODEL)
            except Exception as exc:  # a missing or damaged model is what this page reports
                log.warning("health: the die-face model cannot be loaded: %s", exc)
        reader = watcher.recogniser.reader if watcher is not None else owner._reader
        folder = (
            owner.config.storage.data_dir if is_url(owner.records) else Path(owner.records).parent
        )
        return _answer(health.report(watcher, folder, reader))

    @bp.get("/api/owner/log")
    def read_log() -> Response:
        owner = _owner()
        after = request.args.get("after", "0")
        if not after.isdigit():
            raise Refused("after must be a line number", "after doit être un numéro de ligne", 400)
        lines = owner.logbook.lines(int(after)) if owner.logbook is not None else []
        return _answer({"lines": lines})

    # -- records ------------------------------------------------------------------------------
    @bp.post("/api/owner/backup")
    def make_backup() -> Response:
        _body(Empty)
        store = _session().store
        if store.path is None:
            raise Refused(backup.PG_DUMP, PG_DUMP_FR)
        copy = backup.backup_file(store)
        data = copy.read_bytes()
        copy.unlink(missing_ok=True)
        from datetime import datetime

        name = f"yamscope-{datetime.now():%Y%m%d-%H%M}.db"
        response = Response(data, mimetype="application/vnd.sqlite3")
        response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @bp.post("/api/owner/restore")
    def restore() -> Response:
        if request.headers.get("X-Yamscope-Confirm") != "restore":
            raise Refused(
                "a restore replaces every record: confirm it (X-Yamscope-Confirm: restore)",
                "une restauration remplace tous les scores : confirmez-la",
                400,
            )
        if request.mimetype != "application/octet-stream":
            raise Refused(
                "send the file as application/octet-stream",
                "envoyez le fichier en application/octet-stream",
                415,
            )
        session = _session()
        store = session.store
        if store.path is None:
            raise Refused(backup.PG_DUMP, PG_DUMP_FR)
        request.max_content_length = backup.MAX_RESTORE
        stream = request.stream
        chunks = iter(lambda: stream.read(backup.CHUNK), b"")
        try:
            received = backup.receive(chunks, store.path.parent)
            try:
                done = backup.restore(store, received)
            finally:
                received.unlink(missing_ok=True)
        except backup.BadRestore as exc:
            raise Refused(
                f"the records were not replaced: {exc}",
                f"les scores n'ont pas été remplacés : {exc}",
                400,
            ) from None
        log.warning("records restored from an uploaded file (%s games); restarting", done["games"])
        how = _owner().power.restart()
        return _answer(done | {"restart": how})

    # -- power -------------------------------------------------------------------------------
    @bp.post("/api/owner/restart")
    def restart() -> Response:
        _body(Confirmed)
        log.warning("restart asked from the owner's page")
        return _answer({"restart": _owner().power.restart()})

    @bp.post("/api/owner/shutdown")
    def shutdown() -> Response:
        _body(Confirmed)
        try:
            _owner().power.shutdown()
        except PowerRefused as exc:
            raise Refused(
                str(exc),
                "ce yamscope n'est pas le service installé (yamscope.service) : il n'éteint pas "
                "la machine ; éteignez-la comme d'habitude (sudo poweroff)"
                if "not the installed service" in str(exc)
                else f"extinction refusée : {exc}",
            ) from None
        return _answer({"shutdown": True})

    # -- phones -------------------------------------------------------------------------------
    @bp.get("/api/owner/join")
    def join_info() -> Response:
        owner = _owner()
        found = join.join(owner.host, owner.port)
        french = None
        if found.why_not is not None:
            french = (
                "la table ne répond que sur cette machine : ouvrez-la aux téléphones dans les "
                "réglages (un PIN et l'adresse 0.0.0.0), puis redémarrez"
                if "only on this machine" in found.why_not
                else "cette machine n'a pas d'adresse sur un réseau"
            )
        return _answer(vars(found) | {"why_not_fr": french})

    @bp.get("/api/owner/join.svg")
    def join_svg() -> Response:
        owner = _owner()
        found = join.join(owner.host, owner.port)
        if found.url is None:
            return _refusal(Refused(found.why_not or "", found.why_not or "", 404))
        response = Response(join.qr_svg(found.url), mimetype="image/svg+xml")
        response.headers["Cache-Control"] = "no-store"
        return response

    # -- « Apprendre mes dés » ----------------------------------------------------------------
    @bp.post("/api/owner/lesson")
    def lesson_start() -> Response:
        from device.teach import Lesson  # the fit's modules: loaded when first used

        body = _body(LessonBody)
        owner, watcher = _owner(), _watcher()
        if watcher is None:
            raise Refused(
                "no camera: there are no dice to learn", "pas de caméra : aucun dé à apprendre"
            )
        if owner.lesson is not None:
            owner.lesson.end()
        owner.lesson = Lesson(watcher, body.rules, owner.enrolment_path)
        watcher.lesson = owner.lesson
        return _answer(owner.lesson.state(), 201)

    @bp.post("/api/owner/lesson/<action>")
    def lesson_step(action: str) -> Response:
        from device.teach import TeachRefused

        _body(Empty)
        owner = _owner()
        lesson = owner.lesson
        if lesson is None:
            raise Refused("no lesson: start one", "aucun apprentissage en cours : commencez-en un")
        try:
            if action == "photo":
                if _watcher().lesson is not lesson:
                    raise TeachRefused(
                        "the lesson was left alone too long: start again",
                        "l'apprentissage a été laissé trop longtemps : recommencez",
                    )
                return _answer(lesson.take())
            if action == "undo":
                return _answer(lesson.drop_last())
            if action == "finish":
                return _answer(lesson.finish())
            if action == "cancel":
                lesson.end()
                owner.lesson = None
                return _answer({"cancelled": True})
        except TeachRefused as exc:
            raise Refused(str(exc), exc.french) from None
        raise Refused(f"no such step: {action}", f"étape inconnue : {action}", 404)

    @bp.get("/api/owner/lesson/<int:index>.jpg")
    def lesson_photo(index: int) -> Response:
        lesson = _owner().lesson
        if lesson is None or not 0 <= index < len(lesson.shots):
            return _refusal(Refused("no such photo", "pas de telle photo", 404))
        response = Response(lesson.shots[index].photo, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
        return response

    return bp


PG_DUMP_FR = (
    "ces scores sont une base PostgreSQL : sauvegardez-la avec pg_dump et restaurez-la avec "
    "pg_restore sur le serveur (docs/records.md)"
)


def _refusal(exc: Refused) -> Response:
    return _answer({"error": str(exc), "error_fr": exc.french, "status": exc.status}, exc.status)


def _enrolled(watcher: Any) -> dict[str, int] | None:
    enrolment = watcher.recogniser.reader.enrolment if watcher is not None else None
    return {str(k): v for k, v in enrolment.examples().items()} if enrolment else None


def _save(wanted: dict[str, Any]) -> dict[str, Any]:
    """Write the settings file with these changes and apply at once those a running table
    takes; a refused change is a 400 listing every problem by its key, and writes nothing."""
    owner = _owner()
    try:
        saved = settings.change(owner.config_path, wanted)
    except ConfigError as exc:
        lines = exc.problems
        raise Refused(
            "; ".join(lines), "réglages refusés (rien n'est écrit) : " + "; ".join(lines), 400
        ) from None
    except OSError as exc:
        raise Refused(
            f"{owner.config_path} cannot be written: {exc.strerror or exc}",
            f"{owner.config_path} ne peut pas être écrit : {exc.strerror or exc}",
            500,
        ) from None
    _apply(saved.config, saved.changed)
    log.info("settings written to %s: %s", saved.path, ", ".join(saved.changed) or "no change")
    return {
        "path": str(saved.path),
        "changed": list(saved.changed),
        "restart": list(saved.restart),
    }


def _apply(config: Config, changed: tuple[str, ...]) -> None:
    """The settings a running table takes without a restart (settings.LIVE_KEYS)."""
    session, watcher = _session(), _watcher()
    if "table.computer_pace" in changed:
        session.computer_pace = config.table.computer_pace
    if "storage.snapshots" in changed and watcher is not None:
        watcher.snapshots = config.storage.snapshots
    if "storage.photo_budget_mb" in changed:
        session.store.photo_budget = config.storage.photo_budget_mb * 2**20
