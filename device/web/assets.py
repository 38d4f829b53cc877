"""The pages' script and style files: read once from this package and served from memory
with an ETag, for the table's app and the owner's blueprint alike.

Why from memory: no request path ever reaches the file system, and a page asks for a file
by its digest, so a new version is fetched at once and an unchanged one never twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from importlib import resources

from flask import Blueprint, Flask, Response, request


def read_static(types: Mapping[str, str]) -> dict[str, tuple[bytes, str]]:
    """Each named file of ``device/web/static`` with the first 12 hex digits of its SHA-256."""
    folder = resources.files("device.web") / "static"
    out = {}
    for name in types:
        data = (folder / name).read_bytes()
        out[name] = (data, hashlib.sha256(data).hexdigest()[:12])
    return out


def _asset(data: bytes, digest: str, mimetype: str) -> Callable[[], Response]:
    def asset() -> Response:
        response = Response(data, mimetype=mimetype)
        response.set_etag(digest)
        response.headers["Cache-Control"] = "no-cache"
        return response.make_conditional(request)

    return asset


def add_static(target: Flask | Blueprint, types: Mapping[str, str]) -> dict[str, str]:
    """Serve each file at ``/static/<name>`` (endpoint: the name with ``_`` for ``.``) and
    return their digests, which the templates put in the files' addresses."""
    static = read_static(types)
    for name, (data, digest) in static.items():
        view = _asset(data, digest, types[name])
        target.add_url_rule(f"/static/{name}", name.replace(".", "_"), view)
    return {name: digest for name, (_, digest) in static.items()}
