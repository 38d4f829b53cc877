"""The table's HTTP server: werkzeug's threaded server, with the limits a LAN needs.

Why limits: every connection holds a thread, and a connection that sends half a request and
then nothing held its thread for ever, so a guest's script could hold hundreds. Here the
headers of each request must arrive within ``HEADER_TIMEOUT_S`` (else 408 and the
connection is closed), every read or write of a socket waits at most ``IDLE_TIMEOUT_S``,
and one address holds at most ``PER_CLIENT`` connections at once (a browser opens six).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import Counter
from typing import Any

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

HEADER_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 60.0
PER_CLIENT = 16
_TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
_BUSY = b"HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


class GuardedHandler(WSGIRequestHandler):
    """Closes a connection whose request headers are not all there in time."""

    timeout = IDLE_TIMEOUT_S  # socketserver sets it on the socket: each read and write
    header_timeout = HEADER_TIMEOUT_S

    def handle_one_request(self) -> None:
        self._guard = threading.Lock()
        self._headers_in = self._late = False
        timer = threading.Timer(self.header_timeout, self._too_late)
        timer.daemon = True
        timer.start()
        try:
            super().handle_one_request()
        finally:
            timer.cancel()

    def parse_request(self) -> bool:
        ok = super().parse_request()
        with self._guard:
            self._headers_in = True
            late = self._late
        if late:
            self.close_connection = True
            return False
        return ok

    def _too_late(self) -> None:
        """The timer's end: the handler still waits on the headers, so answer and close."""
        with self._guard:
            if self._headers_in:
                return
            self._late = True
        with contextlib.suppress(OSError):  # the client may have gone first
            self.connection.sendall(_TIMED_OUT)
            self.connection.shutdown(socket.SHUT_RDWR)


class TableServer(ThreadedWSGIServer):
    """A threaded server that refuses an address's connections beyond ``per_client``."""

    def __init__(self, host: str, port: int, app: Any, per_client: int = PER_CLIENT) -> None:
        super().__init__(host, port, app, GuardedHandler)
        self.per_client = per_client
        self._open: Counter[str] = Counter()
        self._count_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        client = str(client_address[0])
        with self._count_lock:
            full = self._open[client] >= self.per_client
            if not full:
                self._open[client] += 1
        if full:
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            client = str(client_address[0])
            with self._count_lock:
                self._open[client] -= 1
                if self._open[client] <= 0:
                    del self._open[client]


def make_table_server(host: str, port: int, app: Any) -> TableServer:
    """The server ``yamscope serve`` runs: pushed-state threads never keep the process alive."""
    server = TableServer(host, port, app)
    server.daemon_threads = True
    return server
