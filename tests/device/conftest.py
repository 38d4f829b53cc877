"""Fixtures shared by the device tests: the real Chromium of ``test_web_e2e`` for every page
test of this folder, and a real PostgreSQL server for the club's records.

The server is ``$YAMSCOPE_TEST_POSTGRES`` when set (``.ci/run`` starts one and sets it),
else a throw-away cluster these fixtures start themselves wherever PostgreSQL's ``initdb``
is installed (Debian: ``apt-get install postgresql``). Without either, the tests that need
it fail under CI and are skipped elsewhere, saying how to run them (docs/records.md).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest
from pg_cluster import APT, Cluster, drop_database, find_bin, new_database
from test_web_e2e import driver  # noqa: F401  (a fixture: pytest finds it by name)


def _no_server(why: str) -> None:
    message = f"PostgreSQL tests need a server: {why} ({APT}, or set YAMSCOPE_TEST_POSTGRES)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's ``postgres`` database, as its superuser."""
    url = os.environ.get("YAMSCOPE_TEST_POSTGRES")
    if url:
        yield url
        return
    if find_bin("initdb") is None:
        _no_server("initdb is not installed")
    cluster = Cluster()
    cluster.start()
    try:
        yield cluster.url
    finally:
        cluster.remove()


@pytest.fixture
def pg_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database for one test; dropped after it."""
    name = f"yamscope_test_{secrets.token_hex(4)}"
    url = new_database(postgres_server, name)
    yield url
    drop_database(postgres_server, name)


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of this test's own, started, which the test may stop and start again."""
    if find_bin("initdb") is None:
        _no_server("initdb is not installed")
    cluster = Cluster()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.remove()
