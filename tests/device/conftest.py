"""The real-Chromium fixture of ``test_web_e2e`` for every page test of this folder."""

from test_web_e2e import driver  # noqa: F401  (a fixture: pytest finds it by name)
