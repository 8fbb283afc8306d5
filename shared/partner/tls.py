"""One TLS context per process, shared by every httpx client (RPC, block engine, pinning).

Each `httpx.Client()` otherwise builds its own `ssl.SSLContext` and loads the certifi CA
bundle into it (about 20 ms per client); a cold start that talks to the chain and the pin
server paid it twice. Built on first use (nothing at import). Same trust as httpx's
default: certifi, or SSL_CERT_FILE / SSL_CERT_DIR when set.
"""

from __future__ import annotations

import threading
from typing import Any

from partner import lazy, snapshot

httpx = lazy.module("httpx")
_lock = threading.Lock()
_context: Any = None


def context() -> Any:
    global _context
    if _context is None:
        with _lock:
            if _context is None:
                _context = httpx.create_ssl_context()
    return _context


@snapshot.after_restore
def reset() -> None:
    """A fresh context per restored environment (TLS session caches are not shared)."""
    global _context
    with _lock:
        _context = None
