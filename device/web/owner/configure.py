"""The owner's settings, the PIN, the table's health and its log.

Why written through ``device.settings``: the file keeps the owner's comments and only what
they changed, and a refused change writes nothing; what a running table can take
(``settings.LIVE_KEYS``) it takes at once, the rest waits for a restart.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, request

from device import health, settings
from device.config import ConfigError
from device.config_sections import Config
from device.storage import is_url
from device.web.owner.common import (
    PinBody,
    Refused,
    SettingsBody,
    answer,
    current_owner,
    current_session,
    current_watcher,
    parse_body,
)
from device.web.security import common_pin

log = logging.getLogger("device.web.owner")  # one logger for all the owner's routes


def register(bp: Blueprint) -> None:
    """The settings, the PIN, health and the log."""

    @bp.get("/api/owner/settings")
    def read_settings() -> Response:
        owner = current_owner()
        try:
            config = settings.current(owner.config_path)
        except ConfigError as exc:
            raise Refused(str(exc), f"le fichier de réglages a des problèmes : {exc}") from None
        shown = [vars(f) for f in settings.fields(config)]
        return answer(
            {"path": str(owner.config_path), "fields": shown, "live": sorted(settings.LIVE_KEYS)}
        )

    @bp.post("/api/owner/settings")
    def write_settings() -> Response:
        body = parse_body(SettingsBody)
        if any(key in settings.SECRET_KEYS for key in body.values):
            raise Refused(
                "the PIN is set on its own (/api/owner/pin)", "le PIN se règle à part", 400
            )
        return answer(_save(body.values))

    @bp.post("/api/owner/pin")
    def set_pin() -> Response:
        body = parse_body(PinBody)
        wanted: dict[str, Any] = {"server.pin": body.pin or None}
        if body.phones:
            wanted["server.host"] = "0.0.0.0"
        elif body.pin is None:
            wanted["server.host"] = None  # no PIN: this machine only
        saved = _save(wanted)
        return answer(saved | {"common": body.pin is not None and common_pin(body.pin)})

    @bp.get("/api/owner/health")
    def read_health() -> Response:
        owner, watcher = current_owner(), current_watcher()
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
        return answer(health.report(watcher, folder, reader))

    @bp.get("/api/owner/log")
    def read_log() -> Response:
        owner = current_owner()
        after = request.args.get("after", "0")
        if not after.isdigit():
            raise Refused("after must be a line number", "after doit être un numéro de ligne", 400)
        lines = owner.logbook.lines(int(after)) if owner.logbook is not None else []
        return answer({"lines": lines})


def _save(wanted: dict[str, Any]) -> dict[str, Any]:
    """Write the settings file with these changes and apply at once those a running table
    takes; a refused change is a 400 listing every problem by its key, and writes nothing."""
    owner = current_owner()
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
    session, watcher = current_session(), current_watcher()
    if "table.computer_pace" in changed:
        session.computer_pace = config.table.computer_pace
    if "storage.snapshots" in changed and watcher is not None:
        watcher.snapshots = config.storage.snapshots
    if "storage.photo_budget_mb" in changed:
        session.store.photo_budget = config.storage.photo_budget_mb * 2**20
