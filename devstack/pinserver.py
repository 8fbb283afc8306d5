"""The devstack's pin server: the part of the Kubo RPC API the service uses, plus a gateway.

    handle = start_pin_server(bucket, endpoint_url=moto.url)   # port 0: any free port
    handle.url            # -> PINNING_URL, e.g. http://127.0.0.1:5001
    handle.stop()

Content lives in S3 (``ipfs/<cid>``, pins as ``pins/<cid>`` markers); the routes are ``_PinApp``'s.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

from devstack.httpserver import HttpRequest, HttpServer, ReadTimeouts

__all__ = ["PinServer", "start_pin_server", "set_fault", "clear_fault", "fault_state", "MAX_BODY"]

MAX_BODY = 64 * 1024 * 1024
VERSION = "0.29.0-devstack"
CONTENT_PREFIX = "ipfs/"
PIN_PREFIX = "pins/"
FAULT_MODES = ("down", "slow", "wrong_cid")
WRONG_CID = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"  # the empty file's CID

# What the gateway serves under its own type: what the service pins (coin images, sniffed by their
# magic bytes, and metadata JSON). Anything else is application/octet-stream, which no browser renders.
SERVED_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "application/json", "text/plain"})
# On every answer: no MIME sniffing, and a document rendered from here (an SVG, an HTML page opened
# by hand) runs no script, loads nothing and has an opaque origin.
SAFE_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox"}

_CID_RE = re.compile(r"Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{20,}")  # fullmatch

# --------------------------------------------------------------------------- faults

_fault_lock = threading.Lock()
_fault: dict[str, Any] = {"mode": None, "count": None, "delay": 3.0}


def set_fault(mode: str | None, count: int | None = 1, delay: float = 3.0) -> None:
    """Fail the next `count` /api/v0 requests (None: every one until cleared): `down` answers 503,
    `slow` sleeps `delay` seconds first, `wrong_cid` answers a CID that is not the content's."""
    if mode in (None, "", "none"):
        clear_fault()
        return
    if mode not in FAULT_MODES:
        raise ValueError(f"unknown fault mode {mode!r}; one of {', '.join(FAULT_MODES)}")
    with _fault_lock:
        _fault.update(mode=mode, count=None if count is None else int(count), delay=float(delay))


def clear_fault() -> None:
    with _fault_lock:
        _fault.update(mode=None, count=None, delay=3.0)


def fault_state() -> dict[str, Any]:
    with _fault_lock:
        return dict(_fault)


def _take_fault() -> tuple[str | None, float]:
    with _fault_lock:
        mode = _fault["mode"]
        if mode is None:
            return None, 0.0
        if _fault["count"] is not None:
            _fault["count"] -= 1
            if _fault["count"] <= 0:
                _fault.update(mode=None, count=None)
        return mode, _fault["delay"]


# --------------------------------------------------------------------------- multipart


@dataclass
class Part:
    name: str
    filename: str
    content_type: str
    data: bytes


def parse_multipart(body: bytes, content_type: str) -> list[Part]:
    match = re.search(r'boundary="?([^";]+)"?', content_type or "")
    if not content_type.lower().startswith("multipart/") or not match:
        raise ValueError("not a multipart body")
    delimiter = b"--" + match.group(1).encode("latin-1")
    parts: list[Part] = []
    chunks = body.split(delimiter)
    for chunk in chunks[1:]:
        if chunk.startswith(b"--"):
            break  # the closing delimiter
        if chunk.startswith(b"\r\n"):
            chunk = chunk[2:]
        head, sep, data = chunk.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("a part has no header block")
        if data.endswith(b"\r\n"):
            data = data[:-2]
        headers: dict[str, str] = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        disposition = headers.get("content-disposition", "")
        name = _param(disposition, "name")
        filename = _param(disposition, "filename")
        parts.append(Part(name or "", filename or "", headers.get("content-type", "application/octet-stream"), data))
    return parts


def _param(header: str, key: str) -> str | None:
    match = re.search(rf'(?:^|;)\s*{key}="((?:[^"\\]|\\.)*)"', header) or re.search(rf"(?:^|;)\s*{key}=([^;]+)", header)
    if not match:
        return None
    from urllib.parse import unquote

    return unquote(match.group(1).replace('\\"', '"'))


# --------------------------------------------------------------------------- server


class PinServer:
    """One pin server; `store` is an S3 client, content under `ipfs/<cid>` in `bucket`."""

    def __init__(self, bucket: str, s3: Any, host: str = "127.0.0.1", port: int = 0, log: bool = False) -> None:
        self.bucket, self.s3, self.log = bucket, s3, log
        self.httpd = HttpServer((host, port), _PinApp(self), server_name="devstack-pinserver/1")
        self.host, self.port = cast(tuple[str, int], self.httpd.server_address[:2])
        if self.host in ("0.0.0.0", "::", ""):
            self.host = "127.0.0.1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="devstack-pinserver", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> PinServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ---------------------------------------------------------------- storage

    def put(self, cid: str, data: bytes, content_type: str, name: str, pin: bool) -> None:
        self.s3.put_object(
            Bucket=self.bucket,
            Key=CONTENT_PREFIX + cid,
            Body=data,
            ContentType=content_type or "application/octet-stream",
            Metadata={"name": "".join(c if 32 <= ord(c) < 127 else "_" for c in name)[:200]},
        )
        if pin:
            self.s3.put_object(Bucket=self.bucket, Key=PIN_PREFIX + cid, Body=b"")

    def get(self, cid: str) -> tuple[bytes, str] | None:
        try:
            obj = self.s3.get_object(Bucket=self.bucket, Key=CONTENT_PREFIX + cid)
        except self.s3.exceptions.NoSuchKey:
            return None
        return obj["Body"].read(), obj.get("ContentType") or "application/octet-stream"

    def pinned(self, cid: str | None = None) -> list[str]:
        if cid is not None:
            try:
                self.s3.head_object(Bucket=self.bucket, Key=PIN_PREFIX + cid)
            except Exception:  # 404 ClientError
                return []
            return [cid]
        out: list[str] = []
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=PIN_PREFIX):
            out.extend(o["Key"][len(PIN_PREFIX) :] for o in page.get("Contents", []))
        return out


Answer = tuple[int, list[tuple[str, str]], bytes]


def _send(status: int, body: bytes, content_type: str = "application/json", **headers: str) -> Answer:
    return status, [("Content-Type", content_type), *SAFE_HEADERS.items(), *headers.items()], body


def _json(status: int, obj: Any) -> Answer:
    return _send(status, (json.dumps(obj) + "\n").encode())


def _error(status: int, message: str) -> Answer:
    return _json(status, {"Message": message, "Code": 0, "Type": "error"})  # Kubo's error shape


class _PinApp:
    """The routes, behind the HTTP server (``devstack.httpserver``: read deadlines, strict framing, a
    bounded head); its refusals in Kubo's error shape. Kubo RPC answers POST only, like Kubo:

        POST /api/v0/add[?pin=true&cid-version=0|1&only-hash=false]   multipart, one or more
             `file` parts; one JSON line per file: {"Name", "Hash", "Size"} (Size = DAG bytes)
        POST /api/v0/cat?arg=<cid>        the bytes
        POST /api/v0/pin/ls[?arg=<cid>]   {"Keys": {"<cid>": {"Type": "recursive"}}}
        POST /api/v0/version              {"Version", ...}
        GET  /ipfs/<cid>                  the gateway, for people: the stored Content-Type if it is one
                                          the service pins (PNG, JPEG, GIF, WebP, JSON, text), else
                                          application/octet-stream; always `X-Content-Type-Options:
                                          nosniff` and `Content-Security-Policy: default-src 'none';
                                          sandbox` (docs/security.md, "Pinned files")
        POST /_devstack/fault             {"mode": "down"|"slow"|"wrong_cid"|"none", "count": N, "delay": s}
        GET  /_devstack/fault             the current fault

    CIDs are the real ones (`partner.core.cid`, Kubo defaults); an object's ContentType is its part's.
    """

    max_body = MAX_BODY
    read_timeouts = ReadTimeouts()

    def __init__(self, server: PinServer) -> None:
        self.server = server

    def refuse(self, status: int, message: str, request: HttpRequest) -> Answer:
        status, headers, body = _error(status, message)
        return status, [*headers, ("Connection", "close")], body

    def handle(self, request: HttpRequest) -> Answer:
        url = urlsplit(request.target)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if self.server.log:
            sys.stderr.write(f"pinserver: {request.method} {url.path}\n")
        try:
            if url.path == "/_devstack/fault":
                return self._fault(request, query)
            if url.path.startswith("/ipfs/") and request.method in ("GET", "HEAD"):
                return self._gateway(url.path[len("/ipfs/") :])
            if url.path.startswith("/api/v0/"):
                if request.method != "POST":
                    return _error(405, f"{request.method} is not allowed; the RPC API takes POST")
                mode, delay = _take_fault()
                if mode == "down":
                    return _error(503, "devstack fault: pin server down")
                if mode == "slow":
                    time.sleep(delay)
                return self._rpc(request, url.path[len("/api/v0/") :], query, wrong_cid=(mode == "wrong_cid"))
            return _error(404, "404 page not found")
        except Exception as exc:  # answer like Kubo, keep serving
            status, headers, body = _error(500, f"{type(exc).__name__}: {exc}")
            return status, [*headers, ("Connection", "close")], body

    def _fault(self, request: HttpRequest, query: dict[str, str]) -> Answer:
        if request.method == "POST":
            try:
                spec = json.loads(request.body) if request.body.strip() else {}
            except ValueError:
                return _error(400, "the body must be JSON")
            spec = {**query, **spec}
            try:
                count = spec.get("count", 1)
                set_fault(
                    spec.get("mode"),
                    None if count in (None, "", "null") else int(count),
                    float(spec.get("delay", 3.0)),
                )
            except (TypeError, ValueError) as exc:
                return _error(400, str(exc))
        return _json(200, fault_state())

    def _rpc(self, request: HttpRequest, command: str, query: dict[str, str], *, wrong_cid: bool) -> Answer:
        server = self.server
        if command == "add":
            return self._add(request, query, wrong_cid=wrong_cid)
        if command == "cat":
            found = server.get(_arg_cid(query.get("arg", "")))
            if found is None:
                return _error(500, f"block was not found locally (offline): {query.get('arg', '')}")
            data, _ = found
            offset = int(query.get("offset") or 0)
            length = query.get("length")
            data = data[offset : offset + int(length)] if length else data[offset:]
            return _send(200, data, "text/plain", **{"X-Content-Length": str(len(data))})
        if command == "pin/ls":
            arg = query.get("arg")
            keys = server.pinned(_arg_cid(arg) if arg else None)
            if arg and not keys:
                return _error(500, f"path '{arg}' is not pinned")
            return _json(200, {"Keys": {k: {"Type": "recursive", "Name": ""} for k in keys}})
        if command == "version":
            return _json(200, {"Version": VERSION, "Commit": "", "Repo": "16", "System": "devstack", "Golang": ""})
        return _error(404, f'unknown command "{command}"')

    def _add(self, request: HttpRequest, query: dict[str, str], *, wrong_cid: bool) -> Answer:
        from partner.core import cid as cids

        version = int(query.get("cid-version") or 0)
        if version not in (0, 1):
            return _error(400, f"unknown CID version {version}")
        pin = (query.get("pin") or "true").lower() != "false"
        only_hash = (query.get("only-hash") or query.get("n") or "false").lower() == "true"
        try:
            parts = parse_multipart(request.body, request.header("Content-Type") or "")
        except ValueError as exc:
            return _error(400, f"file argument 'path' is required ({exc})")
        files = [p for p in parts if p.name in ("file", "path", "") or p.filename]
        if not files:
            return _error(400, "file argument 'path' is required")
        lines = []
        for part in files:
            cid, size = cids.stat(part.data, version)
            if not only_hash:
                self.server.put(cid, part.data, part.content_type, part.filename, pin)
            name = part.filename or cid
            lines.append({"Name": name, "Hash": WRONG_CID if wrong_cid else cid, "Size": str(size)})
        body = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return _send(200, body, "application/json", **{"X-Chunked-Output": "1"})

    def _gateway(self, rest: str) -> Answer:
        cid = rest.split("/", 1)[0].split("?", 1)[0]
        if not _CID_RE.fullmatch(cid):
            return _send(400, f"invalid CID {cid!r}\n".encode(), "text/plain")
        found = self.server.get(cid)
        if found is None:
            return _send(404, b"not found\n", "text/plain")
        data, stored_type = found
        media = stored_type.split(";", 1)[0].strip().lower()
        content_type = stored_type if media in SERVED_TYPES else "application/octet-stream"
        return _send(
            200,
            data,
            content_type,
            Etag=f'"{cid}"',
            **{"X-Ipfs-Path": f"/ipfs/{cid}", "Cache-Control": "public, max-age=29030400, immutable"},
        )


def _arg_cid(arg: str) -> str:
    arg = arg.strip()
    if arg.startswith("/ipfs/"):
        arg = arg[len("/ipfs/") :]
    return arg.split("/", 1)[0]


def start_pin_server(
    bucket: str,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    endpoint_url: str | None = None,
    s3: Any = None,
    log: bool = False,
) -> PinServer:
    """Start the pin server on a background thread, content in `bucket`.

    `s3`: an S3 client to use; else one for `endpoint_url` (moto) with the test
    credentials; else boto3's default (AWS_ENDPOINT_URL from the environment)."""
    if s3 is None:
        if endpoint_url:
            from devstack.aws import _client
            from devstack.events import REGION

            s3 = _client("s3", endpoint_url, REGION)
        else:
            import boto3

            s3 = boto3.session.Session().client("s3")
    return PinServer(bucket, s3, host=host, port=port, log=log)
