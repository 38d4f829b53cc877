"""The table's records, in an SQLite file (one table) or a PostgreSQL database (a club)."""

from device.storage.errors import StoreDamaged, StoreError, StoreFull, StoreUnavailable
from device.storage.postgres import is_url, shown
from device.storage.store import MIGRATIONS, Store

__all__ = [
    "MIGRATIONS",
    "Store",
    "StoreDamaged",
    "StoreError",
    "StoreFull",
    "StoreUnavailable",
    "is_url",
    "shown",
]
