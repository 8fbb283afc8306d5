"""The CID `ipfs add` (Kubo defaults) gives for a file's bytes, computed locally, so the pin server's
answer can be checked: `cid_v0(data)`, and `cid_v1(data)` for `--cid-version=1`.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

import base58

__all__ = ["CHUNK_SIZE", "MAX_LINKS", "cid_v0", "cid_v1", "compute", "stat", "is_cid"]

CHUNK_SIZE = 262144
MAX_LINKS = 174

BASE58_ALPHABET = base58.BITCOIN_ALPHABET.decode("ascii")
_SHA2_256 = b"\x12\x20"  # multihash: sha2-256, 32 bytes
_DAG_PB = 0x70
_RAW = 0x55
_UNIXFS_FILE = 2


@dataclass(frozen=True)
class _Node:
    cid: bytes  # binary CID (v0: the multihash; v1: 0x01 + codec + multihash)
    filesize: int  # file bytes under this node
    tsize: int  # encoded bytes of this node and everything below it


# --------------------------------------------------------------------------- protobuf


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    out.append(n)
    return bytes(out)


def _field_bytes(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _field_varint(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _unixfs_file(data: bytes, filesize: int, blocksizes: tuple[int, ...] | list[int] = ()) -> bytes:
    # message Data { Type = 1; Data = 2; filesize = 3; repeated blocksizes = 4 (unpacked) }
    out = _field_varint(1, _UNIXFS_FILE)
    if data:
        out += _field_bytes(2, data)
    out += _field_varint(3, filesize)
    for size in blocksizes:
        out += _field_varint(4, size)
    return out


def _pb_node(links: list[_Node], data: bytes) -> bytes:
    # message PBNode { repeated PBLink Links = 2; Data = 1 }, Links written first;
    # message PBLink { Hash = 1; Name = 2; Tsize = 3 }, Name written even when empty.
    out = b"".join(
        _field_bytes(2, _field_bytes(1, link.cid) + _field_bytes(2, b"") + _field_varint(3, link.tsize))
        for link in links
    )
    return out + _field_bytes(1, data)


# --------------------------------------------------------------------------- CIDs


def _cid(block: bytes, version: int, codec: int) -> bytes:
    multihash = _SHA2_256 + hashlib.sha256(block).digest()
    if version == 0:
        return multihash
    return _varint(1) + _varint(codec) + multihash


def _leaf(chunk: bytes, version: int) -> _Node:
    if version == 1:  # raw leaves
        return _Node(_cid(chunk, 1, _RAW), len(chunk), len(chunk))
    block = _pb_node([], _unixfs_file(chunk, len(chunk)))
    return _Node(_cid(block, 0, _DAG_PB), len(chunk), len(block))


def _parent(children: list[_Node], version: int) -> _Node:
    filesize = sum(c.filesize for c in children)
    block = _pb_node(children, _unixfs_file(b"", filesize, [c.filesize for c in children]))
    return _Node(_cid(block, version, _DAG_PB), filesize, len(block) + sum(c.tsize for c in children))


def _root(data: bytes, version: int) -> _Node:
    if not data:  # an empty file is one empty leaf
        return _leaf(b"", version)
    cache: dict[bytes, _Node] = {}  # equal chunks (zero padding, ...) hash once
    level = []
    view = memoryview(data)
    for start in range(0, len(data), CHUNK_SIZE):
        chunk = bytes(view[start : start + CHUNK_SIZE])
        key = hashlib.sha256(chunk).digest()
        node = cache.get(key)
        if node is None:
            node = cache[key] = _leaf(chunk, version)
        level.append(node)
    # Balanced layout: every node but the last of a level is full, so building
    # bottom-up in groups of MAX_LINKS gives the same tree as Kubo's top-down fill.
    while len(level) > 1:
        level = [_parent(level[i : i + MAX_LINKS], version) for i in range(0, len(level), MAX_LINKS)]
    return level[0]


def _text(raw: bytes, version: int) -> str:
    if version == 0:
        return base58.b58encode(raw).decode("ascii")
    return "b" + base64.b32encode(raw).decode("ascii").lower().rstrip("=")


def cid_v0(data: bytes) -> str:
    """`ipfs add` (Kubo defaults, CIDv0) of `data`: "Qm..."."""
    return _text(_root(bytes(data), 0).cid, 0)


def cid_v1(data: bytes) -> str:
    """`ipfs add --cid-version=1` (raw leaves) of `data`, base32: "bafk..." / "bafy..."."""
    return _text(_root(bytes(data), 1).cid, 1)


def compute(data: bytes, version: int = 0) -> str:
    """Kubo's defaults: fixed-size chunker of 262144 bytes, balanced layout with at most
    174 links per node, UnixFS in dag-pb, sha2-256, CIDv0 and no raw leaves:

        cid_v0(b"hello world\n") == "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"

    With `--cid-version=1` Kubo turns raw leaves on: chunks are `raw` blocks, the
    parents stay dag-pb, and the CID is printed in base32 (`bafk...` for a file of one
    chunk, `bafy...` above that): `cid_v1(data)`.

    Blocks (dag-pb, canonical order: Links before Data):

        leaf   PBNode{Data: UnixFS{Type: File, Data: chunk, filesize: len(chunk)}}
        parent PBNode{Links: [PBLink{Hash, Name: "", Tsize}], Data: UnixFS{Type: File,
               filesize: sum, blocksizes: [file bytes under each link]}}

    `Tsize` is the number of encoded bytes of the whole sub-DAG behind the link. The
    protobuf encoding is written out by hand; it needs nothing beyond hashlib.
    """
    return stat(data, version)[0]


def stat(data: bytes, version: int = 0) -> tuple[str, int]:
    """(CID, DAG size): the `Hash` and `Size` (encoded bytes of all blocks) `ipfs add` reports."""
    if version not in (0, 1):
        raise ValueError(f"unsupported CID version {version}")
    root = _root(bytes(data), version)
    return _text(root.cid, version), root.tsize


def is_cid(text: str) -> bool:
    """A syntactically plausible sha2-256 CIDv0 (Qm + 44 base58) or base32 CIDv1."""
    if len(text) == 46 and text.startswith("Qm"):
        return all(c in BASE58_ALPHABET for c in text)
    if text.startswith("b") and len(text) > 8:
        return all(c in "abcdefghijklmnopqrstuvwxyz234567" for c in text[1:])
    return False
