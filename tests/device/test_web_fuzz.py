"""Malformed requests, generated (Hypothesis): every POST route that ``/api/openapi.json``
describes gets arbitrary JSON (deep nesting, lone surrogates in names and values, any type
where its schema wants another), bodies shaped like its schema but with wrong values, and
bytes that are not JSON. The answer is never a 5xx, is always JSON, and a refused request
changes nothing. Bounded so that it runs in seconds."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from device.store import Store
from device.table import TableSession
from device.web import create_app

OK = {200, 201}
REFUSED = {400, 409, 413, 415}
FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class Table:
    """One app for the whole module, as one appliance takes every request of an evening."""

    def __init__(self, folder: Path) -> None:
        self.session = TableSession(
            Store(folder / "t.db"), rng=random.Random(3), cache_dir=folder, advice=False
        )
        self.client: FlaskClient = create_app(self.session).test_client()
        page = self.client.get("/").get_data(as_text=True)
        start = page.index('id="boot">') + len('id="boot">')
        self.token = json.loads(page[start : page.index("</script>", start)])["token"]
        self.spec = self.client.get("/api/openapi.json").json
        self.session.new_game("yams", {}, ["Anne"])

    def stored(self) -> int:
        gid = self.session.game_id
        return len(self.session.store.events(gid)) if gid is not None else 0

    def send(self, path: str, data: bytes) -> Any:
        version, stored = self.session.version, self.stored()
        r = self.client.post(
            path, data=data, content_type="application/json",
            headers={"X-Yamscope-Token": self.token},
        )  # fmt: skip
        assert r.status_code in OK | REFUSED, (r.status_code, r.get_data(as_text=True))
        assert r.is_json
        if r.status_code in REFUSED:
            assert set(r.json) == {"error", "error_fr", "status"}
            assert r.json["status"] == r.status_code
            assert (self.session.version, self.stored()) == (version, stored)
        return r


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    t = Table(tmp_path_factory.mktemp("fuzz"))
    yield t
    t.session.close()


def _posts() -> list[str]:
    from device.web.openapi import openapi

    return sorted(path for path, ops in openapi()["paths"].items() if "post" in ops)


def _body_fields(spec: dict[str, Any], path: str) -> list[str]:
    schema = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    name = schema["$ref"].rsplit("/", 1)[-1]
    return sorted(spec["components"]["schemas"][name].get("properties", {}))


# text with everything JSON can carry: lone surrogates, controls, newlines, any plane
CHARACTERS = st.characters(codec=None) | st.characters(categories=["Cs"])
TEXT = st.text(CHARACTERS, max_size=12) | st.sampled_from(
    ["\ud800", "\udfff", "7r\n", "brelan\n", "", "10wf", "chance", "facile", "Ordi facile"]
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT
ANY_JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(TEXT, inner, max_size=6),
    max_leaves=25,
)
DEEP = st.integers(1, 3500).map(lambda n: "[" * n + "]" * n)


def encoded(value: Any) -> bytes:
    """JSON as a client may send it: surrogates go as \\uXXXX escapes, which parse back."""
    return json.dumps(value, ensure_ascii=True).encode()


@FUZZ
@given(path=st.sampled_from(_posts()), body=ANY_JSON)
@example(path="/api/throw", body={"\ud800": 1})
@example(path="/api/games", body={"rules": "yams", "players": ["\udfff"]})
def test_any_json_body_is_answered_without_a_server_error(
    table: Table, path: str, body: Any
) -> None:
    table.send(path, encoded(body))


@FUZZ
@given(path=st.sampled_from(_posts()), data=st.data())
def test_bodies_shaped_like_the_schema_are_answered_without_a_server_error(
    table: Table, path: str, data: st.DataObject
) -> None:
    fields = _body_fields(table.spec, path)
    chosen = data.draw(st.lists(st.sampled_from(fields), unique=True) if fields else st.just([]))
    body = {name: data.draw(ANY_JSON, label=name) for name in chosen}
    table.send(path, encoded(body))


@FUZZ
@given(path=st.sampled_from(_posts()), raw=st.binary(max_size=200) | DEEP.map(str.encode))
@example(path="/api/throw", raw=("[" * 3500 + "]" * 3500).encode())
@example(path="/api/score", raw=b'{"box": "\xff\xfe"}')
def test_bytes_that_are_not_json_are_answered_without_a_server_error(
    table: Table, path: str, raw: bytes
) -> None:
    table.send(path, raw)
