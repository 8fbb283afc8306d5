"""The service's side of the uri-borne locks (docs/programs.md "The uri-borne locks"): the reader of the
metadata JSON trusts a field only when it hashes to the digest the program committed."""

from __future__ import annotations

from types import SimpleNamespace

from partner.chain import governance_math as GM
from partner.chain import layouts as L
from partner.features.governance.content import current_content, on_chain_changes

DOC = {"image": "ipfs://QmImage", "description": "hello", "website": "https://a.example", "twitter": 7}


def _gov(document: dict) -> L.Governance:
    gov = L.Governance()
    gov.content_digests = GM.content_digests(document)
    return gov


def test_a_field_that_does_not_hash_to_its_digest_reads_as_absent():
    meta = SimpleNamespace(name="Coin", symbol="COIN")
    gov = _gov(DOC)
    assert current_content(meta, DOC, gov) == {
        "name": "Coin",
        "symbol": "COIN",
        "image": "ipfs://QmImage",
        "description": "hello",
        "website": "https://a.example",
        "twitter": "",  # not a string: the empty string's digest, committed as such
        "telegram": "",
    }
    swapped = {**DOC, "image": "ipfs://QmOther", "telegram": "https://t.me/x"}
    current = current_content(meta, swapped, gov)
    assert (current["image"], current["telegram"], current["description"]) == ("", "", "hello")


def test_only_changes_the_program_sees_count():
    gov = _gov(DOC)
    changes = {"name": "New", "description": "hello", "website": "https://b.example"}
    assert on_chain_changes(changes, gov) == {"name": "New", "website": "https://b.example"}


def test_the_digest_is_sha256_of_the_utf8_string_cut_to_16_bytes():
    import hashlib

    assert GM.field_digest("Caf\u00e9") == hashlib.sha256("Caf\u00e9".encode()).digest()[:16]
    assert GM.field_digest(None) == GM.field_digest("") == GM.field_digest(3)
    assert GM.digest_mask(GM.content_digests({}), GM.content_digests({"website": "w", "telegram": "t"})) == (
        GM.field_mask(website=True, telegram=True)
    )


def test_the_largest_launch_transaction_still_fits_a_packet():
    """create_coin with the largest name, symbol and uri and the five digests, the bypass fee transfer, the
    compute-budget instructions and a tip transfer (the launch's own transaction has none: the first buy and the
    tip ride in the bundle's second; an upper bound): within 1232 bytes, signed by the creator and the mint."""
    from solders.hash import Hash
    from solders.keypair import Keypair

    from partner.chain import instructions as ix
    from partner.chain.tx import PACKET_DATA_SIZE, WriteFees, assemble

    creator, mint, treasury = Keypair(), Keypair(), Keypair()
    document = {f: "x" * 200 for f in GM.URI_FIELDS}
    create = ix.create_coin(creator.pubkey(), mint.pubkey(), "\u00e9" * 16, "W" * 10, "u" * 200, document)
    bypass = ix.system_transfer(creator.pubkey(), treasury.pubkey(), 10**9)
    message = assemble(creator.pubkey(), [create, bypass], fees=WriteFees(10**6, 0), blockhash=Hash.default())
    size = len(bytes(message)) + 1 + 64 * message.header.num_required_signatures
    assert message.header.num_required_signatures == 2
    assert size <= PACKET_DATA_SIZE, size
    print(f"largest launch transaction: {size} bytes")
