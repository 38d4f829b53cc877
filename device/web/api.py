"""The JSON API under ``/api/``: the table's state, its actions, and the pushed states.

Each action route parses its body (``bodies``: one model each), calls one ``TableSession``
method and answers with the new state. Errors are JSON ``{"error", "status"}``: 400 malformed
input, 409 refused by the rules (nothing changed), 403 token or PIN, 413 too big, 415 not
JSON, 429 too many wrong PINs, 507 the disk is full (nothing changed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from device.config_sections import is_loopback
from device.listeners import TooManyListeners
from device.table import TableSession
from device.table_camera import CalibrationRefused
from device.table_state import rules_catalog
from device.version import version
from device.web import bodies, validate
from device.web.openapi import openapi
from device.words import french

KEEPALIVE_S = 10.0


def _session() -> TableSession:
    return current_app.extensions["yamscope.session"]


def _answer(state: dict[str, Any], status: int = 200) -> Response:
    response = jsonify(state)
    response.status_code = status
    return response


def _json() -> Any:
    """The body as JSON, refused (400) when it is not, nests too deeply or holds text that
    is not Unicode (a lone surrogate): such input must never reach a handler."""
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        raise validate.BadRequest("the body nests too deeply") from None
    if data is None:
        raise validate.BadRequest("the body must be JSON")
    return validate.plain_json(data)


def build_api(max_players: int) -> Blueprint:
    """The ``/api/`` blueprint, its routes registered by group."""
    api = Blueprint("api", __name__, url_prefix="/api")
    _register_reads(api, max_players)
    _register_throws(api, max_players)
    _register_camera(api)
    _register_sheet(api)
    _register_events(api)
    return api


def _register_reads(api: Blueprint, max_players: int) -> None:
    """The state, the rulebooks, this API's document and the table's health."""

    @api.get("/state")
    def state() -> Response:
        return _answer(_session().state())

    @api.get("/rules")
    def rules() -> Response:
        return _answer({"rules": rules_catalog(), "max_players": max_players})

    @api.get("/openapi.json")
    def spec() -> Response:
        return _answer(openapi(max_players))

    @api.get("/health")
    def health() -> Response:
        """For the smoke test and monitoring: the version, the tray and the camera."""
        session = _session()
        watcher = session.watcher
        return _answer(
            {
                "version": version(),
                "tray": session.tray,
                "camera": watcher.status() if watcher is not None else None,
                "game": (session.state().get("game") or {}).get("id"),
            }
        )


def _register_throws(api: Blueprint, max_players: int) -> None:
    """A new game, a throw (typed in or drawn) and the dice set aside."""

    @api.post("/games")
    def new_game() -> Response:
        game = bodies.parse(bodies.NewGame, _json(), max_players=max_players)
        return _answer(_session().new_game(game.rules, game.options, game.players), 201)

    @api.post("/throw")
    def throw() -> Response:
        session = _session()
        count = validate.dice_count(session.state())
        thrown = bodies.parse(bodies.Throw, _json(), dice_count=count)
        if thrown.dice is not None:
            return _answer(session.throw(thrown.dice, thrown.keep))
        return _answer(session.simulated_throw(thrown.keep))

    @api.post("/keep")
    def keep() -> Response:
        session = _session()
        count = validate.dice_count(session.state())
        return _answer(session.set_keep(bodies.parse(bodies.Keep, _json(), dice_count=count).keep))


def _register_camera(api: Blueprint) -> None:
    """The camera's live picture and the tray's calibration."""

    @api.get("/live.jpg")
    def live() -> Response:
        """The camera's newest picture with the dice read drawn on it: encoded once by the
        tray watcher for every viewer; 404 without a camera or before its first picture."""
        watcher = _session().watcher
        picture = watcher.live_jpeg() if watcher is not None else None
        if picture is None:
            return _answer(
                {"error": "no live picture (no camera, or none yet)", "status": 404}, 404
            )
        response = Response(picture, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
        return response

    @api.post("/calibrate")
    def calibrate() -> Response:
        """Calibrate on the camera's picture of the empty tray; the state's ``camera`` then
        carries the calibration's summary (felt, die size, field of view, light advice)."""
        anyway = bodies.parse(bodies.Calibrate, _json()).anyway
        try:
            return _answer(_session().calibrate(anyway=anyway))
        except CalibrationRefused as exc:  # the page asks whether to calibrate anyway
            message = str(exc)
            refused = {"error": message, "error_fr": french(message), "status": 409}
            return _answer(refused | {"dice_seen": exc.seen}, 409)


def _register_sheet(api: Blueprint) -> None:
    """What players do with a throw: correct it, announce, score, undo, let a computer
    finish its turn, and the picture of a computer's throw."""

    @api.post("/correct")
    def correct() -> Response:
        dice = bodies.parse(bodies.Correct, _json()).dice
        return _answer(_session().correct(dice, client=request.remote_addr or None))

    @api.post("/announce")
    def announce() -> Response:
        return _answer(_session().announce(bodies.parse(bodies.Announce, _json()).box))

    @api.post("/score")
    def score() -> Response:
        return _answer(_session().score(bodies.parse(bodies.Score, _json()).box))

    @api.post("/undo")
    def undo() -> Response:
        bodies.parse(bodies.Undo, _json())
        return _answer(_session().undo())

    @api.post("/skip")
    def skip() -> Response:
        bodies.parse(bodies.Skip, _json())
        return _answer(_session().skip())

    @api.get("/photo.jpg")
    def photo() -> Response:
        """A computer's throw drawn on the simulated tray (404 when there is none)."""
        picture = _session().photo()
        if picture is None:
            return _answer({"error": "no picture of this throw", "status": 404}, 404)
        response = Response(picture, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
        return response


def _register_events(api: Blueprint) -> None:
    """The pushed states (Server-Sent Events), one stream per listener."""

    @api.get("/events")
    def events() -> Response:
        session = _session()
        client = request.remote_addr or "?"
        try:
            listener = session.add_listener(client=client, loopback=is_loopback(client))
        except TooManyListeners as exc:
            return _answer({"error": str(exc), "status": 503}, 503)

        def stream() -> Iterator[str]:
            yield "retry: 2000\n\n"
            while True:
                pushed = listener.next(timeout=KEEPALIVE_S)
                if listener.closed:
                    return  # a newer stream from the same address took its place
                if pushed is None:
                    yield ": keepalive\n\n"  # also finds clients that went away
                    continue
                data = json.dumps(pushed, ensure_ascii=False, separators=(",", ":"))
                yield f"id: {pushed['version']}\nevent: state\ndata: {data}\n\n"

        response = Response(stream(), mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Accel-Buffering"] = "no"
        release: Callable[[], None] = lambda: session.remove_listener(listener)  # noqa: E731
        response.call_on_close(release)
        return response
