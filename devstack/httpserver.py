"""The devstack's HTTP/1.1 server (the gateway, the pin server, the chain's JSON-RPC).

llhttp (Node's parser, through ``httptools``) parses and frames every request strictly; the
standard library's ``socketserver`` accepts connections, one thread each. On top of them, only
what neither does (docs/devstack.md, "What the devstack enforces"): read deadlines, the size
and count bounds of the head, and the answers the server gives itself, rendered by the app.
"""

from __future__ import annotations

import socket
import socketserver
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from typing import Any, Protocol

import httptools

from . import limits

__all__ = ["Answer", "HttpApp", "HttpRequest", "HttpServer", "ReadTimeouts"]

Answer = tuple[int, list[tuple[str, str]], bytes]  # status, headers, body
MAX_HEAD_BYTES = 65_536  # buffered before the head is complete; the quota is measured once it is
MAX_HEADERS = 100
LINGER = 1.0  # seconds a refused connection is drained after the answer, so the client reads it


@dataclass(frozen=True)
class ReadTimeouts:
    """Apache mod_reqtimeout's defaults: header=20-40,MinRate=500 body=20,MinRate=500."""

    idle: float = 60.0  # a connection waiting for its (next) request
    header: float = 20.0
    header_max: float = 40.0
    body: float = 20.0
    min_rate: float = 500.0  # bytes per second that extend a deadline by one second


@dataclass
class HttpRequest:
    """A request as received: target still percent-encoded, headers in order with repeats."""

    client: tuple[str, int]
    method: str = ""
    target: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    received: float = 0.0  # time.perf_counter() when the request was complete

    def header(self, name: str) -> str | None:
        """The last value of a header (case-insensitive), else None."""
        found = None
        for k, v in self.headers:
            if k.lower() == name.lower():
                found = v
        return found


class HttpApp(Protocol):
    """What a server serves. ``refuse`` renders the answers the server gives itself (400, 408,
    413, 414, 431, 501 an unknown method, 505) in the app's own shape."""

    max_body: int

    @property
    def read_timeouts(self) -> ReadTimeouts: ...

    def handle(self, request: HttpRequest) -> Answer | None: ...  # None: close with no answer

    def refuse(self, status: int, message: str, request: HttpRequest) -> Answer: ...


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class _ReadTimeout(Exception):
    pass


class _Connection:
    """One client connection: llhttp's callbacks collect requests; ``serve`` reads with deadlines
    and answers them in order."""

    def __init__(self, sock: socket.socket, client: tuple[str, int], app: HttpApp, server_name: str) -> None:
        self.sock, self.client, self.app, self.server_name = sock, client, app, server_name
        self.parser = httptools.HttpRequestParser(self)
        self.ready: deque[tuple[HttpRequest, bool]] = deque()  # complete requests, keep-alive
        self.current: HttpRequest | None = None
        self.head_bytes = 0
        self.in_head = False
        self.received = 0
        self.phase: tuple[float, float, float | None, int] | None = None  # start, base, cap, received then

    # -- llhttp callbacks ---------------------------------------------------

    def on_message_begin(self) -> None:
        self.current = HttpRequest(self.client)
        self.in_head = True
        t = self.app.read_timeouts
        self._begin(t.header, t.header_max, self.received)

    def on_url(self, url: bytes) -> None:
        assert self.current is not None
        self.current.method = self.parser.get_method().decode("ascii")
        self.current.target += url.decode("latin-1")

    def on_header(self, name: bytes, value: bytes) -> None:
        assert self.current is not None
        self.current.headers.append((name.decode("latin-1"), value.decode("latin-1")))
        if len(self.current.headers) > MAX_HEADERS:
            raise _Refused(431, "Request header fields too large")

    def on_headers_complete(self) -> None:
        request = self.current
        assert request is not None
        self.in_head = False
        if self.parser.get_http_version() not in ("1.0", "1.1"):
            raise _Refused(400, "HTTP/0.9 is not supported")
        request_line = len(request.method) + len(request.target) + len(" HTTP/1.1") + 1
        if request_line > limits.API_GATEWAY_MAX_HEADER_BYTES:
            raise _Refused(414, "Request-URI Too Long")
        if request_line + sum(len(v) for _, v in request.headers) > limits.API_GATEWAY_MAX_HEADER_BYTES:
            raise _Refused(431, "Request header fields too large")
        encodings = [v.lower() for k, v in request.headers if k.lower() == "transfer-encoding"]
        if encodings and encodings != ["chunked"]:  # llhttp takes any list ending in chunked
            raise _Refused(400, f"Malformed request: unsupported Transfer-Encoding {encodings!r}")
        length = request.header("Content-Length")  # llhttp has checked it: one, digits only
        if length is not None and int(length) > self.app.max_body:
            raise _Refused(413, "Request entity too large")
        t = self.app.read_timeouts
        self._begin(t.body, None, self.received)

    def on_body(self, data: bytes) -> None:
        assert self.current is not None
        self.current.body += data
        if len(self.current.body) > self.app.max_body:
            raise _Refused(413, "Request entity too large")

    def on_message_complete(self) -> None:
        assert self.current is not None
        self.current.received = time.perf_counter()
        self.ready.append((self.current, self.parser.should_keep_alive()))
        self.current, self.phase, self.head_bytes = None, None, 0

    # -- deadlines ----------------------------------------------------------

    def _begin(self, base: float, cap: float | None, received_at_start: int) -> None:
        self.phase = (time.monotonic(), base, cap, received_at_start)

    def _recv(self) -> bytes:
        t = self.app.read_timeouts
        if self.phase is None:  # waiting for a request: the idle timeout, no answer when it passes
            timeout: float | None = t.idle
        else:
            start, base, cap, at_start = self.phase
            allowed = base + (self.received - at_start) / t.min_rate if t.min_rate > 0 else base
            timeout = start + (min(allowed, cap) if cap is not None else allowed) - time.monotonic()
            if timeout <= 0:
                raise _ReadTimeout()
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65_536)
        except TimeoutError:
            raise _ReadTimeout() from None
        self.received += len(data)
        return data

    # -- the connection -----------------------------------------------------

    def serve(self) -> None:
        while True:
            try:
                next_request = self._next()
            except _Refused as refused:
                self._refuse(refused.status, refused.message)
                return
            if next_request is None:
                return
            request, keep_alive = next_request
            try:
                answer = self.app.handle(request)
                if answer is None:  # the app closes the connection unanswered (a node that went away)
                    return
                status, headers, body = answer
            except Exception:  # a devstack bug: shown, answered 500, connection closed
                traceback.print_exc(file=sys.stderr)
                status, headers, body = 500, [("Content-Type", "text/plain")], b"internal server error"
                keep_alive = False
            if not self._write(request, status, headers, body, keep_alive):
                return

    def _next(self) -> tuple[HttpRequest, bool] | None:
        """The next complete request; None when the connection closed or idled out between requests."""
        while not self.ready:
            try:
                data = self._recv()
            except _ReadTimeout:
                if self.phase is None:
                    return None
                raise _Refused(408, "The request was not received in time") from None
            if not data:
                if self.current is None:
                    return None
                raise _Refused(400, "Malformed request: the connection closed before the request was complete")
            self._feed(data)
        return self.ready.popleft()

    def _feed(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as exc:
            if isinstance(exc.__context__, _Refused):
                raise exc.__context__ from None
            raise
        except httptools.HttpParserUpgrade:  # CONNECT, Upgrade: served as plain requests, then closed
            self.ready = deque((request, False) for request, _ in self.ready)
        except httptools.HttpParserError as exc:  # llhttp's reasons name the two that are not 400
            status = {"Invalid method encountered": 501, "Invalid HTTP version": 505}.get(str(exc), 400)
            raise _Refused(status, f"Malformed request: {exc}") from None
        if self.in_head:
            self.head_bytes += len(data)
        if self.head_bytes > MAX_HEAD_BYTES:
            raise _Refused(431, "Request header fields too large")

    def _refuse(self, status: int, message: str) -> None:
        request = self.current or HttpRequest(self.client)
        try:
            answer = self.app.refuse(status, message, request)
        except Exception:  # shown; the connection closes with no answer
            traceback.print_exc(file=sys.stderr)
            return
        self._write(request, *answer, keep_alive=False)
        self._linger()

    def _linger(self) -> None:
        """Close as nginx's lingering_close: stop sending, then drain what the client still sends
        (briefly), so that closing with unread data does not reset the connection before the
        client has read the answer."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
            end = time.monotonic() + LINGER
            while (left := end - time.monotonic()) > 0:
                self.sock.settimeout(left)
                if not self.sock.recv(65_536):
                    return
        except OSError:
            return

    def _write(
        self, request: HttpRequest, status: int, headers: list[tuple[str, str]], body: bytes, keep_alive: bool
    ) -> bool:
        """Send one answer; whether the connection stays open."""
        keep_alive = keep_alive and not any(k.lower() == "connection" and v.lower() == "close" for k, v in headers)
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        lines = [f"HTTP/1.1 {status} {phrase}", f"Server: {self.server_name}", f"Date: {formatdate(usegmt=True)}"]
        lines += [
            f"{k}: {v}" for k, v in headers if k.lower() not in ("content-length", "transfer-encoding", "connection")
        ]
        lines.append(f"Content-Length: {len(body)}")
        lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self.sock.settimeout(None)
        try:
            self.sock.sendall(head + body if request.method != "HEAD" else head)
        except OSError:
            return False
        return keep_alive


class _Handler(socketserver.BaseRequestHandler):
    server: HttpServer

    def handle(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _Connection(self.request, self.client_address, self.server.app, self.server.server_name).serve()


class HttpServer(socketserver.ThreadingTCPServer):
    """Serves ``app`` on ``address`` (port 0: any free port), a thread per connection; run
    ``serve_forever`` on a thread, stop with ``shutdown`` then ``server_close``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], app: HttpApp, *, server_name: str = "devstack") -> None:
        self.app: Any = app
        self.server_name = server_name
        super().__init__(address, _Handler)
