"""The API's request bodies, one pydantic model each: what ``api.py`` validates every POST
with and what ``openapi.py`` describes them by, so the two cannot drift apart.

Each field's check is one of ``validate``'s (the messages the page and its translations know);
the model says which fields a body has, which are required, and the JSON schema of each.
``parse`` refuses a body the way the API always has: not an object, an unknown field, a
missing one, then the first field that fails its check, all as ``BadRequest`` (HTTP 400).
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, PlainValidator, ValidationError, ValidationInfo
from pydantic import WithJsonSchema as Schema

from device.web import validate
from device.web.validate import BOX_PATTERN, MAX_DICE, NAME_MAX, BadRequest
from scoring.dice import TOKEN_PATTERN
from scoring.rulebooks import RULEBOOKS

TOKEN = {"type": "string", "pattern": f"^{TOKEN_PATTERN}$", "examples": ["7r", "10wf"]}
BOX = {"type": "string", "pattern": f"^{BOX_PATTERN}$"}
POSITIONS = {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": MAX_DICE}
DICE = {"type": "array", "items": TOKEN, "maxItems": MAX_DICE}


def _context(info: ValidationInfo, name: str) -> Any:
    return (info.context or {})[name]


def _options(value: Any, info: ValidationInfo) -> dict[str, Any]:
    rules = info.data.get("rules")
    return validate.options(value, rules) if rules is not None else {}  # rules refused first


def _keep(value: Any, info: ValidationInfo) -> list[int]:
    return validate.keep(value, _context(info, "dice_count"))


class Body(BaseModel):
    """A request body: only its own fields (``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


class NewGame(Body):
    rules: Annotated[str, PlainValidator(validate.rules_id), Schema({"enum": list(RULEBOOKS)})]
    options: Annotated[
        dict[str, Any],
        PlainValidator(_options),
        Schema(
            {
                "type": "object",
                "description": "the rulebook's options by name (GET /api/rules lists them)",
                "additionalProperties": {"type": ["string", "integer", "boolean"]},
            }
        ),
    ] = {}
    players: Annotated[
        list[str],
        PlainValidator(lambda v, info: validate.players(v, _context(info, "max_players"))),
        Schema(
            {
                "type": "array",
                "minItems": 1,
                "maxItems": 6,  # the table's max_players: see request_schemas
                "description": "human names, or facile / difficile for computer players",
                "items": {"type": "string", "minLength": 1, "maxLength": NAME_MAX},
            }
        ),
    ]


class Throw(Body):
    keep: Annotated[
        list[int],
        PlainValidator(_keep),
        Schema({**POSITIONS, "description": "positions of the dice set aside"}),
    ] = []
    dice: Annotated[
        list[str] | None,
        PlainValidator(lambda v: None if v is None else validate.dice(v)),
        Schema({**DICE, "description": "dice read on the tray; absent: the simulated tray throws"}),
    ] = None


class Correct(Body):
    dice: Annotated[list[str], PlainValidator(validate.dice), Schema({**DICE, "minItems": 1})]


class Keep(Body):
    keep: Annotated[
        list[int],
        PlainValidator(_keep),
        Schema({**POSITIONS, "description": "dice set aside before the camera's next read"}),
    ]


class Announce(Body):
    box: Annotated[str, PlainValidator(validate.box), Schema(BOX)]


class Score(Body):
    box: Annotated[
        str | None,
        PlainValidator(lambda v: validate.box(v, nullable=True)),
        Schema(
            {"oneOf": [BOX, {"type": "null"}], "description": "null only after an announced throw"}
        ),
    ]


class Undo(Body):
    pass


class Skip(Body):
    pass


class Calibrate(Body):
    anyway: Annotated[
        bool,
        PlainValidator(validate.anyway),
        Schema(
            {
                "type": "boolean",
                "description": "calibrate even with dice in view (409 with dice_seen else)",
            }
        ),
    ] = False


BODIES: tuple[type[Body], ...] = (
    NewGame,
    Throw,
    Correct,
    Keep,
    Announce,
    Score,
    Undo,
    Skip,
    Calibrate,
)
B = TypeVar("B", bound=Body)


def parse(model: type[B], data: Any, **context: Any) -> B:
    """``data`` as a ``model``, or BadRequest for the first thing wrong with it. ``context``:
    what a check needs from the table (``max_players``, ``dice_count``)."""
    fields = model.model_fields
    required = frozenset(name for name, f in fields.items() if f.is_required())
    validate.body(data, set(fields), required)
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        error = exc.errors()[0].get("ctx", {}).get("error")
        if isinstance(error, BadRequest):
            raise error from None
        raise BadRequest(exc.errors()[0]["msg"]) from None


def request_schemas(max_players: int) -> dict[str, Any]:
    """The JSON schema of every body by its model's name, as the OpenAPI document holds them
    (pydantic's titles left out; the players' count is this table's)."""
    out = {}
    for model in BODIES:
        schema = model.model_json_schema()
        schema.pop("title", None)
        for field in schema.get("properties", {}).values():
            field.pop("title", None)
            field.pop("default", None)
        out[model.__name__] = schema
    out["NewGame"]["properties"]["players"]["maxItems"] = max_players
    return out
