"""What every owner route shares: the appliance as ``serve`` gives it (``Owner``), the
request bodies, the refusal with its French line, and the JSON answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from flask import Response, current_app, jsonify, request
from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr
from pydantic import ValidationError as BodyError

from device.config_sections import Config
from device.logbook import Logbook
from device.power import Power
from device.storage import is_url

MARKER = "setup.json"  # beside the calibration: the wizard was finished once


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


# -- the request's context -----------------------------------------------------------------------
def current_owner() -> Owner:
    return current_app.extensions["yamscope.owner"]


def current_session() -> Any:
    return current_app.extensions["yamscope.session"]


def current_watcher() -> Any:
    return current_session().watcher


def parse_body(model: type[Body]) -> Any:
    """The request's JSON as ``model``; a Refused (400) naming what is wrong otherwise."""
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


def answer(data: Any, status: int = 200) -> Response:
    response = jsonify(data)
    response.status_code = status
    return response


def refusal(exc: Refused) -> Response:
    return answer({"error": str(exc), "error_fr": exc.french, "status": exc.status}, exc.status)
