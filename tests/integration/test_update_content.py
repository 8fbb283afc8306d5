"""POST governance/proposals/update-content through the real handler: pinning, the proposal
on-chain, validation codes, and a pinning outage that leaves the chain untouched."""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from testkit.chain import airdrop, new_coin, rpc, token_balance, wait
from testkit.helpers import connect, invoke, trade
from testkit.images import png
from tests.unit.test_multipart import encode

SOL = 10**9
TIP = "1000000"
PRIO = "10000"
BOND = 10**13  # 1% of 1e15 base units
PATH = "/partner/v1/governance/proposals/update-content"


def post_form(conn, fields: dict[str, str], files=(), *, body: bytes | None = None, content_type: str | None = None):
    if body is None:
        body, content_type = encode(fields, list(files))
    return invoke(
        "governance_update_content", "POST", PATH, headers={**conn.bearer(), "Content-Type": content_type}, body=body
    )


def base_fields(mint: str, **extra: str) -> dict[str, str]:
    return {"mint": mint, "priorityFeeLamports": PRIO, "tipLamports": TIP, **extra}


def buy_tokens(chain_url: str, conn, mint: str, tokens: int) -> None:
    result = trade(
        conn,
        "buy-exact-out",
        {
            "mint": mint,
            "tokensOut": str(tokens),
            "slippageBps": 500,
            "priorityFeeLamports": PRIO,
            "tipLamports": TIP,
        },
    )
    assert result.status == 200, result.body
    assert wait(chain_url, result.json["signature"])["err"] is None


def holder(chain_url: str, ip: str, mint: str, tokens: int, scope: str = "trade:execute governance:propose"):
    """A connected user holding `tokens` of `mint` (bought through trades/buy-exact-out)."""
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Gov App", redirect_uri="http://localhost:8080/callback"))
    user = admin.create_user()
    airdrop(chain_url, user["wallet"], 5 * SOL)
    conn = connect(client, user, scope=scope, ip=ip)
    buy_tokens(chain_url, conn, mint, tokens)
    assert token_balance(chain_url, user["wallet"], mint) == tokens
    return conn


def cat(pin_server, uri: str) -> bytes:
    assert uri.startswith("ipfs://")
    response = httpx.post(f"{pin_server.url}/api/v0/cat", params={"arg": uri[len("ipfs://") :]}, timeout=10)
    assert response.status_code == 200
    return response.content


def account(chain_url: str, address: str) -> bytes | None:
    value = rpc(chain_url, "getAccountInfo", [address, {"encoding": "base64"}])["value"]
    return None if value is None else base64.b64decode(value["data"][0])


def proposal_at(mint: str, index: int) -> str:
    from partner.chain import programs as P

    return str(P.proposal_pda(P.governance_pda(mint)[0], index)[0])


@pytest.fixture(autouse=True)
def _no_pin_fault(pin_server):
    from devstack.pinserver import clear_fault

    clear_fault()
    yield
    clear_fault()


@pytest.fixture
def coin(chain, aws_stack):
    return new_coin(chain.url, "Test Coin", "TEST")


@pytest.fixture
def proposer(chain, coin, ip):
    return holder(chain.url, ip, coin, 2 * BOND)


@pytest.fixture
def conn(aws_stack, chain, ip):
    """A connected user without tokens (for checks that stop before the chain)."""
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Gov App", redirect_uri="http://localhost:8080/callback"))
    return connect(client, admin.create_user(), scope="governance:propose", ip=ip)


def test_update_content_pins_and_creates_the_proposal(chain, pin_server, coin, proposer):
    from partner.chain import governance_math as GM
    from partner.chain.layouts import Governance, Proposal
    from testkit.chain import launchpad_instructions

    image = png(7)
    result = post_form(
        proposer,
        base_fields(
            coin,
            name="New Name",
            description="A coin.",
            twitter="@newcoin",
            website="example.com",
            voteDurationSeconds="900",
        ),
        [("image", "pic.png", "image/png", image)],
    )
    assert result.status == 200, result.body
    body = result.json
    assert body["status"] == "processed" and body["mint"] == coin
    assert set(body) == {"signature", "status", "mint", "governance", "proposal", "metadataUri", "imageUri"}
    assert body["proposal"] == proposal_at(coin, 0)
    assert result.headers["x-ratelimit-limit"] == "60"
    assert body["imageUri"].startswith("ipfs://") and body["metadataUri"].startswith("ipfs://")
    assert cat(pin_server, body["imageUri"]) == image
    document = json.loads(cat(pin_server, body["metadataUri"]))
    assert document == {
        "name": "New Name",
        "symbol": "TEST",
        "description": "A coin.",
        "image": body["imageUri"],
        "website": "https://example.com",
        "twitter": "https://x.com/newcoin",
        "telegram": "",
    }
    assert wait(chain.url, body["signature"])["err"] is None

    proposal = Proposal.decode(account(chain.url, body["proposal"]))
    assert proposal.action_uri == body["metadataUri"]
    assert proposal.action_name == "New Name" and proposal.action_symbol is None
    flags = (
        proposal.changed_name,
        proposal.changed_symbol,
        proposal.changed_image,
        proposal.changed_description,
        proposal.changed_website,
        proposal.changed_twitter,
        proposal.changed_telegram,
    )
    assert flags == (True, False, True, True, True, True, False)
    assert proposal.voting_ends_at - proposal.created_at == 900
    assert proposal.bond_amount == BOND
    # the uri-borne digests sent: the changed fields' of the pinned document, the telegram's kept on-chain
    gov = Governance.decode(account(chain.url, body["governance"]))
    [(name, args)] = launchpad_instructions(chain.url, body["signature"])
    expected = [GM.field_digest(document[f]) for f in ("image", "description", "website", "twitter")]
    assert name == "create_proposal" and args["content_digests"] == [*expected, gov.digest_of("telegram")]
    assert proposal.proposed_digests == args["content_digests"]
    assert token_balance(chain.url, proposer.user["wallet"], coin) == BOND

    # one active proposal per governance
    again = post_form(proposer, base_fields(coin, description="Other."))
    assert again.status == 422 and again.json["error"] == "active_proposal_exists"


def test_name_only_change_needs_no_pinning(chain, pin_server, coin, proposer):
    from devstack.pinserver import set_fault
    from partner.chain.layouts import Proposal

    set_fault("down", count=None)  # nothing is pinned for a name / symbol change
    result = post_form(proposer, base_fields(coin, symbol=" new1 "))
    assert result.status == 200, result.body
    assert result.json["metadataUri"] is None and result.json["imageUri"] is None
    proposal = Proposal.decode(account(chain.url, result.json["proposal"]))
    assert proposal.action_symbol == "NEW1" and proposal.action_uri is None and proposal.changed_mask == 0b10


@pytest.mark.parametrize(
    "field, value, code",
    [
        ("website", "ftp://example.com", "invalid_website"),
        ("website", "https://example.com/" + "a" * 290, "website_too_long"),
        ("twitter", "https://facebook.com/someone", "invalid_twitter"),
        ("twitter", "@" + "a" * 300, "twitter_too_long"),
        ("telegram", "abc", "invalid_telegram"),
        ("telegram", "t.me/" + "a" * 300, "telegram_too_long"),
    ],
)
def test_link_codes(conn, field, value, code):
    result = post_form(conn, base_fields("So11111111111111111111111111111111111111112", **{field: value}))
    assert result.status == 400, result.body
    assert result.json["error"] == code and result.json["field"] == field


def test_image_type_by_content(conn):
    mint = "So11111111111111111111111111111111111111112"
    result = post_form(conn, base_fields(mint), [("image", "fake.png", "image/png", b"<svg>not a png</svg>")])
    assert result.status == 400 and result.json["error"] == "invalid_image_type"


@pytest.mark.parametrize(
    "body, content_type",
    [
        (b"this is not multipart", "multipart/form-data; boundary=xyz"),
        (b'--xyz\r\nContent-Disposition: form-data; name="mint"\r\n\r\nabc', "multipart/form-data; boundary=xyz"),
        (b"{}", "application/json"),
    ],
)
def test_invalid_multipart(conn, body, content_type):
    result = post_form(conn, {}, body=body, content_type=content_type)
    assert result.status == 400 and result.json["error"] == "invalid_multipart"


def test_two_images_are_invalid_multipart(conn):
    mint = "So11111111111111111111111111111111111111112"
    result = post_form(
        conn, base_fields(mint), [("image", "a.png", "image/png", png(1)), ("image2", "b.png", "image/png", png(2))]
    )
    assert result.status == 400 and result.json["error"] == "invalid_multipart"


def test_oversize_file(conn):
    mint = "So11111111111111111111111111111111111111112"
    big = png(1) + b"\0" * (5 * 1024 * 1024)
    result = post_form(conn, base_fields(mint), [("image", "big.png", "image/png", big)])
    assert result.status == 413 and result.json["error"] == "payload_too_large"


@pytest.mark.parametrize(
    "fields, code",
    [
        ({}, "invalid_input"),  # no patch field
        ({"name": "   "}, "invalid_name"),
        ({"symbol": "TOOLONGSYMBOL"}, "symbol_too_long"),
        ({"symbol": "AB-C"}, "invalid_symbol"),
        ({"name": "x" * 33}, "name_too_long"),
        ({"colour": "red"}, "invalid_input"),
        ({"description": "x", "voteDurationSeconds": "1.5"}, "invalid_input"),
        ({"description": "x", "priorityFeeLamports": "18446744073709551615"}, "invalid_input"),  # issue 17 item 2
    ],
)
def test_field_validation(conn, fields, code):
    result = post_form(conn, base_fields("So11111111111111111111111111111111111111112", **fields))
    assert result.status == 400 and result.json["error"] == code, result.body


def test_missing_mint_and_scope(conn, aws_stack, ip):
    from partnerctl import admin

    result = post_form(conn, {"priorityFeeLamports": PRIO, "tipLamports": TIP, "name": "x"})
    assert result.status == 400 and result.json["error"] == "invalid_input"
    client = admin.create_client(admin.NewClient(name="Gov App", redirect_uri="http://localhost:8080/callback"))
    reader = connect(client, admin.create_user(), scope="profile:read", ip=ip)
    result = post_form(reader, base_fields("So11111111111111111111111111111111111111112", name="x"))
    assert result.status == 403 and result.json["error"] == "insufficient_scope"


def test_unknown_mint_is_governance_not_found(conn):
    result = post_form(conn, base_fields("So11111111111111111111111111111111111111112", name="x"))
    assert result.status == 404 and result.json["error"] == "governance_not_found"


def test_no_metadata_changes_and_stale_revision(chain, coin, conn):
    same = post_form(conn, base_fields(coin, name=" Test Coin ", symbol="test", description="", website=""))
    assert same.status == 422 and same.json["error"] == "no_metadata_changes", same.body
    stale = post_form(conn, base_fields(coin, name="Other", baseContentRevision="3"))
    assert stale.status == 422 and stale.json["error"] == "stale_content_revision"
    no_tokens = post_form(conn, base_fields(coin, name="Other", baseContentRevision="0"))
    assert no_tokens.status == 422 and no_tokens.json["error"] == "missing_proposal_token_account"
    bad_duration = post_form(conn, base_fields(coin, name="Other", voteDurationSeconds="30"))
    assert bad_duration.status == 422 and bad_duration.json["error"] == "invalid_vote_duration"


def test_insufficient_bond(chain, coin, ip):
    small = holder(chain.url, ip, coin, BOND - 1)
    result = post_form(small, base_fields(coin, name="Other"))
    assert result.status == 422 and result.json["error"] == "insufficient_proposal_bond"


def test_a_failed_proposal_doubles_the_next_bond(chain, pin_server, coin, ip):
    """The proposal slot (docs/programs.md): a proposal that failed its quorum after a 60 s vote (one day,
    rounded up) doubles the bond of the next; both pre-checks (update-content and extend-mutability)
    answer insufficient_proposal_bond with the doubled bond before anything is sent, and GET governance
    shows the level and the next bond."""
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix
    from testkit.chain import warp
    from tests.integration.test_governance_reads import land, read
    from tests.integration.test_governance_writes import gov

    first = holder(chain.url, ip, coin, BOND)
    created = post_form(first, base_fields(coin, name="Other", voteDurationSeconds="60"))
    assert created.status == 200, created.body
    warp(chain.url, 61)
    wallet = Pubkey.from_string(first.user["wallet"])
    land(
        chain.url,
        first.user,
        ix.settle_proposal(wallet, Pubkey.from_string(coin), Pubkey.from_string(created.json["proposal"])),
    )
    second = holder(chain.url, "10.252.0.1", coin, 2 * BOND - 1)
    for result in (
        post_form(second, base_fields(coin, name="Other")),
        gov(second, "extend", {"mint": coin, "additionalSeconds": "86400"}),
    ):
        assert (result.status, result.json["error"]) == (422, "insufficient_proposal_bond"), result.body
        assert (result.json["requiredTokens"], result.json["availableTokens"]) == (str(2 * BOND), str(2 * BOND - 1))
    assert account(chain.url, proposal_at(coin, 1)) is None
    shown = read(second, coin)
    assert shown.status == 200, shown.body
    governance = shown.json["governance"]
    assert (governance["proposalBondLevel"], governance["nextProposalBondAmount"]) == (1, str(2 * BOND))


def test_a_field_that_does_not_match_its_digest_reads_as_absent(chain, pin_server, aws_stack, ip):
    """A coin whose metadata JSON does not hash to the committed digests (here: created with the digests of
    no document): its fields read as absent, so sending the document's own description is a change, and the
    proposal keeps the on-chain digests of the fields it does not change (docs/programs.md "The uri-borne
    locks")."""
    from solders.keypair import Keypair

    from partner.chain import governance_math as GM
    from partner.chain import programs as P
    from partner.chain.layouts import Governance, Proposal
    from partner.chain.rpc import Rpc
    from partner.features import pinning
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl import admin
    from partnerctl.coins import create_coin_now
    from testkit.chain import launchpad_instructions

    stray = {"name": "Stray", "symbol": "STRAY", "description": "unverified", "image": "ipfs://QmStrayImage"}
    uri = pinning.pin_json({**stray, "website": "", "twitter": "", "telegram": ""}).uri
    creator = admin.create_user()
    airdrop(chain.url, creator["wallet"], SOL)
    signer = SealedWalletSigner(get_user(creator["user_id"]))
    coin = create_coin_now(Rpc(chain.url), signer, "Stray", "STRAY", uri, mint=Keypair())
    gov = Governance.decode(account(chain.url, str(P.governance_pda(coin)[0])))
    assert gov.content_digests == GM.content_digests({})  # create_coin_now commits to no document
    proposer = holder(chain.url, ip, coin, BOND)
    result = post_form(proposer, base_fields(coin, description="unverified"))
    assert result.status == 200, result.body
    document = json.loads(cat(pin_server, result.json["metadataUri"]))
    assert document["description"] == "unverified" and document["image"] == ""  # the stray image is not carried
    assert result.json["imageUri"] is None
    [(_, args)] = launchpad_instructions(chain.url, result.json["signature"])
    assert args["content_digests"] == [gov.digest_of("image"), GM.field_digest("unverified"), *gov.content_digests[2:]]
    proposal = Proposal.decode(account(chain.url, result.json["proposal"]))
    assert proposal.changed_mask == GM.field_mask(description=True)


def test_pinning_down_is_502_and_nothing_is_sent(chain, pin_server, coin, proposer):
    from devstack.pinserver import set_fault

    lamports = rpc(chain.url, "getBalance", [proposer.user["wallet"]])["value"]
    set_fault("down", count=None)
    result = post_form(proposer, base_fields(coin, description="New"), [("image", "a.png", "image/png", png(3))])
    assert result.status == 502 and result.json["error"] == "pinning_unavailable", result.body
    assert account(chain.url, proposal_at(coin, 0)) is None
    assert rpc(chain.url, "getBalance", [proposer.user["wallet"]])["value"] == lamports
    assert token_balance(chain.url, proposer.user["wallet"], coin) == 2 * BOND


def test_passed_proposal_applies_and_later_changes_compare_with_the_pinned_document(chain, pin_server, coin, ip):
    """Three holders vote the change through; after settlement the current content is the pinned
    document, so resending the same values is no_metadata_changes and the revision moved."""
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix
    from partner.chain.layouts import Governance, TokenMetadata
    from testkit.chain import warp
    from tests.integration.test_governance_reads import land, vote

    proposer = holder(chain.url, ip, coin, 2 * 10**13)
    voters = [holder(chain.url, f"10.251.0.{i}", coin, 2 * 10**13, scope="trade:execute") for i in range(1, 4)]
    fields = base_fields(coin, name="Renamed", telegram="@mygroup", voteDurationSeconds="60")
    result = post_form(proposer, fields, [("image", "p.png", "image/png", png(9))])
    assert result.status == 200, result.body
    for voter in voters:
        vote(chain.url, voter, coin, result.json["proposal"], "yes", 2 * 10**13)
    warp(chain.url, 61)
    wallet = Pubkey.from_string(voters[0].user["wallet"])
    land(
        chain.url,
        voters[0].user,
        ix.settle_proposal(wallet, Pubkey.from_string(coin), Pubkey.from_string(result.json["proposal"])),
    )
    meta = TokenMetadata.from_mint(account(chain.url, coin))
    assert (meta.name, meta.uri) == ("Renamed", result.json["metadataUri"])
    gov = Governance.decode(account(chain.url, result.json["governance"]))
    assert gov.content_revision == 1 and gov.active_proposal is None

    same = post_form(
        proposer,
        base_fields(coin, name="Renamed", telegram="https://t.me/mygroup"),
        [("image", "p.png", "image/png", png(9))],
    )
    assert same.status == 422 and same.json["error"] == "no_metadata_changes", same.body
    stale = post_form(proposer, base_fields(coin, description="d", baseContentRevision="0"))
    assert stale.status == 422 and stale.json["error"] == "stale_content_revision"
    changed = post_form(proposer, base_fields(coin, description="d", baseContentRevision="1"))
    assert changed.status == 200, changed.body
    document = json.loads(cat(pin_server, changed.json["metadataUri"]))
    assert document["name"] == "Renamed" and document["telegram"] == "https://t.me/mygroup"
    assert document["image"] == result.json["imageUri"] == changed.json["imageUri"] and document["description"] == "d"
