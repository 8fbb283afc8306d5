"""Stateful invariant fuzzing of the launchpad and pool SBF programs in LiteSVM (Trident's
approach, with hypothesis's RuleBasedStateMachine): several actors, two of them attackers,
send random instructions over coins' whole lives (create_coin, buy / buy_exact_out / sell,
completion, migrate, pool swaps, proposals, votes, settlement, bond and vote withdrawals),
with accounts swapped for others (another coin's curve, an attacker's token account, a wrong
vault, a non-signer), amounts at the u64 edges and clock warps. The instructions come from
the IDLs through the service's encoder (launchpad_chain.Chain).

After every step the invariants hold (see `FuzzMachine` and docs/programs.md, "Invariant
fuzzing"). STATS counts what the runs did (make fuzz prints it).
"""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from partner.chain import governance_math as GM
from partner.chain import layouts as L
from partner.chain.curve import U64_MAX
from partner.chain.governance_math import ActionKind

from . import token2022 as T
from .launchpad_chain import (
    LAUNCHPAD_ID,
    POOL_ID,
    SOL,
    TOKEN_2022,
    Chain,
    ata,
    curve_pda,
    governance_pda,
    pool_pda,
    proposal_pda,
)

ACTORS = 4  # honest actors; attackers come on top
ATTACKERS = 2
MAX_COINS = 2
FUNDS = 400 * SOL

EDGES = st.sampled_from([0, 1, U64_MAX, U64_MAX - 1])
AMOUNTS = st.one_of(EDGES, st.integers(1, 20 * SOL), st.integers(SOL // 100, 10 * SOL), st.integers(0, U64_MAX))
TOKEN_AMOUNTS = st.one_of(EDGES, st.integers(1, 10**14), st.integers(10**12, 5 * 10**13), st.integers(0, U64_MAX))
# a mutation: None (the honest instruction), or (account index seed, what goes there)
SWAPS = ("other_curve", "attacker_ata", "wrong_vault", "random", "non_signer", "readonly")
MUTATION = st.one_of(st.none(), st.none(), st.tuples(st.integers(0, 15), st.sampled_from(SWAPS)))

STATS: dict[str, Counter] = {
    "rules": Counter(),
    "landed": Counter(),
    "refused": Counter(),
    "runs": Counter(),
    "errors": Counter(),
}

# Who may make an account of a program lose lamports (L) or tokens (T), by instruction name:
# the programs' rules (docs/onchain.md). Wallets and users' token accounts lose only with their
# owner's signature.
CURVE_LAMPORTS = {"sell", "migrate"}
CURVE_VAULT_TOKENS = {"buy", "buy_exact_out", "migrate"}
POOL_LAMPORTS = {"swap"}
POOL_VAULT_TOKENS = {"swap", "swap_exact_out"}
PROPOSAL_VAULT_TOKENS = {"cancel_vote", "withdraw_vote", "withdraw_bond"}


def budget() -> settings:
    """The bounded budget of make test, or FUZZ_EXAMPLES / FUZZ_STEPS (make fuzz)."""
    return settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
        stateful_step_count=int(os.environ.get("FUZZ_STEPS", "40")),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def _state(svm, key: Pubkey):
    acc = svm.get_account(key)
    return None if acc is None else (acc.lamports, bytes(acc.data), acc.owner)


class FuzzMachine(RuleBasedStateMachine):
    """Actors against one LiteSVM with both programs deployed."""

    @initialize(prelaunch=st.booleans())
    def setup(self, prelaunch: bool) -> None:
        """Actors and attackers; `prelaunch`: a coin launched and bought by three actors already."""
        self.c = Chain(pool=True)
        self.actors = [self.c.wallet(FUNDS) for _ in range(ACTORS)]
        self.attackers = [self.c.wallet(FUNDS) for _ in range(ATTACKERS)]
        self.everyone = self.actors + self.attackers
        self.mints: list[Pubkey] = []
        self.migrated: list[Pubkey] = []
        self.proposals: list[tuple[Pubkey, Pubkey]] = []  # (mint, proposal)
        self.votes: list[tuple[Pubkey, Pubkey, Keypair]] = []  # (mint, proposal, voter)
        self.k: dict[Pubkey, int] = {}  # constant product of each pool, last seen
        self.wallets = {kp.pubkey() for kp in self.everyone} | {self.c.fee_recipient.pubkey()}
        self.trace: list[str] = []
        STATS["runs"]["sequences"] += 1
        self.verbose = bool(os.environ.get("FUZZ_VERBOSE"))
        if prelaunch:
            _, mint = self.c.create_coin(self.actors[0])
            self.mints.append(mint.pubkey())
            self.c.advance(1, 1)
            for holder in self.actors[1:]:
                self.c.send_ok(
                    [self.c.trade_ix("buy", holder.pubkey(), mint.pubkey(), sol_in=5 * SOL, min_tokens_out=0)], holder
                )
            self.trace.append("prelaunch")

    # ------------------------------------------------------------ plumbing

    def teardown(self) -> None:
        if self.verbose:
            print(f"sequence {STATS['runs']['sequences']}: {len(self.trace)} steps: " + "; ".join(self.trace))

    def _watched(self) -> list[Pubkey]:
        keys = set(self.wallets)
        for program in (LAUNCHPAD_ID, POOL_ID, TOKEN_2022):
            keys.update(k for k, _ in self.c.svm.get_program_accounts(program))
        return sorted(keys, key=bytes)

    def _mutate(self, ix: Instruction, mutation, signers: list[Keypair], mint: Pubkey | None):
        """ix with one account swapped per `mutation`, and the signers still needed."""
        if mutation is None:
            return ix, signers
        seed, what = mutation
        metas = list(ix.accounts)
        i = seed % len(metas)
        m = metas[i]
        key = m.pubkey
        other = [x for x in self.mints if x != mint] or [Pubkey.new_unique()]
        if what == "other_curve":
            key = curve_pda(other[seed % len(other)])
        elif what == "attacker_ata":
            key = ata(self.attackers[seed % ATTACKERS].pubkey(), mint or other[0])
        elif what == "wrong_vault":
            key = ata(pool_pda(mint), mint) if mint is not None and seed % 2 else ata(curve_pda(other[0]), other[0])
        elif what == "random":
            key = Pubkey.new_unique()
        # nobody signs for a key swapped in (an attacker cannot)
        metas[i] = AccountMeta(
            key, m.is_signer and key == m.pubkey and what != "non_signer", m.is_writable and what != "readonly"
        )
        needed = {bytes(a.pubkey) for a in metas if a.is_signer}
        return Instruction(ix.program_id, bytes(ix.data), metas), [s for s in signers if bytes(s.pubkey()) in needed]

    def step(self, name: str, ix: Instruction, signers: list[Keypair], mutation=None, mint=None) -> bool:
        """Send `ix` (mutated), then check: a refused instruction changed nothing, a landed one took
        lamports or tokens only from its signers or by a program rule."""
        ix, signers = self._mutate(ix, mutation, signers, mint)
        STATS["rules"][name] += 1
        keys = self._watched()
        before = {k: _state(self.c.svm, k) for k in keys}
        r = self.c.send([ix], *signers)
        self.c.advance(1, 1)  # the chain moves on: one slot, one second per step
        tag = f"{name}{'*' if mutation else ''}"
        if not r.ok:
            STATS["refused"][name] += 1
            STATS["errors"][f"{name} {r.custom if r.custom is not None else str(r.err)[:60]}"] += 1
            self.trace.append(f"{tag}: refused {r.custom if r.custom is not None else r.err}")
            after = {k: _state(self.c.svm, k) for k in self._watched()}
            changed = [str(k) for k in set(before) | set(after) if before.get(k) != after.get(k)]
            assert not changed, f"{name} failed ({r.err}) but changed {changed}"
            return False
        STATS["landed"][name] += 1
        self.trace.append(f"{tag}: ok")
        signed = {s.pubkey() for s in signers} | {self.c.payer.pubkey()}
        for k in keys:
            self._check_loss(name, k, before[k], signed)
        return True

    def _check_loss(self, name: str, key: Pubkey, was, signed: set[Pubkey]) -> None:
        now = _state(self.c.svm, key)
        if was is None:
            return
        lamports_lost = was[0] > (now[0] if now else 0)
        if key in self.wallets:
            assert not lamports_lost or key in signed, f"{name}: wallet {key} lost lamports without signing"
            return
        owner = was[2]
        if owner == TOKEN_2022 and len(was[1]) >= 165 and was[1][108] != 0 and len(was[1]) != 82:
            tokens_was = T.decode_account(was[1])
            tokens_now = T.decode_account(now[1]).amount if now else 0
            if tokens_now < tokens_was.amount:
                self._token_loss_allowed(name, key, tokens_was.owner, signed)
        if lamports_lost:
            allowed = (
                owner == LAUNCHPAD_ID and key in {curve_pda(m) for m in self.mints} and name in CURVE_LAMPORTS
            ) or (owner == POOL_ID and name in POOL_LAMPORTS)
            assert allowed, f"{name}: {key} (owner {owner}) lost lamports {was[0]} -> {now[0] if now else 0}"

    def _token_loss_allowed(self, name: str, key: Pubkey, owner: Pubkey, signed: set[Pubkey]) -> None:
        if owner in signed:
            return
        if owner in {curve_pda(m) for m in self.mints}:
            assert name in CURVE_VAULT_TOKENS, f"{name}: the curve vault {key} lost tokens"
        elif owner in {pool_pda(m) for m in self.mints}:
            assert name in POOL_VAULT_TOKENS, f"{name}: the pool vault {key} lost tokens"
        elif owner in {p for _, p in self.proposals}:
            assert name in PROPOSAL_VAULT_TOKENS, f"{name}: the proposal vault {key} lost tokens"
        else:
            raise AssertionError(f"{name}: token account {key} of {owner} lost tokens without its owner's signature")

    def _actor(self, i: int) -> Keypair:
        return self.everyone[i % len(self.everyone)]

    def _holder(self, i: int, mint: Pubkey) -> Keypair:
        """Mostly someone holding at least the proposal bond of `mint`, else anyone."""
        gov = self.c.data(governance_pda(mint))
        bond = (
            L.Governance.decode(gov).proposal_bond(self.c.now)
            if gov
            else GM.bond_amount(self.c.curve(mint).token_total_supply, GM.DEFAULT_PROPOSAL_BOND_BPS)
        )
        holders = [a for a in self.everyone if self.c.balance(a.pubkey(), mint) >= bond]
        return holders[i % len(holders)] if holders and i % 4 else self._actor(i)

    # ------------------------------------------------------------ rules: the curve

    @precondition(lambda self: len(self.mints) < MAX_COINS)
    @rule(who=st.integers(0, 63), mutation=MUTATION)
    def create_coin(self, who: int, mutation) -> None:
        creator, mint = self._actor(who), Keypair()
        ix = self.c.create_coin_ix(creator.pubkey(), mint.pubkey(), name=f"C{len(self.mints)}", symbol="C")
        if self.step("create_coin", ix, [creator, mint], mutation):
            self.mints.append(mint.pubkey())

    @precondition(lambda self: self.mints)
    @rule(
        who=st.integers(0, 63),
        coin=st.integers(0, 1),
        kind=st.sampled_from(["buy", "buy_exact_out", "sell"]),
        amount=AMOUNTS,
        limit=AMOUNTS,
        mutation=MUTATION,
    )
    def trade(self, who: int, coin: int, kind: str, amount: int, limit: int, mutation) -> None:
        user, mint = self._actor(who), self.mints[coin % len(self.mints)]
        if kind == "buy":
            args = dict(sol_in=amount, min_tokens_out=limit % 2 and limit)
        elif kind == "buy_exact_out":
            args = dict(tokens_out=amount % (10**15) if who % 3 else amount, max_sol_in=limit)
        else:
            held = self.c.balance(user.pubkey(), mint)
            args = dict(tokens_in=held if amount % 4 == 0 and held else amount, min_sol_out=limit % 2 and limit)
        self.step(kind, self.c.trade_ix(kind, user.pubkey(), mint, **args), [user], mutation, mint)

    @precondition(lambda self: self.mints)
    @rule(who=st.integers(0, 63), coin=st.integers(0, 1), mutation=MUTATION)
    def complete(self, who: int, coin: int, mutation) -> None:
        """A whale's buy large enough to complete the curve."""
        user, mint = self._actor(who), self.mints[coin % len(self.mints)]
        ix = self.c.trade_ix("buy", user.pubkey(), mint, sol_in=100 * SOL, min_tokens_out=0)
        self.step("buy", ix, [user], mutation, mint)

    @precondition(lambda self: self.mints)
    @rule(who=st.integers(0, 63), coin=st.integers(0, 1), mutation=MUTATION)
    def migrate(self, who: int, coin: int, mutation) -> None:
        payer, mint = self._actor(who), self.mints[coin % len(self.mints)]
        if self.step("migrate", self.c.migrate_ix(payer.pubkey(), mint), [payer], mutation, mint):
            self.migrated.append(mint)

    @precondition(lambda self: self.mints)
    @rule(
        who=st.integers(0, 63),
        coin=st.integers(0, 1),
        exact=st.booleans(),
        base_in=st.booleans(),
        amount=AMOUNTS,
        mutation=MUTATION,
    )
    def swap(self, who: int, coin: int, exact: bool, base_in: bool, amount: int, mutation) -> None:
        """A pool swap, mostly on a migrated coin's pool."""
        coins = self.migrated if self.migrated and who % 5 else self.mints
        user, mint = self._actor(who), coins[coin % len(coins)]
        if exact:
            ix = self.c.pool_ix(
                "swap_exact_out",
                user.pubkey(),
                mint,
                base_out=amount % 10**15 if who % 2 else amount,
                max_quote_in=U64_MAX if base_in else amount,
            )
            self.step("swap_exact_out", ix, [user], mutation, mint)
            return
        if base_in and who % 2:
            amount = min(amount, self.c.balance(user.pubkey(), mint))
        ix = self.c.pool_ix("swap", user.pubkey(), mint, base_in=base_in, amount_in=amount, min_amount_out=0)
        self.step("swap", ix, [user], mutation, mint)

    # ------------------------------------------------------------ rules: governance

    @precondition(lambda self: self.mints)
    @rule(
        who=st.integers(0, 63),
        coin=st.integers(0, 1),
        kind=st.sampled_from(list(ActionKind)),
        duration=st.sampled_from([600, 600, 600, 0, 59, 60, 7 * 86_400, 7 * 86_400 + 1, U64_MAX]),
        stale=st.sampled_from([0, 0, 0, 1]),
        mutation=MUTATION,
    )
    def create_proposal(self, who: int, coin: int, kind, duration: int, stale: int, mutation) -> None:
        mint = self.mints[coin % len(self.mints)]
        proposer, gov = self._holder(who, mint), self.c.governance(mint)
        prop = proposal_pda(governance_pda(mint), gov.next_proposal_index)
        content = dict(
            name=f"N{who}",
            symbol=None,
            uri=None,
            changed_fields=1,
            additional_seconds=None,
            content_digests=gov.content_digests,
        )  # a name change: the uri-borne digests unchanged
        if kind == ActionKind.EXTEND_MUTABILITY:
            content = dict(
                name=None,
                symbol=None,
                uri=None,
                changed_fields=0,
                additional_seconds=duration,
                content_digests=GM.NO_DIGESTS,
            )
        elif kind == ActionKind.FINALIZE_METADATA:
            content = dict(
                name=None,
                symbol=None,
                uri=None,
                changed_fields=0,
                additional_seconds=None,
                content_digests=GM.NO_DIGESTS,
            )
        ix = self.c.ix(
            "create_proposal",
            {"proposer": proposer.pubkey(), "mint": mint, "metadata": mint, "proposal": prop},
            action_kind=kind,
            base_content_revision=gov.content_revision + stale,
            vote_duration_seconds=duration,
            **content,
        )
        if self.step("create_proposal", ix, [proposer], mutation, mint):
            self.proposals.append((mint, prop))

    @precondition(lambda self: self.proposals)
    @rule(
        who=st.integers(0, 63),
        which=st.integers(0, 63),
        yes=st.booleans(),
        amount=st.one_of(
            st.sampled_from([0, 1, GM.DEFAULT_MIN_LOCK_AMOUNT - 1, GM.DEFAULT_MIN_LOCK_AMOUNT, 2 * 10**13, U64_MAX]),
            TOKEN_AMOUNTS,
        ),
        mutation=MUTATION,
    )
    def cast_vote(self, who: int, which: int, yes: bool, amount: int, mutation) -> None:
        mint, prop = self.proposals[which % len(self.proposals)]
        voter = self._holder(who, mint)
        ix = self.c.ix(
            "cast_vote",
            {"voter": voter.pubkey(), "mint": mint, "proposal": prop},
            side=GM.VoteSide.YES if yes else GM.VoteSide.NO,
            amount=amount,
        )
        if self.step("cast_vote", ix, [voter], mutation, mint):
            self.votes.append((mint, prop, voter))

    @precondition(lambda self: self.proposals)
    @rule(which=st.integers(0, 63), yes=st.booleans())
    def quorum_vote(self, which: int, yes: bool) -> None:
        """Three holders vote the same way with a third of the quorum each (so proposals can pass or fail)."""
        mint, prop = self.proposals[which % len(self.proposals)]
        third = 2 * 10**13
        voters = [a for a in self.everyone if self.c.balance(a.pubkey(), mint) >= third][:3]
        side = GM.VoteSide.YES if yes else GM.VoteSide.NO
        for voter in voters:
            ix = self.c.ix(
                "cast_vote", {"voter": voter.pubkey(), "mint": mint, "proposal": prop}, side=side, amount=third
            )
            if self.step("cast_vote", ix, [voter], None, mint):
                self.votes.append((mint, prop, voter))

    @precondition(lambda self: self.votes)
    @rule(which=st.integers(0, 63), crank=st.integers(0, 63), cancel=st.booleans(), mutation=MUTATION)
    def vote_escrow(self, which: int, crank: int, cancel: bool, mutation) -> None:
        """cancel_vote by the voter, or withdraw_vote by anyone for the voter."""
        mint, prop, voter = self.votes[which % len(self.votes)]
        if cancel:
            ix = self.c.ix("cancel_vote", {"voter": voter.pubkey(), "mint": mint, "proposal": prop})
            self.step("cancel_vote", ix, [voter], mutation, mint)
            return
        cranker = self._actor(crank)
        ix = self.c.ix(
            "withdraw_vote", {"payer": cranker.pubkey(), "voter": voter.pubkey(), "mint": mint, "proposal": prop}
        )
        self.step("withdraw_vote", ix, [cranker], mutation, mint)

    @precondition(lambda self: self.proposals)
    @rule(which=st.integers(0, 63), crank=st.integers(0, 63), bond=st.booleans(), mutation=MUTATION)
    def settle_or_withdraw_bond(self, which: int, crank: int, bond: bool, mutation) -> None:
        mint, prop = self.proposals[which % len(self.proposals)]
        cranker = self._actor(crank)
        if bond:
            proposer = self.c.proposal(prop).proposer
            ix = self.c.ix(
                "withdraw_bond", {"payer": cranker.pubkey(), "proposer": proposer, "mint": mint, "proposal": prop}
            )
            self.step("withdraw_bond", ix, [cranker], mutation, mint)
            return
        ix = self.c.ix(
            "settle_proposal", {"payer": cranker.pubkey(), "proposal": prop, "metadata": mint, "governance.mint": mint}
        )
        self.step("settle_proposal", ix, [cranker], mutation, mint)

    @precondition(lambda self: self.mints)
    @rule(coin=st.integers(0, 1), crank=st.integers(0, 63))
    def finalize_expired(self, coin: int, crank: int) -> None:
        mint, cranker = self.mints[coin % len(self.mints)], self._actor(crank)
        ix = self.c.ix("finalize_expired", {"payer": cranker.pubkey(), "metadata": mint, "governance.mint": mint})
        self.step("finalize_expired", ix, [cranker], None, mint)

    # ------------------------------------------------------------ rules: time and raw transfers

    @precondition(lambda self: self.mints)
    @rule(seconds=st.sampled_from([0, 1, 2, 59, 601, 3_600, 7 * 86_400 + 1, 31 * 86_400]))
    def warp(self, seconds: int) -> None:
        STATS["rules"]["warp"] += 1
        self.trace.append(f"warp +{seconds}s")
        self.c.advance(1 + seconds // 400, seconds)

    @precondition(lambda self: self.mints)
    @rule(who=st.integers(0, 63), victim=st.integers(0, 63), coin=st.integers(0, 1))
    def attacker_takes_tokens(self, who: int, victim: int, coin: int) -> None:
        """An attacker's Token-2022 transfer out of someone else's account, signed by the attacker only."""
        thief, owner = self.attackers[who % ATTACKERS], self._actor(victim)
        mint = self.mints[coin % len(self.mints)]
        source = [ata(owner.pubkey(), mint), ata(curve_pda(mint), mint), ata(pool_pda(mint), mint)][victim % 3]
        if self.c.account(source) is None:
            source = ata(curve_pda(mint), mint)
        dest = ata(thief.pubkey(), mint)
        if self.c.account(dest) is None:  # an existing token account, so only the missing authority refuses it
            dest = ata(curve_pda(mint), mint) if source != ata(curve_pda(mint), mint) else ata(owner.pubkey(), mint)
        data = bytes([12]) + (1).to_bytes(8, "little") + bytes([6])  # TransferChecked 1 unit, 6 decimals
        ix = Instruction(
            TOKEN_2022,
            data,
            [
                AccountMeta(source, False, True),
                AccountMeta(mint, False, False),
                AccountMeta(dest, False, True),
                AccountMeta(thief.pubkey(), True, False),
            ],
        )
        self.step("token_theft", ix, [thief], None, mint)

    # ------------------------------------------------------------ invariants

    @invariant()
    def curve_lamports_are_rent_plus_reserves(self) -> None:
        for mint in self.mints:
            acc = self.c.account(curve_pda(mint))
            c = self.c.curve(mint)
            rent = self.c.svm.minimum_balance_for_rent_exemption(len(acc.data))
            assert acc.lamports == rent + c.real_sol_reserves, (mint, acc.lamports, rent, c.real_sol_reserves)

    @invariant()
    def vaults_hold_the_recorded_reserves(self) -> None:
        g = self.c.global_()
        for mint in self.mints:
            c = self.c.curve(mint)
            vault = self.c.balance(curve_pda(mint), mint)
            held_for_pool = c.token_total_supply - g.initial_real_token_reserves
            want = 0 if c.migrated else c.real_token_reserves + held_for_pool
            assert vault == want, f"curve vault {vault} != {want} (migrated {c.migrated})"
            if c.migrated:
                p = self.c.pool(mint)
                acc = self.c.account(pool_pda(mint))
                rent = self.c.svm.minimum_balance_for_rent_exemption(len(acc.data))
                assert self.c.balance(pool_pda(mint), mint) == p.base_reserve
                assert acc.lamports == rent + p.quote_reserve, (acc.lamports, rent, p.quote_reserve)

    @invariant()
    def supply_is_conserved(self) -> None:
        held: Counter = Counter()
        for _, acc in self.c.svm.get_program_accounts(TOKEN_2022):
            data = bytes(acc.data)
            if len(data) >= 165 and data[108] != 0 and not (len(data) > 165 and data[165] == 1):
                t = T.decode_account(data)
                held[t.mint] += t.amount
        for mint in self.mints:
            supply = self.c.mint(mint).supply
            assert supply == self.c.curve(mint).token_total_supply == held[mint], (supply, held[mint])

    @invariant()
    def constant_product_never_decreases(self) -> None:
        for mint in self.mints:
            if self.c.account(pool_pda(mint)) is None:
                continue
            p = self.c.pool(mint)
            k = p.base_reserve * p.quote_reserve
            assert k >= self.k.get(mint, 0), f"pool k fell {self.k.get(mint)} -> {k}"
            self.k[mint] = k


def report() -> str:
    """Counts per rule and instruction: sent, landed, refused."""
    lines = [
        f"sequences {STATS['runs']['sequences']}, steps {sum(STATS['rules'].values())}",
        f"{'rule / instruction':22s} {'sent':>7s} {'landed':>7s} {'refused':>7s}",
    ]
    for name, n in sorted(STATS["rules"].items()):
        lines.append(f"{name:22s} {n:7d} {STATS['landed'][name]:7d} {STATS['refused'][name]:7d}")
    lines.append(
        f"{'total':22s} {sum(STATS['rules'].values()):7d} {sum(STATS['landed'].values()):7d} "
        f"{sum(STATS['refused'].values()):7d}"
    )
    if os.environ.get("FUZZ_ERRORS"):
        lines += [f"  {n:6d}  {e}" for e, n in STATS["errors"].most_common()]
    return "\n".join(lines)


def main() -> None:
    """make fuzz: FUZZ_EXAMPLES sequences of FUZZ_STEPS steps (FUZZ_VERBOSE=1 prints each sequence)."""
    import time

    from hypothesis.stateful import run_state_machine_as_test

    t = time.monotonic()
    try:
        run_state_machine_as_test(FuzzMachine, settings=budget())
    finally:
        print(report())
        print(f"{time.monotonic() - t:.0f} s")


if __name__ == "__main__":
    main()
