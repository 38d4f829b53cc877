"""The records' old home: ``device.storage`` holds them now (SQLite and PostgreSQL)."""

from device.storage import (
    MIGRATIONS,
    Store,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreUnavailable,
)

__all__ = ["MIGRATIONS", "Store", "StoreDamaged", "StoreError", "StoreFull", "StoreUnavailable"]
