"""The table's web page and JSON API: ``create_app(session)`` gives the Flask app.

Why no build step and no CDN: the appliance runs on a Pi at a table, often offline; the
page is one template, one script and one stylesheet shipped in this package, read once at
start and served from memory (so no request path ever reaches the file system).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from flask import Flask, Response, render_template, request
from werkzeug.exceptions import HTTPException

from device.config_sections import is_loopback
from device.storage import StoreError, StoreFull, StoreUnavailable
from device.table import TableSession
from device.table_state import rules_catalog
from device.web.api import build_api
from device.web.assets import add_static
from device.web.records_api import build_records
from device.web.security import PIN_HEADER, TOKEN_HEADER, PinBrake, new_token, same
from device.web.validate import BadRequest
from scoring.entries import RulesError

log = logging.getLogger(__name__)
MAX_BODY = 8 * 1024
STATIC = {
    "dom.js": "text/javascript",  # the helpers every page shares, the owner's too
    "table.js": "text/javascript",
    "table.css": "text/css",
    "records.js": "text/javascript",
    "records.css": "text/css",
}
RAW_BODIES = frozenset({"owner.restore"})  # endpoints that take a file, not JSON
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class QuietPolls(logging.Filter):
    """Leave out of the log the requests every screen repeats (the live picture twice a
    second, the pushed states, the page's files) when they succeeded: a kiosk watching the
    tray for an evening wrote a line a second, and the lines worth reading got lost."""

    POLLED = re.compile(
        r'"(?:GET|HEAD) /(?:api/(?:live|photo)\.jpg|api/(?:state|events|health)|static/'
        r"|api/owner/(?:log|status|health|lesson/\d+\.jpg))"
        r'[^"]*" [23]\d\d '
    )

    def filter(self, record: logging.LogRecord) -> bool:
        return not self.POLLED.search(record.getMessage())


QUIET_POLLS = QuietPolls()


def _error(message: str, status: int) -> Response:
    """A JSON error; a message quoting the client's input may hold a lone surrogate,
    which UTF-8 cannot carry: it goes out escaped."""
    import json

    from device.words import french

    said = {"error": message, "error_fr": french(message), "status": status}
    body = json.dumps(said, ensure_ascii=False)
    data = body.encode("utf-8", errors="backslashreplace")
    return Response(data, status=status, mimetype="application/json")


def host_name(host: str) -> str:
    """The name in a Host header, without its port (``[::1]:8600`` is ``::1``)."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def create_app(
    session: TableSession,
    *,
    pin: str | None = None,
    max_players: int = 6,
    language: str = "fr",
    default_rules: str = "impossible",
) -> Flask:
    """The app for one table session. ``pin``: needed by every changing action (LAN use);
    ``language`` and ``default_rules``: what the page starts with (the configuration's).

    Without a PIN the app answers only to loopback host names (``localhost``, any of
    127.0.0.0/8, ``::1``), so a web page elsewhere cannot reach it through DNS rebinding.
    """
    logging.getLogger("werkzeug").addFilter(QUIET_POLLS)  # once: the same filter object
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["JSON_SORT_KEYS"] = False
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions["yamscope.session"] = session
    token = new_token()
    app.extensions["yamscope.token"] = token  # the owner's page (device/web/owner/) too
    brake = PinBrake()
    app.extensions["yamscope.brake"] = brake
    versions = add_static(app, STATIC)
    app.register_blueprint(build_api(max_players))
    app.register_blueprint(build_records(language))
    app.extensions["yamscope.versions"] = versions
    _register_guard(app, token, pin, brake)
    _register_errors(app)

    @app.get("/")
    def page() -> str:
        boot: dict[str, Any] = {
            "token": token,
            "pin": pin is not None,
            "pin_strength": _strength(brake, pin, request.remote_addr),
            "max_players": max_players,
            "language": language,
            "default_rules": default_rules,
            "rules": rules_catalog(),
            "state": session.state(),
        }
        return render_template("table.html", boot=boot, versions=versions)

    return app


def _register_guard(app: Flask, token: str, pin: str | None, brake: PinBrake) -> None:
    """What every request passes first (host, token, PIN, JSON) and every answer carries
    (the security headers): registered together, so that neither goes without the other."""

    @app.before_request
    def guard() -> Response | None:
        if pin is None and not is_loopback(host_name(request.host)):
            return _error("this table answers only on this machine (a loopback address)", 400)
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if not same(request.headers.get(TOKEN_HEADER), token):
            return _error("missing or wrong page token: reload the page", 403)
        if pin is not None:
            client = request.remote_addr or "?"
            why = brake.blocked(client)
            if why is not None:
                return _error(why, 429)
            if not same(request.headers.get(PIN_HEADER), pin):
                brake.failed(client)
                return _error("missing or wrong PIN", 403)
        if request.mimetype != "application/json" and request.endpoint not in RAW_BODIES:
            return _error("send JSON (Content-Type: application/json)", 415)
        return None

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response


def _register_errors(app: Flask) -> None:
    """Every error as JSON with its status: bad input, refused by the rules, records."""

    @app.errorhandler(BadRequest)
    def bad_request(exc: BadRequest) -> Response:
        return _error(str(exc), 400)

    @app.errorhandler(RulesError)
    def refused(exc: RulesError) -> Response:
        return _error(str(exc), 409)

    @app.errorhandler(StoreError)
    def store_failed(exc: StoreError) -> Response:
        """Nothing changed (the game went back to what is kept); 507 when the disk is full,
        so the page can say to free space and play on; 503 while the records' server cannot
        be reached."""
        log.error("records: %s", exc)
        status = 507 if isinstance(exc, StoreFull) else 500
        if isinstance(exc, StoreUnavailable):  # a club's server away: play on once it is back
            status = 503
        return _error(f"the records could not be written: {exc}", status)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        return _error(exc.description or exc.name, exc.code or 500)


def _strength(brake: PinBrake, pin: str | None, client: str | None) -> dict[str, Any] | None:
    """What the page says of the PIN: its length and the time guessing it takes at the
    brake's pace. Whether it is a common one is told only to this machine's own screen
    (the owner's): a guest would learn where to start guessing."""
    if pin is None:
        return None
    strength = brake.strength(pin)
    if not is_loopback(client or ""):
        strength["common"] = None
    return strength
