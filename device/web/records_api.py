"""The records page (``/records``) and its read-only JSON under ``/api/records/``.

Why cached: the records of ten thousand games take a few hundred milliseconds to gather,
and they change only when a game ends (or an entry that ended one is taken back), which
``Store.revision`` tells in two small queries; so each view is computed once per
revision and the page answers from memory until the next game ends. Nothing here writes:
every route is a GET, and an unknown rulebook, player, table, game or entry is a 404 that
says which.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from device import export
from device.fairness import fairness
from device.history import NoSuchGame, audit, game_detail, game_list
from device.records import NotFound, records
from device.storage import Store
from device.web.validate import BadRequest

CACHED = 32  # views kept per revision (filters: rulebook, player, table)


class _Cache:
    """The latest views, dropped whenever the records' revision moves on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision: tuple | None = None
        self._views: OrderedDict[tuple, Any] = OrderedDict()

    def get(self, store: Store, key: tuple, make: Callable[[], Any]) -> Any:
        revision = store.revision()
        with self._lock:
            if revision != self._revision:
                self._revision, self._views = revision, OrderedDict()
            if key in self._views:
                self._views.move_to_end(key)
                return self._views[key]
        value = make()
        with self._lock:
            if revision == self._revision:
                self._views[key] = value
                while len(self._views) > CACHED:
                    self._views.popitem(last=False)
        return value


def _store() -> Store:
    return current_app.extensions["yamscope.session"].store


def _text(name: str) -> str | None:
    value = request.args.get(name)
    if value is None:
        return None
    if not value.strip() or len(value) > 100:
        raise BadRequest(f"{name} must be 1 to 100 characters")
    return value


def _number(name: str, default: int, top: int) -> int:
    value = request.args.get(name)
    if value is None:
        return default
    if not value.isdigit() or int(value) > top:
        raise BadRequest(f"{name} must be a whole number from 0 to {top}, not {value!r}")
    return int(value)


def _not_found(exc: LookupError) -> Response:
    message = str(exc.args[0]) if exc.args else str(exc)
    response = jsonify({"error": message, "status": 404})
    response.status_code = 404
    return response


def build_records(language: str) -> Blueprint:
    page = Blueprint("records", __name__)
    cache = _Cache()

    @page.errorhandler(NotFound)
    @page.errorhandler(NoSuchGame)
    def not_found(exc: LookupError) -> Response:
        return _not_found(exc)

    @page.get("/records")
    def records_page() -> str:
        store = _store()
        boot = {"language": language, "table": store.table, "kind": store.kind}
        versions = current_app.extensions["yamscope.versions"]
        return render_template("records.html", boot=boot, versions=versions)

    @page.get("/api/records")
    def summary() -> Response:
        rules, player, table = _text("rules"), _text("player"), _text("table")
        store = _store()
        view = cache.get(
            store,
            ("records", rules, player, table),
            lambda: records(store, rules=rules, player=player, table=table),
        )
        return jsonify(view)

    @page.get("/api/records/fairness")
    def dice() -> Response:
        store = _store()
        table = _text("table") or store.table
        if table not in store.tables() and table != store.table:
            raise NotFound(f"no table named {table!r} in the records")
        return jsonify(cache.get(store, ("fairness", table), lambda: fairness(store, table)))

    @page.get("/api/records/games")
    def games() -> Response:
        table = _text("table")
        offset, limit = _number("offset", 0, 10**9), _number("limit", 50, 500)
        return jsonify(game_list(_store(), table=table, offset=offset, limit=limit))

    @page.get("/api/records/games/<int:game_id>")
    def game(game_id: int) -> Response:
        return jsonify(game_detail(_store(), game_id))

    @page.get("/api/records/games/<int:game_id>/audit")
    def entry_audit(game_id: int) -> Response:
        seq = request.args.get("seq")
        if seq is not None:
            return jsonify(audit(_store(), game_id, seq=_number("seq", 0, 10**9)))
        player, box = _text("player"), _text("box")
        return jsonify(audit(_store(), game_id, player=player, box=box))

    @page.get("/api/records/throws/<int:throw_id>/photo.jpg")
    def photo(throw_id: int) -> Response:
        data = _store().snapshot(throw_id)
        if data is None:
            raise NoSuchGame(f"no photo is kept of throw {throw_id}")
        response = Response(data, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "private, max-age=86400"  # a photo never changes
        return response

    @page.get("/api/export/<kind>.<fmt>")
    def download(kind: str, fmt: str) -> Response:
        if kind not in export.KINDS or fmt not in export.FORMATS:
            raise NotFound(
                f"no export {kind}.{fmt} (kinds: {', '.join(export.KINDS)}; formats: csv, json)"
            )
        import io

        out = io.StringIO()
        export.write(_store(), kind, fmt, out, table=_text("table"))
        mimetype = "text/csv" if fmt == "csv" else "application/json"
        response = Response(out.getvalue(), mimetype=mimetype)
        response.headers["Content-Disposition"] = f'attachment; filename="{kind}.{fmt}"'
        return response

    return page


def _get(summary: str, found: str, *params: str, content: str = "application/json") -> dict:
    """One read-only route as OpenAPI describes it: 200, 404 when not found, 400 bad query."""
    op: dict[str, Any] = {
        "summary": summary,
        "responses": {
            "200": {"description": found, "content": {content: {}}},
            "400": {"description": "a malformed query parameter"},
            "404": {"description": "no such rulebook, player, table, game, entry or photo"},
            "503": {"description": "the records' server cannot be reached"},
        },
    }
    if params:
        op["parameters"] = [
            {"name": p, "in": "path", "required": True,
             "schema": {"type": "string" if p in ("kind", "fmt") else "integer"}}
            for p in params
        ]  # fmt: skip
    return {"get": op}


def records_paths() -> dict[str, Any]:
    """The records page's routes, for ``/api/openapi.json``."""
    query = "query: rules, player, table"
    return {
        "/records": _get("the records page (HTML)", "HTML", content="text/html"),
        "/static/records.js": _get("the records page's script", "JS", content="text/javascript"),
        "/static/records.css": _get("the records page's style", "CSS", content="text/css"),
        "/api/records": _get(f"records and statistics ({query})", "records"),
        "/api/records/fairness": _get("dice fairness of a table (query: table)", "fairness"),
        "/api/records/games": _get(
            "kept games, newest first (query: table, offset, limit)", "games"
        ),
        "/api/records/games/{game_id}": _get("a game, its sheet and its turns", "game", "game_id"),
        "/api/records/games/{game_id}/audit": _get(
            "why an entry scored what it did (query: seq, or player and box)", "audit", "game_id"
        ),
        "/api/records/throws/{throw_id}/photo.jpg": _get(
            "the photo a throw was read from", "JPEG", "throw_id", content="image/jpeg"
        ),
        "/api/export/{kind}.{fmt}": _get(
            "games, turns, throws or entries as csv or json (query: table)", "a file", "kind", "fmt"
        ),
    }
