"""partner.send.pipeline: the one send pipeline of every write, with fakes for the chain, the
record step and the signer's service.

Its order (assemble -> fee and balance check -> finish -> added checks -> sign -> record -> submit),
what a write holds being given back only when nothing was sent, an ambiguous send keeping its
signature, the compute-unit seam, an added refusal yielding to the program's own error, and the slot a
write keeps for the user's next one (several RPC endpoints).
"""

from __future__ import annotations

import struct

import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from partner.chain import programs as P
from partner.chain import tx as T
from partner.chain.rpc import PREFLIGHT_FAILURE, Ambiguous, RpcError
from partner.core.errors import ApiError
from partner.send import pipeline, presend
from partner.store.wallets import KeypairSigner

PAYER = KeypairSigner(Keypair())
BLOCKHASH = Hash.new_unique()
PROGRAM = Pubkey.new_unique()
COMPUTE_BUDGET = Pubkey.from_string("ComputeBudget111111111111111111111111111111")
FEES = T.WriteFees(priority_fee_lamports=10_000, tip_lamports=1_000_000)
NETWORK_FEE = T.BASE_FEE_PER_SIGNATURE + FEES.priority_fee_lamports + FEES.tip_lamports


def program_ix(size: int = 3) -> Instruction:
    return Instruction(PROGRAM, b"\x01" * size, [AccountMeta(PAYER.pubkey, True, True)])


def trade_tx(**kwargs) -> pipeline.Tx:
    return pipeline.Tx("trade", [program_ix()], [PAYER], FEES, **kwargs)


FUNDS = pipeline.Funds(10**9)


def write(txs=None, funds=FUNDS, **kwargs) -> pipeline.Write:
    return pipeline.Write("buy", str(Pubkey.new_unique()), txs or [trade_tx()], BLOCKHASH, 1_000, funds=funds, **kwargs)


class Log:
    """Every step the pipeline took, in order, with what it took it with."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.recorded: list[presend.Outgoing] = []
        self.sent: list[list] = []

    def sign(self, message, signers):
        self.steps.append("sign")
        return T.sign(message, signers)

    def record(self, principal, outgoing) -> None:
        self.steps.append("record")
        self.recorded.append(outgoing)


@pytest.fixture
def log(monkeypatch, ports) -> Log:
    from partner.chain import units

    # the tests' own programs stand in for the launchpad and the pool: 1,000 units an instruction
    model, figured = units.instruction_units, {P.SYSTEM_PROGRAM_ID, P.COMPUTE_BUDGET_PROGRAM_ID, units.MEMO_PROGRAM_ID}

    def stand_in(i: Instruction, h: units.Hint) -> int:
        return model(i, h) if i.program_id in figured else 1_000

    monkeypatch.setattr(units, "instruction_units", stand_in)
    log = Log()
    monkeypatch.setattr(presend, "before_send", log.record)
    ports.install(sign=log.sign)
    return log


class FakeDelivery(pipeline.Delivery):
    def __init__(self, log: Log, error: BaseException | None = None) -> None:
        self.log, self.error = log, error
        self.chain = FakeRpc()  # type: ignore[assignment]

    def send(self, txs, last_valid_block_height):
        self.log.steps.append("submit")
        self.log.sent.append(txs)
        if self.error is not None:
            raise self.error
        return None


class FakeRpc:
    """sendTransaction only: answers as told."""

    urls = ("http://rpc.invalid",)  # one endpoint: no slot is kept (pipeline.remember_slot)
    seen_slot = 0

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error
        self.sent: list = []

    def send_transaction(self, tx, *, skip_preflight: bool = False):
        self.sent.append(tx)
        if self.error is not None:
            raise self.error
        return tx.signatures[0]


def run(log: Log, w: pipeline.Write, delivery=None, held=None) -> pipeline.Sent:
    return pipeline.send(None, w, delivery or FakeDelivery(log), held=held)  # type: ignore[arg-type]


# ------------------------------------------------------------------ order


def test_the_steps_run_in_order_and_what_is_sent_is_what_was_recorded(log):
    def finish():
        log.steps.append("finish")
        return None

    sent = run(log, write(finish=finish))
    assert log.steps == ["finish", "sign", "record", "submit"]
    (outgoing,) = log.recorded
    (signed,) = log.sent[0]
    assert sent.signatures == outgoing.signatures == (str(signed.signatures[0]),)
    assert (outgoing.kind, outgoing.wallet, outgoing.last_valid_block_height) == ("buy", str(PAYER.pubkey), 1_000)
    assert signed.verify_with_results() == [True]


def test_a_transaction_too_large_is_refused_before_the_balance(log):
    """Assembly (tx_too_large) comes before the fee and balance check (insufficient_sol)."""
    huge = pipeline.Tx("trade", [program_ix(1300)], [PAYER], FEES)
    with pytest.raises(ApiError) as caught:
        run(log, write([huge], funds=pipeline.Funds(0)))
    assert caught.value.code == "tx_too_large"
    assert log.steps == []


def test_the_balance_is_checked_before_finish_sign_record_and_submit(log):
    finished = []
    w = write(funds=pipeline.Funds(NETWORK_FEE + 99, spend=100), finish=lambda: finished.append(1))
    with pytest.raises(ApiError) as caught:
        run(log, w)
    assert caught.value.code == "insufficient_sol"
    assert caught.value.extra == {
        "requiredLamports": str(NETWORK_FEE + 100),
        "availableLamports": str(NETWORK_FEE + 99),
    }
    assert finished == [] and log.steps == []
    run(log, write(funds=pipeline.Funds(NETWORK_FEE + 100, spend=100)))  # exactly enough
    assert log.steps == ["sign", "record", "submit"]


def test_a_sells_tip_comes_out_of_its_proceeds(log):
    w = write(funds=pipeline.Funds(NETWORK_FEE - FEES.tip_lamports - 1, tip_from_proceeds=True))
    with pytest.raises(ApiError) as caught:
        run(log, w)
    assert caught.value.extra["requiredLamports"] == str(NETWORK_FEE - FEES.tip_lamports)


def test_finish_replaces_the_transactions_before_signing(log):
    memo = Instruction(Pubkey.new_unique(), b"memo", [])
    sent = run(log, write(finish=lambda: [trade_tx(memo=memo)]))
    (signed,) = log.sent[0]
    keys = signed.message.account_keys
    assert bytes(signed.message.instructions[-1].data) == b"memo"
    assert keys[signed.message.instructions[-1].program_id_index] == memo.program_id
    assert sent.signature == str(signed.signatures[0])


# ------------------------------------------------------------------ what a write holds


def test_a_hold_is_given_back_when_nothing_was_sent(log):
    released: list[str] = []
    with pytest.raises(ApiError), pipeline.Held() as held:
        held.add(lambda: released.append("volume"))
        held.add(lambda: released.append("upload"))
        run(log, write(funds=pipeline.Funds(0)), held=held)
    assert released == ["upload", "volume"]  # last first
    assert log.recorded == []


def test_a_hold_is_given_back_when_signing_or_recording_fails(log, monkeypatch, ports):
    released: list[int] = []

    def refuse(*args):
        raise ApiError("wallet_sign_failed")

    signing = ports.install(sign=refuse)
    with pytest.raises(ApiError), pipeline.Held() as held:
        held.add(lambda: released.append(1))
        pipeline.send(None, write(), FakeDelivery(log), held=held)  # type: ignore[arg-type]
    ports.install(signing)
    assert released == [1] and log.steps == []

    def record_fails(principal, outgoing):
        raise RuntimeError("the transaction record could not be written")

    monkeypatch.setattr(presend, "before_send", record_fails)
    with pytest.raises(RuntimeError), pipeline.Held() as held:
        held.add(lambda: released.append(2))
        run(log, write(), held=held)
    assert released == [1, 2] and "submit" not in log.steps


def test_a_send_refused_outright_gives_the_hold_back(log):
    """A preflight failure names no signature: nothing reached the network."""
    released: list[int] = []
    chain = FakeRpc(
        RpcError(
            PREFLIGHT_FAILURE,
            "Transaction simulation failed",
            {"err": {"InstructionError": [2, {"Custom": 6000}]}, "logs": []},
        )
    )
    with pytest.raises(ApiError) as caught, pipeline.Held() as held:
        held.add(lambda: released.append(1))
        run(log, write(), pipeline.Submit(chain), held=held)
    assert "signature" not in caught.value.extra
    assert released == [1]
    assert len(log.recorded) == 1 and len(chain.sent) == 1  # recorded, sent, refused


def test_an_ambiguous_send_keeps_its_signature_and_the_hold(log):
    released: list[int] = []
    chain = FakeRpc(Ambiguous("read timeout"))
    with pytest.raises(ApiError) as caught, pipeline.Held() as held:
        held.add(lambda: released.append(1))
        run(log, write(), pipeline.Submit(chain, {"mint": "M"}), held=held)
    error = caught.value
    assert error.code == "rpc_unavailable" and error.status == 502
    (outgoing,) = log.recorded
    assert error.extra["signature"] == outgoing.signatures[0] == str(chain.sent[0].signatures[0])
    assert error.extra["mint"] == "M"
    assert released == []  # it may land: the volume stays counted


def test_an_unexpected_failure_while_sending_keeps_the_hold(log):
    released: list[int] = []
    with pytest.raises(RuntimeError), pipeline.Held() as held:
        held.add(lambda: released.append(1))
        run(log, write(), FakeDelivery(log, RuntimeError("connection reset mid-send")), held=held)
    assert released == []


def test_a_success_keeps_the_hold(log):
    released: list[int] = []
    with pipeline.Held() as held:
        held.add(lambda: released.append(1))
        run(log, write(), held=held)
    assert released == []


# ------------------------------------------------------------------ assembly and the compute-unit seam


SYSTEM = Pubkey.from_string("11111111111111111111111111111111")


def programs(message) -> list[Pubkey]:
    return [message.account_keys[i.program_id_index] for i in message.instructions]


def unit_limit(message) -> int:
    for i in message.instructions:
        if message.account_keys[i.program_id_index] == COMPUTE_BUDGET and bytes(i.data)[0] == 2:
            return struct.unpack("<I", bytes(i.data)[1:5])[0]
    raise AssertionError("no SetComputeUnitLimit")


def test_every_transaction_takes_its_compute_unit_limit_from_the_one_seam(log, monkeypatch):
    monkeypatch.setattr(pipeline, "compute_unit_limit", lambda tx: 123_456)
    run(log, write([pipeline.Tx("trade", [program_ix()], [PAYER], FEES)]))
    (signed,) = log.sent[0]
    assert unit_limit(signed.message) == 123_456


def test_the_limit_is_the_transactions_units_and_the_margin(log):
    """The program's instruction (1,000 here), two compute-budget instructions, the tip transfer and
    the memo, then 5% and 500: 1,000 + 300 + 150 + 300 = 1,750 -> 2,338."""
    memo = Instruction(Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"), b"partner:x", [])
    run(log, write([pipeline.Tx("trade", [program_ix()], [PAYER], FEES, memo=memo)]))
    (signed,) = log.sent[0]
    assert unit_limit(signed.message) == 1_750 + 88 + 500


def test_a_bundle_is_signed_by_each_transactions_signers_and_recorded_in_order(log):
    mint = KeypairSigner(Keypair())
    launch = pipeline.Tx(
        "coin_create",
        [Instruction(PROGRAM, b"\x02", [AccountMeta(PAYER.pubkey, True, True), AccountMeta(mint.pubkey, True, True)])],
        [PAYER, mint],
        T.WriteFees(10_000, 0),
        tip=False,
    )
    buy = pipeline.Tx("first_buy", [program_ix()], [PAYER], FEES)
    sent = run(log, write([launch, buy], funds=None))
    first, second = log.sent[0]
    assert len(first.signatures) == 2 and all(first.verify_with_results())
    assert sent.signatures == log.recorded[0].signatures == (str(first.signatures[0]), str(second.signatures[0]))
    assert SYSTEM not in programs(first.message)  # a launch's own transaction carries no tip
    assert programs(second.message)[-1] == SYSTEM  # the buy's tip, last


# ------------------------------------------------------------------ added checks (issue 25 item 5)


class SimulatingRpc(FakeRpc):
    """simulateTransaction answers `err`; counts the calls."""

    def __init__(self, err=None) -> None:
        super().__init__()
        self.err, self.simulated = err, 0

    def call(self, method, params=None):
        assert method == "simulateTransaction" and params[1]["sigVerify"] is False
        self.simulated += 1
        return {"context": {"slot": 1}, "value": {"err": self.err, "logs": []}}


def refuse(log: Log, code: str = "invalid_input"):
    def check():
        log.steps.append("added")
        raise ApiError(code, field="tipLamports")

    return check


def test_added_checks_run_after_the_spec_checks_and_finish_and_before_signing(log):
    def passes():
        log.steps.append("added")

    run(log, write(finish=lambda: log.steps.append("finish"), added=[pipeline.Added(passes)]))
    assert log.steps == ["finish", "added", "sign", "record", "submit"]
    log.steps.clear()
    with pytest.raises(ApiError) as caught:  # the balance (a spec error) before any added refusal
        run(log, write(funds=pipeline.Funds(0), added=[pipeline.Added(refuse(log))]))
    assert caught.value.code == "insufficient_sol" and log.steps == []


def test_an_added_refusal_stands_when_the_program_would_take_the_transaction(log):
    chain = SimulatingRpc(err=None)
    with pytest.raises(ApiError) as caught:
        run(log, write(added=[pipeline.Added(refuse(log))]), pipeline.Submit(chain))
    assert (caught.value.code, caught.value.extra["field"]) == ("invalid_input", "tipLamports")
    assert chain.simulated == 1 and chain.sent == [] and log.recorded == []


def test_an_added_refusal_yields_to_the_programs_own_error(log):
    """The launchpad would fail the trade with SlippageExceeded (custom error 6001): the spec's
    slippage_exceeded answers, as a preflight failure of the same transaction would have."""
    from partner.chain import programs as P

    trade = pipeline.Tx(
        "trade", [Instruction(P.LAUNCHPAD_PROGRAM_ID, b"\x01", [AccountMeta(PAYER.pubkey, True, True)])], [PAYER], FEES
    )
    chain = SimulatingRpc(err={"InstructionError": [2, {"Custom": 6001}]})
    released: list[int] = []
    with pytest.raises(ApiError) as caught, pipeline.Held() as held:
        held.add(lambda: released.append(1))
        run(log, write([trade], added=[pipeline.Added(refuse(log))]), pipeline.Submit(chain), held=held)
    assert (caught.value.code, caught.value.status) == ("slippage_exceeded", 422)
    assert chain.simulated == 1 and chain.sent == [] and log.recorded == [] and released == [1]


def test_an_added_refusal_that_is_the_programs_own_answer_is_not_simulated(log):
    chain = SimulatingRpc(err={"InstructionError": [2, {"Custom": 6000}]})
    with pytest.raises(ApiError) as caught:
        run(log, write(added=[pipeline.Added(refuse(log), program=False)]), pipeline.Submit(chain))
    assert caught.value.code == "invalid_input" and chain.simulated == 0


def test_an_added_refusal_stands_when_the_node_cannot_simulate(log):
    class Down(FakeRpc):
        def call(self, method, params=None):
            raise RpcError(-32000, "node is behind")

    with pytest.raises(ApiError) as caught:
        run(log, write(added=[pipeline.Added(refuse(log))]), pipeline.Submit(Down()))
    assert caught.value.code == "invalid_input"


# ------------------------------------------------------------------ the user's last write's slot


class _User:
    user_id, write_slot = "u1", 100


class _Principal:
    user = _User()


def _chain(urls: int, seen: int) -> FakeRpc:
    chain = FakeRpc()
    chain.urls = tuple(f"http://rpc-{n}.invalid" for n in range(urls))  # type: ignore[misc]
    chain.seen_slot = seen  # type: ignore[misc]
    return chain


@pytest.mark.parametrize(
    "urls,seen,kept",
    [
        (2, 150, [("u1", 150)]),  # several endpoints: the newer slot is kept
        (2, 100, []),  # not newer than the one kept: no write
        (1, 150, []),  # one endpoint: no write
    ],
)
def test_a_write_keeps_its_slot_only_with_several_endpoints(log, monkeypatch, urls, seen, kept):
    from partner.store import users

    stored: list[tuple[str, int]] = []
    monkeypatch.setattr(users, "raise_write_slot", lambda user_id, slot: stored.append((user_id, slot)))
    delivery = FakeDelivery(log)
    delivery.chain = _chain(urls, seen)  # type: ignore[assignment]
    pipeline.send(_Principal(), write(), delivery)  # type: ignore[arg-type]
    assert stored == kept


def test_a_slot_that_cannot_be_kept_does_not_fail_the_write(log, monkeypatch):
    from partner.store import users

    def down(user_id, slot):
        raise ApiError("internal", "A storage operation failed.", retryable=True)

    monkeypatch.setattr(users, "raise_write_slot", down)
    delivery = FakeDelivery(log)
    delivery.chain = _chain(2, 150)  # type: ignore[assignment]
    sent = pipeline.send(_Principal(), write(), delivery)  # type: ignore[arg-type]
    assert sent.signature and log.steps[-1] == "submit"


def test_the_next_write_reads_at_the_kept_slot():
    from partner.chain.rpc import Rpc

    chain = pipeline.reading_for(_Principal(), Rpc("http://a.invalid,http://b.invalid"))  # type: ignore[arg-type]
    request = chain.multiple_accounts_request([Pubkey.new_unique()], 1)
    assert request.config.min_context_slot == 100
    first = _Principal()
    first.user = _User()
    first.user.write_slot = 0  # no write kept yet: no minContextSlot
    fresh = pipeline.reading_for(first, Rpc("http://a.invalid"))  # type: ignore[arg-type]
    assert fresh.multiple_accounts_request([Pubkey.new_unique()], 1).config.min_context_slot is None
