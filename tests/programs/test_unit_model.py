"""The service's unit model (partner.chain.units) against the programs in LiteSVM: every
instruction the service sends, over key sets the figures were not fitted on, takes at most the
model's units, and the limit the service asks for is at most 10% plus 1,000 over what it takes
(issue 35, "Limits that fit"). `python -m tests.programs.unit_model` prints the fit."""
from __future__ import annotations

from partner.chain import units as U

from .unit_model import case, runs

OTHERS = 2 * U.BUDGET_UNITS  # the compute-budget instructions each transaction carries


def test_every_instruction_fits_its_limit_over_fresh_keys():
    rs = runs(6, first_seed=5_000)
    cases = {case(r) for r in rs}
    for name in ("buy + new user_token_account", "swap (buys) + new user_token_account", "create_proposal",
                 "cast_vote + new vote_receipt", "migrate", "settle_proposal (3 updates)",
                 "settle_proposal (0 updates, drops authority)"):
        assert name in cases, sorted(cases)
    for r in rs:
        if not case(r):
            continue
        model = U.instruction_units(r.ix, r.hint) + OTHERS
        used = r.cu + OTHERS
        assert used <= model, (case(r), used, model)
        assert U.limit(model) <= used * 11 // 10 + 1_000, (case(r), used, U.limit(model))
