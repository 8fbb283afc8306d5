"""Strict request reading for the devstack's HTTP servers (the gateway and the pin server).

``http.server`` reads a request with no deadline and trusts its framing: a partial header was
held for minutes, a body sent at 1 byte/s was accepted, a chunk size of ``-1`` hung the thread
(``rfile.read(-1)`` reads to EOF), ``+5`` or ``0x5`` passed as chunk sizes, two
``Content-Length`` headers used the last, and its own errors were HTML pages. Mixed into a
``BaseHTTPRequestHandler`` (before it), :class:`StrictRequestReading` gives:

* **read deadlines**, as a production front end sets them. The values are Apache httpd's
  ``mod_reqtimeout`` defaults (``RequestReadTimeout header=20-40,MinRate=500
  body=20,MinRate=500``): the request line and headers within 20 s, extended by 1 s for every
  500 bytes received, never past 40 s; the body within 20 s, extended by 1 s for every 500 bytes
  received (so a body must average 500 bytes/s once past its first 20 s). The header deadline
  starts with a request's first byte; a connection with no request (new, or kept alive after
  one) is closed after 60 s idle (an ALB's default idle timeout). Past a deadline: ``408``.
* **strict framing** (RFC 9112 section 6, with no leniency): one ``Content-Length`` of ASCII
  digits, else ``400``; ``Transfer-Encoding`` exactly ``chunked`` and never with a
  ``Content-Length``, else ``400``; chunk sizes of 1 to 16 hex digits with optional extensions
  and CRLF, each chunk followed by CRLF, trailers bounded; a body shorter than announced (the
  client closed) is ``400``, not a truncated body.
* **a size bound on the head**: the request line and header values together at most
  ``limits.API_GATEWAY_MAX_HEADER_BYTES`` (10,240 bytes, API Gateway's REST quota) -> ``431``
  (a request line alone over it: ``414``); http.server's own limits (a line over 65,536
  bytes, over 100 headers) answer ``431`` as well.
* every error the server answers itself goes through ``error_response(status, message)``, which
  the server renders in its own shape (the gateway: the template's gateway responses, JSON),
  never http.server's HTML page.

Deadlines are ``ReadTimeouts`` on the handler class (``read_timeouts``); tests shorten them.
"""

from __future__ import annotations

import io
import re
import socket
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from . import limits

__all__ = ["FramingError", "PayloadTooLarge", "ReadTimeouts", "StrictRequestReading", "read_body"]

_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})(?:[ \t]*;[^\r\n]*)?\r\n")
_DIGITS = re.compile(r"[0-9]{1,19}")
_MAX_CHUNK_LINE = 4096
_MAX_TRAILER_LINE = 8192
_MAX_TRAILERS = 100


class FramingError(ValueError):
    """A request whose framing is not exact (answered 400)."""


class PayloadTooLarge(Exception):
    """A body over the server's limit (answered 413)."""


@dataclass(frozen=True)
class ReadTimeouts:
    """Apache mod_reqtimeout's defaults: header=20-40,MinRate=500 body=20,MinRate=500."""

    idle: float = 60.0  # a connection waiting for its (next) request
    header: float = 20.0
    header_max: float = 40.0
    body: float = 20.0
    min_rate: float = 500.0  # bytes per second that extend a deadline by one second


class _DeadlineSocket(io.RawIOBase):
    """The connection's reading side; each recv waits only until the current deadline."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock
        self.received = 0
        self._phase: tuple[float, float, float | None, int] | None = None  # start, base, cap, received at start
        self._min_rate = 0.0

    def begin(self, base: float, cap: float | None, min_rate: float) -> None:
        self._phase = (time.monotonic(), base, cap, self.received)
        self._min_rate = min_rate

    def end(self) -> None:
        self._phase = None
        self.sock.settimeout(None)

    def _deadline(self) -> float | None:
        if self._phase is None:
            return None
        start, base, cap, at_start = self._phase
        allowed = base + ((self.received - at_start) / self._min_rate if self._min_rate > 0 else 0.0)
        if cap is not None:
            allowed = min(allowed, cap)
        return start + allowed

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        deadline = self._deadline()
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("request read deadline passed")
            self.sock.settimeout(remaining)
        n = self.sock.recv_into(buffer)
        self.received += n
        return n


def _single(headers: Any, name: str) -> str | None:
    values = headers.get_all(name) or []
    if len(values) > 1:
        raise FramingError(f"more than one {name} header")
    return values[0] if values else None


def read_body(rfile: Any, headers: Any, max_bytes: int) -> bytes:
    """The request body, framed exactly (``headers``: an ``email.message.Message`` as http.server
    parses them). Raises FramingError (400), PayloadTooLarge (413) or TimeoutError (408)."""
    te = _single(headers, "Transfer-Encoding")
    cl = _single(headers, "Content-Length")
    if te is not None:
        if cl is not None:
            raise FramingError("both Transfer-Encoding and Content-Length")
        if te.strip().lower() != "chunked":
            raise FramingError(f"unsupported Transfer-Encoding {te!r}")
        return _read_chunked(rfile, max_bytes)
    if cl is None:
        return b""
    if not _DIGITS.fullmatch(cl.strip(" \t")):
        raise FramingError(f"Content-Length {cl!r} is not a decimal number")
    length = int(cl)
    if length > max_bytes:
        raise PayloadTooLarge()
    data = rfile.read(length) if length else b""
    if len(data) != length:
        raise FramingError("the connection closed before the body was complete")
    return data


def _read_chunked(rfile: Any, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        line = rfile.readline(_MAX_CHUNK_LINE + 1)
        match = _CHUNK_SIZE.fullmatch(line)
        if not match:
            raise FramingError("malformed chunk size line")
        size = int(match.group(1), 16)
        if size == 0:
            break
        total += size
        if total > max_bytes:
            raise PayloadTooLarge()
        data = rfile.read(size)
        if len(data) != size or rfile.read(2) != b"\r\n":
            raise FramingError("a chunk is not followed by CRLF")
        chunks.append(data)
    for _ in range(_MAX_TRAILERS + 1):
        line = rfile.readline(_MAX_TRAILER_LINE + 1)
        if line == b"\r\n":
            return b"".join(chunks)
        if not line.endswith(b"\r\n"):
            raise FramingError("malformed trailer")
    raise FramingError("too many trailers")


class StrictRequestReading:
    """Mix into a BaseHTTPRequestHandler (before it): read deadlines, a bounded head, and errors in
    the server's own shape (override ``error_response``)."""

    read_timeouts: ReadTimeouts = ReadTimeouts()
    max_head_bytes: int = limits.API_GATEWAY_MAX_HEADER_BYTES
    rfile: Any  # the handler's reader, replaced in setup by one with read deadlines
    headers: Any  # set by BaseHTTPRequestHandler.parse_request

    # -- hooks -------------------------------------------------------------

    def error_response(self, status: int, message: str) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- plumbing ----------------------------------------------------------

    def setup(self) -> None:
        super().setup()  # type: ignore[misc]
        self.rfile.close()  # http.server's own reader, unused
        self._reader = _DeadlineSocket(self.connection)  # type: ignore[attr-defined]
        self.rfile = io.BufferedReader(self._reader)

    def begin_body(self) -> None:
        """Start the body's deadline (call before reading the body)."""
        t = self.read_timeouts
        self._reader.begin(t.body, None, t.min_rate)

    def end_reading(self) -> None:
        """The request is read: no deadline while it is handled and answered."""
        self._reader.end()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (bad request line, 414, 431, 505, ...) in the server's shape."""
        self.close_connection = True
        if not getattr(self, "command", None):
            self.command = ""
        if getattr(self, "request_version", "") not in ("HTTP/1.0", "HTTP/1.1"):
            self.request_version = "HTTP/1.1"  # an answer with a status line, whatever was asked
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Error"
        if code == 431:
            message = "Request header fields too large"
        self._reader.end()  # no read deadline on the answer
        self.error_response(code, message or phrase)

    def handle_one_request(self) -> None:
        t = self.read_timeouts
        self.raw_requestline = b""
        self._reader.begin(t.idle, t.idle, 0.0)
        try:
            waiting = self.rfile.peek(1)
        except (TimeoutError, OSError):
            waiting = b""
        if not waiting:  # closed, or idle too long: nothing to answer
            self._reader.end()
            self.close_connection = True
            return
        self._reader.begin(t.header, t.header_max, t.min_rate)
        try:
            self.raw_requestline = self.rfile.readline(self.max_head_bytes + 3)
            if not self.raw_requestline:
                self.close_connection = True
                return
            if len(self.raw_requestline.rstrip(b"\r\n")) > self.max_head_bytes:
                self.requestline, self.request_version, self.command = "", "", ""
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                return
            if not self.parse_request():  # type: ignore[attr-defined]
                return  # parse_request answered (through send_error)
            if self.request_version == "HTTP/0.9":  # no headers, no status line: not served
                self.send_error(HTTPStatus.BAD_REQUEST, "HTTP/0.9 is not supported")
                return
            head = len(self.requestline) + sum(len(v) for v in self.headers.values())
            if head > self.max_head_bytes:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
                return
            method = getattr(self, "do_" + self.command, None)
            if method is None:
                self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})")
                return
            method()
            self.wfile.flush()  # type: ignore[attr-defined]
        except TimeoutError:  # part of a request came, not all of it in time: say why it ends
            self.close_connection = True
            try:
                self._reader.end()
                self.error_response(HTTPStatus.REQUEST_TIMEOUT, "The request was not received in time")
                self.wfile.flush()  # type: ignore[attr-defined]
            except OSError:
                pass
        finally:
            self._reader.end()
