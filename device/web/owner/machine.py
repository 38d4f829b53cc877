"""The owner's records and machine: a backup to download, a restore from an uploaded copy,
restart and shut down.

Why a restore restarts: every part of the running table holds the records it opened, and a
fresh start is the one way all of them see the new ones.
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, request

from device import backup
from device.power import PowerRefused
from device.web.owner.common import (
    Confirmed,
    Empty,
    Refused,
    answer,
    current_owner,
    current_session,
    parse_body,
)

log = logging.getLogger("device.web.owner")  # one logger for all the owner's routes
PG_DUMP_FR = (
    "ces scores sont une base PostgreSQL : sauvegardez-la avec pg_dump et restaurez-la avec "
    "pg_restore sur le serveur (docs/records.md)"
)


def register_records(bp: Blueprint) -> None:
    """The records' backup and restore (an SQLite file's; PostgreSQL has its own tools)."""

    @bp.post("/api/owner/backup")
    def make_backup() -> Response:
        parse_body(Empty)
        store = current_session().store
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
        session = current_session()
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
        how = current_owner().power.restart()
        return answer(done | {"restart": how})


def register_power(bp: Blueprint) -> None:
    """Restart yamscope, or shut the machine down (the installed service only)."""

    @bp.post("/api/owner/restart")
    def restart() -> Response:
        parse_body(Confirmed)
        log.warning("restart asked from the owner's page")
        return answer({"restart": current_owner().power.restart()})

    @bp.post("/api/owner/shutdown")
    def shutdown() -> Response:
        parse_body(Confirmed)
        try:
            current_owner().power.shutdown()
        except PowerRefused as exc:
            raise Refused(
                str(exc),
                "ce yamscope n'est pas le service installé (yamscope.service) : il n'éteint pas "
                "la machine ; éteignez-la comme d'habitude (sudo poweroff)"
                if "not the installed service" in str(exc)
                else f"extinction refusée : {exc}",
            ) from None
        return answer({"shutdown": True})
