"""The owner's page and what surrounds it: the PIN asked before reading, the page and its
files, the status the wizard starts from, and the QR code phones join the table with."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, render_template, request

from device import join
from device.power import under_unit
from device.storage import is_url
from device.web.assets import add_static
from device.web.owner.common import (
    MARKER,
    Empty,
    Refused,
    answer,
    current_owner,
    current_session,
    current_watcher,
    parse_body,
    refusal,
)
from device.web.security import PIN_HEADER, same
from scoring.rulebooks import RULEBOOKS

STATIC = {"owner.js": "text/javascript", "owner.css": "text/css"}
PUBLIC = frozenset({"owner.page", "owner.join_svg", "owner.lesson_photo", "owner.status"})


def register_guard(bp: Blueprint) -> None:
    """The wizard's flag for every template, the PIN for reading, refusals as JSON."""

    @bp.app_context_processor
    def first_run() -> dict[str, Any]:
        owner = current_app.extensions.get("yamscope.owner")
        return {"owner_first_run": owner is not None and not owner.setup_done}

    @bp.before_request
    def pin_for_reading() -> Response | None:
        """GETs of the settings and the log need the PIN too (POSTs passed the table's guard)."""
        owner = current_owner()
        if request.method != "GET" or owner.pin is None or request.endpoint in PUBLIC:
            return None
        if not request.path.startswith("/api/owner/"):  # the page and its files
            return None
        brake = current_app.extensions["yamscope.brake"]
        client = request.remote_addr or "?"
        why = brake.blocked(client)
        if why is not None:
            return refusal(Refused(why, why, 429))
        if not same(request.headers.get(PIN_HEADER), owner.pin):
            brake.failed(client)
            return refusal(Refused("missing or wrong PIN", "PIN absent ou faux", 403))
        return None

    @bp.errorhandler(Refused)
    def refused(exc: Refused) -> Response:
        return refusal(exc)


def register_page(bp: Blueprint) -> None:
    """The page, its script and style, its status, and the wizard's end."""
    versions = add_static(bp, STATIC)

    @bp.get("/owner")
    def page() -> str:
        owner = current_owner()
        boot = {
            "token": current_app.extensions["yamscope.token"],
            "pin": owner.pin is not None,
            "language": owner.config.table.language,
            "rules": owner.config.table.rules,
            "rulebooks": list(RULEBOOKS),
            "setup_done": owner.setup_done,
        }
        shared = current_app.extensions["yamscope.versions"]  # dom.js, served by the app
        return render_template("owner.html", boot=boot, versions={**shared, **versions})

    @bp.get("/api/owner/status")
    def status() -> Response:
        owner, watcher = current_owner(), current_watcher()
        session = current_session()
        return answer(
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
        parse_body(Empty)
        owner = current_owner()
        marker = owner.folder / MARKER
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text('{"setup": "done"}\n', encoding="utf-8")
        return answer({"setup_done": True})


def register_phones(bp: Blueprint) -> None:
    """Where phones join the table: its address, or why there is none, and its QR code."""

    @bp.get("/api/owner/join")
    def join_info() -> Response:
        owner = current_owner()
        found = join.join(owner.host, owner.port)
        french = None
        if found.why_not is not None:
            french = (
                "la table ne répond que sur cette machine : ouvrez-la aux téléphones dans les "
                "réglages (un PIN et l'adresse 0.0.0.0), puis redémarrez"
                if "only on this machine" in found.why_not
                else "cette machine n'a pas d'adresse sur un réseau"
            )
        return answer(vars(found) | {"why_not_fr": french})

    @bp.get("/api/owner/join.svg")
    def join_svg() -> Response:
        owner = current_owner()
        found = join.join(owner.host, owner.port)
        if found.url is None:
            return refusal(Refused(found.why_not or "", found.why_not or "", 404))
        response = Response(join.qr_svg(found.url), mimetype="image/svg+xml")
        response.headers["Cache-Control"] = "no-store"
        return response


def _enrolled(watcher: Any) -> dict[str, int] | None:
    enrolment = watcher.recogniser.reader.enrolment if watcher is not None else None
    return {str(k): v for k, v in enrolment.examples().items()} if enrolment else None
