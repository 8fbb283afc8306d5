"""One TLS context per process, shared by every HTTPS pool (RPC, block engine, pinning).

Building an `ssl.SSLContext` loads the CA bundle into it (about 20 ms); a cold start that
talks to the chain and the pin server would pay it twice. Built on first use (nothing at
import). Trust: the certifi bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set (as httpx,
which the service used before, did).
"""

from __future__ import annotations

import os
import ssl
import threading
from typing import Any

import certifi

from partner.core import snapshot

_lock = threading.Lock()
_context: Any = None


def context() -> Any:
    global _context
    if _context is None:
        with _lock:
            if _context is None:
                cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
                if not (cafile or capath):
                    cafile = certifi.where()
                _context = ssl.create_default_context(cafile=cafile, capath=capath)
    return _context


@snapshot.after_restore
def reset() -> None:
    """A fresh context per restored environment (TLS session caches are not shared)."""
    global _context
    with _lock:
        _context = None
