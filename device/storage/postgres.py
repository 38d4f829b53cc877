"""The records in a PostgreSQL database: one club, several tables (one appliance each).

Why these settings: each write is one transaction committed with ``synchronous_commit =
on``, so once it returns the server has it on disk, as the SQLite path promises. A server
that goes away is told apart from every other failure (StoreUnavailable): the page says so
and refuses actions until it is back, and the connection is made again by itself. TCP
keepalives and a user timeout bound how long a vanished server can hold a write.
psycopg is imported here only, so a table that keeps its records in SQLite never loads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from device.storage.errors import StoreError, StoreFull, StoreUnavailable

SCHEMES = ("postgresql://", "postgres://")
CONNECT = {
    "connect_timeout": 3,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 2,
    "tcp_user_timeout": 6000,  # ms: a write to a server that vanished fails, not hangs
    "application_name": "yamscope",
}
SCHEMA_LOCK = 0x79616D73  # "yams": one migration at a time across a club's appliances


def is_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(url)
    except Exception:  # an unreadable URL is reported by connect; show only its scheme
        return url.split("://", 1)[0] + "://…"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"


def _sql(text: str) -> str:
    """The records' ``?`` placeholders as psycopg's."""
    return text.replace("%", "%%").replace("?", "%s")


class PostgresEngine:
    """One connection, remade when the server comes back (the Store holds the lock)."""

    name = "postgresql"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - psycopg is a dependency
            need = "PostgreSQL needs psycopg: pip install 'psycopg[binary]'"
            raise StoreError(f"{need} ({exc})") from None
        self._psycopg = psycopg
        self.errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        self.url = url
        self.where = shown(url)
        self.conn: Any = None
        self._connect()

    # -- the connection -----------------------------------------------------------------
    def _connect(self) -> None:
        psycopg = self._psycopg
        try:
            self.conn = psycopg.connect(self.url, autocommit=True, **CONNECT)
            self.conn.execute("SET synchronous_commit = on")
        except psycopg.ProgrammingError as exc:  # a URL psycopg cannot read
            raise StoreError(f"{self.where}: not a PostgreSQL address: {_first(exc)}") from None
        except psycopg.Error as exc:
            self.conn = None
            raise StoreUnavailable(
                f"the records database {self.where} cannot be reached: {_first(exc)}"
            ) from None

    def _alive(self) -> Any:
        if self.conn is None or self.conn.closed or self.conn.broken:
            self._connect()
        return self.conn

    def _retrying(self, sql: str, args: Sequence[Any]) -> Any:
        """A statement outside a transaction, once more on a fresh connection if the old one
        was cut (the server restarted): nothing had been done on it yet."""
        try:
            return self._alive().execute(_sql(sql), args)
        except self._psycopg.OperationalError:
            if self.conn is not None and not self.conn.broken and not self.conn.closed:
                raise
            self._connect()
            return self.conn.execute(_sql(sql), args)

    def error(self, exc: BaseException) -> StoreError:
        errors = self._psycopg.errors
        if isinstance(exc, StoreError):
            return exc
        if isinstance(exc, errors.DiskFull):
            return StoreFull(f"the records database's disk is full ({self.where}): {_first(exc)}")
        if isinstance(exc, self._psycopg.OperationalError) or self.conn is None or self.conn.broken:
            return StoreUnavailable(
                f"the records database {self.where} cannot be reached: {_first(exc)}"
            )
        return StoreError(f"{self.where}: {_first(exc)}")

    def setup(self) -> None:
        """Durability is set on each connection (synchronous_commit)."""

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    # -- statements ---------------------------------------------------------------------
    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        if self.in_transaction:
            return self.conn.execute(_sql(sql), args)
        return self._retrying(sql, args)

    def insert(self, sql: str, args: Sequence[Any] = ()) -> int:
        return int(self.execute(sql + " RETURNING id", args).fetchone()[0])

    def begin(self) -> None:
        self._retrying("BEGIN", ())

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn is not None and not self.conn.broken and self.in_transaction:
            self.conn.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        if self.conn is None or self.conn.closed:
            return False
        status = self.conn.info.transaction_status
        return status != self._psycopg.pq.TransactionStatus.IDLE

    def ping(self) -> None:
        """StoreUnavailable unless the server answers now (reconnecting if it can)."""
        try:
            self._retrying("SELECT 1", ()).fetchone()
        except self._psycopg.Error as exc:
            raise self.error(exc) from None

    # -- the schema's version -------------------------------------------------------------
    def _exists(self, table: str) -> bool:
        return self.execute("SELECT to_regclass(?)", (table,)).fetchone()[0] is not None

    def version(self) -> int:
        if not self._exists("yamscope_schema"):
            return 0
        row = self.execute("SELECT version FROM yamscope_schema").fetchone()
        return int(row[0]) if row else 0

    def set_version(self, number: int) -> None:
        self.execute("CREATE TABLE IF NOT EXISTS yamscope_schema (version INTEGER NOT NULL)")
        self.execute("DELETE FROM yamscope_schema")
        self.execute("INSERT INTO yamscope_schema (version) VALUES (?)", (int(number),))

    @contextmanager
    def schema_lock(self) -> Iterator[None]:
        """Appliances of a club started together migrate one after the other. A session
        lock taken before the migration's transaction begins: a transaction begun earlier
        could still see the tables as they were before the other appliance made them."""
        self.execute("SELECT pg_advisory_lock(?)", (SCHEMA_LOCK,))
        try:
            yield
        finally:
            with suppress(self._psycopg.Error):
                self.execute("SELECT pg_advisory_unlock(?)", (SCHEMA_LOCK,))

    def foreign(self) -> bool:
        """True for a database where another program keeps a table named games."""
        return self.version() == 0 and self._exists("games")


def _first(exc: BaseException) -> str:
    """The first line of a driver's message (libpq's are several)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
