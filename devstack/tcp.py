"""TCP_NODELAY for the devstack's HTTP servers.

http.server writes a response's headers and body in separate sends; with Nagle's
algorithm on, the second small send waits for the client's delayed ACK, about 40 ms, so
every request cost ~44 ms however little work it did (measured on the chain's getSlot).
"""

from __future__ import annotations

import socket


class NoDelay:
    """Mix into a BaseHTTPRequestHandler (before it) to disable Nagle on each connection."""

    def setup(self) -> None:
        super().setup()  # type: ignore[misc]  # a mixin: the handler class supplies setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # type: ignore[attr-defined]  # and the connection
