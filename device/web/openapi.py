"""The API described for its users (OpenAPI 3.1): the request bodies' schemas come from
their pydantic models (``bodies``), the routes, answers and errors are written here.

Why the rest by hand: the API is small and its contract (which answer holds what, which
errors mean what) is the point. The test suite checks that every route of the app is
described here and every described one exists.
"""

from __future__ import annotations

from typing import Any

from device.web.bodies import BOX, POSITIONS, TOKEN, request_schemas
from device.web.records_api import records_paths

REF = "#/components/schemas/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


ERRORS = {
    "400": {"description": "malformed input (types, sizes, unknown names)"},
    "403": {"description": "missing or wrong page token, or PIN"},
    "409": {"description": "refused by the rules or the turn; nothing changed"},
    "413": {"description": "body too big"},
    "415": {"description": "not JSON"},
    "429": {"description": "too many wrong PINs from this address, or from all of them"},
    "500": {"description": "the records could not be written; nothing changed"},
    "507": {"description": "the disk is full: nothing changed, play on once space is freed"},
}


def _action(summary: str, body: str, ok: str = "200") -> dict[str, Any]:
    responses = {ok: {"description": "the new state", **_json(_ref("State"))}}
    responses |= {code: {**d, **_json(_ref("Error"))} for code, d in ERRORS.items()}
    return {
        "summary": summary,
        "parameters": [
            {"$ref": "#/components/parameters/Token"},
            {"$ref": "#/components/parameters/Pin"},
        ],
        "requestBody": {"required": True, **_json(_ref(body))},
        "responses": responses,
    }


def _schemas(max_players: int) -> dict[str, Any]:
    """Every schema the document names: the bodies', then the answers'."""
    return {
        **request_schemas(max_players),
        "Error": _error_schema(),
        "Entry": _entry_schema(),
        "Game": _game_schema(),
        "State": _state_schema(),
    }


def _error_schema() -> dict[str, Any]:
    """What every refusal answers: the line in English and French, the status."""
    return {
        "type": "object",
        "required": ["error", "status"],
        "properties": {
            "error": {"type": "string"},
            "error_fr": {"type": "string", "description": "the same, in French"},
            "status": {"type": "integer"},
        },
    }


def _entry_schema() -> dict[str, Any]:
    """One way to write the dice: the box, its points and why."""
    box, positions = BOX, POSITIONS
    return {
        "type": "object",
        "properties": {
            "box": box,
            "label": {"type": "string"},
            "section": {"type": "string"},
            "points": {"type": "integer"},
            "base": {"type": "integer"},
            "bonus": {"type": "integer"},
            "multipliers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "why": {"type": "string"}},
                },
            },
            "dice": positions,
            "why": {"type": "string", "description": "the reason for every point (French)"},
        },
    }


def _game_schema() -> dict[str, Any]:
    """The current game as the page draws it."""
    token, box = TOKEN, BOX
    return {
        "type": "object",
        "description": "the current game as the page draws it",
        "properties": {
            "id": {"type": "integer"},
            "rules": {"type": "string"},
            "name": {"type": "string"},
            "players": {"type": "array", "items": {"type": "object"}},
            "current": {"type": ["integer", "null"]},
            "player": {"type": ["string", "null"]},
            "human_turn": {"type": "boolean"},
            "turn": {"type": "integer"},
            "throw": {"type": "integer"},
            "max_throws": {"type": "integer"},
            "announced_throw": {"type": ["string", "null"]},
            "announced": {"type": ["string", "null"]},
            "announceable": {"type": "array", "items": box},
            "can_throw": {"type": "boolean"},
            "must_throw": {"type": "boolean"},
            "dice": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer"},
                        "colour": {"enum": ["red", "white", None]},
                        "finish": {"enum": ["frosted", "transparent", None]},
                        "text": token,
                        "kept": {"type": "boolean"},
                    },
                },
            },
            "suggestions": {"type": "array", "items": _ref("Entry")},
            "sheet": {"type": "object", "description": "layout: rows or shared columns"},
            "sheets": {"type": "array", "items": {"type": "object"}},
            "closed": {"type": "object", "additionalProperties": {"type": "string"}},
            "finished": {"type": "boolean"},
            "winners": {"type": "array", "items": {"type": "string"}},
            "recent": {"type": "array", "items": {"type": "object"}},
        },
    }


def _state_schema() -> dict[str, Any]:
    """The state every answer and pushed event carries."""
    positions = POSITIONS
    return {
        "type": "object",
        "required": ["version", "instance", "game"],
        "properties": {
            "version": {"type": "integer", "description": "grows with every change"},
            "instance": {"type": "string", "description": "changes when the server restarts"},
            "tray": {"type": "string"},
            "camera": {
                "type": ["object", "null"],
                "description": "the camera and the reader: source, state (starting, live, "
                "stalled, reopening, failed), error, message (why a throw was not "
                "recorded), reading_ms, can_throw (the simulated tray's throw button), "
                "calibration (null until the tray is calibrated: size, tray_share, "
                "die_side, die_measured, field_of_view, field_of_view_from, "
                "wider_than_trained, cut_off (the sides of the picture the felt runs out "
                "of: left, top, right, bottom), advice (English lines), light (the same as "
                "problem, "
                "measured, limit), dice_seen (boxes the reader took for dice on the "
                "picture calibrated on, [x0, y0, x1, y1]; null when the calibration "
                "came from a file))",
            },
            "keep": {
                "oneOf": [positions, {"type": "null"}],
                "description": "dice set aside for the next throw the camera reads",
            },
            "unsure": {**positions, "description": "dice the camera asks the player to check"},
            "game": {"oneOf": [_ref("Game"), {"type": "null"}]},
            "advice": {"type": ["object", "null"]},
            "advice_pending": {"type": "boolean"},
            "computer_error": {"type": ["string", "null"]},
            "computer_error_fr": {"type": ["string", "null"]},
            "photo": {
                "type": ["integer", "null"],
                "description": "a computer's throw is drawn at /api/photo.jpg (this number "
                "changes with each picture)",
            },
        },
    }


def _page_paths() -> dict[str, Any]:
    """The page, its files, the state, the rulebooks, the pushed states, this document."""
    return {
        "/": {
            "get": {
                "summary": "the table page (HTML)",
                "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}},
            }
        },
        "/static/dom.js": {
            "get": {
                "summary": "the pages' shared helpers",
                "responses": {"200": {"description": "JS"}},
            }
        },
        "/static/table.js": {
            "get": {"summary": "the page's script", "responses": {"200": {"description": "JS"}}}
        },
        "/static/table.css": {
            "get": {"summary": "the page's style", "responses": {"200": {"description": "CSS"}}}
        },
        "/api/state": {
            "get": {
                "summary": "the current state",
                "responses": {"200": {"description": "state", **_json(_ref("State"))}},
            }
        },
        "/api/rules": {
            "get": {
                "summary": "the rulebooks and their options, for the new-game form",
                "responses": {"200": {"description": "rulebooks", **_json({"type": "object"})}},
            }
        },
        "/api/events": {
            "get": {
                "summary": "Server-Sent Events: one `state` event with the newest state "
                "after each change (older unsent states are dropped); a few streams per "
                "address, a newer one ending the oldest",
                "responses": {
                    "200": {
                        "description": "event stream",
                        "content": {"text/event-stream": {}},
                    },
                    "503": {
                        "description": "too many clients on the network (this machine's "
                        "own screens have places kept apart)",
                        **_json(_ref("Error")),
                    },
                },
            }
        },
        "/api/openapi.json": {
            "get": {
                "summary": "this document",
                "responses": {"200": {"description": "OpenAPI", **_json({"type": "object"})}},
            }
        },
    }


def _throw_paths() -> dict[str, Any]:
    """A new game, the throw and the dice kept, the camera's picture and calibration."""
    return {
        "/api/games": {"post": _action("start a new game", "NewGame", ok="201")},
        "/api/throw": {"post": _action("throw the dice not kept", "Throw")},
        "/api/keep": {"post": _action("set dice aside for the camera's next read", "Keep")},
        "/api/live.jpg": {
            "get": {
                "summary": "the camera's newest picture with the dice read drawn on it "
                "(poll it; one encode serves every viewer)",
                "responses": {
                    "200": {"description": "JPEG", "content": {"image/jpeg": {}}},
                    "404": {
                        "description": "no camera, or no picture yet",
                        **_json(_ref("Error")),
                    },
                },
            }
        },
        "/api/calibrate": {
            "post": _action(
                "calibrate the camera on the empty tray it sees now (409: no camera, no "
                "picture yet, no felt found, or dice in view, with their boxes in "
                "dice_seen; the calibration in use stays)",
                "Calibrate",
            )
        },
    }


def _sheet_paths() -> dict[str, Any]:
    """Health, and what players write on the sheet (a computer's photo too)."""
    return {
        "/api/health": {
            "get": {
                "summary": "version, tray and camera state (smoke test, monitoring)",
                "responses": {"200": {"description": "health", **_json({"type": "object"})}},
            }
        },
        "/api/correct": {"post": _action("correct the dice of the throw", "Correct")},
        "/api/announce": {"post": _action("announce the extra throw for a box", "Announce")},
        "/api/score": {"post": _action("write the dice in a box", "Score")},
        "/api/undo": {"post": _action("take back the last human entry", "Undo")},
        "/api/skip": {
            "post": _action("the computer playing now plays the rest of its turn at once", "Skip")
        },
        "/api/photo.jpg": {
            "get": {
                "summary": "the current throw drawn on the tray, when a computer threw it on "
                "the simulated tray (the state's `photo` says when there is one)",
                "responses": {
                    "200": {"description": "JPEG", "content": {"image/jpeg": {}}},
                    "404": {"description": "no such picture", **_json(_ref("Error"))},
                },
            }
        },
    }


def _parameters() -> dict[str, Any]:
    """The headers changing actions send: the page's token, the PIN."""
    return {
        "Token": {
            "name": "X-Yamscope-Token",
            "in": "header",
            "required": True,
            "description": "the token embedded in the page (CSRF)",
            "schema": {"type": "string"},
        },
        "Pin": {
            "name": "X-Yamscope-Pin",
            "in": "header",
            "required": False,
            "description": "needed when the server was started with --pin",
            "schema": {"type": "string"},
        },
    }


def openapi(max_players: int = 6) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the table API."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "yamscope table",
            "version": "1",
            "description": "The dice table's state and actions. Changing actions need the "
            "page's token in X-Yamscope-Token, a JSON body, and X-Yamscope-Pin when the "
            "server was started with a PIN.",
        },
        "paths": {**_page_paths(), **_throw_paths(), **records_paths(), **_sheet_paths()},
        "components": {"schemas": _schemas(max_players), "parameters": _parameters()},
    }
