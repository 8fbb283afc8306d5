"""Issue 17 items 2 and 5 at the unit level: the priority-fee bound of input validation keeps the
compute-unit price within u64 for every compute-unit limit, and a 5xx that carries a signature is
not retryable (spec retry rule 5)."""

from __future__ import annotations

import pytest

from partner.chain import instructions as ix
from partner.core.errors import ApiError
from partner.core.limits import MAX_PRIORITY_FEE
from partner.features import models
from partner.features.trading import BuyRequest

U64_MAX = 2**64 - 1
BUY = {"mint": "So11111111111111111111111111111111111111112", "maxSolIn": "1000", "tipLamports": "1000000"}


@pytest.mark.parametrize("units", [1, 200_000, 300_000, ix.MAX_COMPUTE_UNITS])
def test_the_largest_accepted_priority_fee_prices_within_u64(units):
    request = models.validate(BuyRequest, {**BUY, "priorityFeeLamports": str(MAX_PRIORITY_FEE)})
    _, micro = ix.compute_budget_for_priority_fee(int(request.priorityFeeLamports), units)
    assert micro <= U64_MAX


@pytest.mark.parametrize("fee", [MAX_PRIORITY_FEE + 1, U64_MAX])
def test_a_larger_priority_fee_is_invalid_input(fee):
    with pytest.raises(ApiError) as info:
        models.validate(BuyRequest, {**BUY, "priorityFeeLamports": str(fee)})
    assert (info.value.code, info.value.extra["field"]) == ("invalid_input", "priorityFeeLamports")
    assert str(MAX_PRIORITY_FEE) in info.value.message


def test_a_5xx_carrying_a_signature_is_not_retryable():
    assert ApiError("rpc_unavailable").retryable is True
    assert ApiError("rpc_unavailable", signature="s").body()["retryable"] is False
    assert ApiError("rpc_unavailable", signatures=["a", "b"]).body()["retryable"] is False
    assert ApiError("internal", signature="s").retryable is False
    assert ApiError("rpc_unavailable", signature="s", retryable=True).retryable is True  # said explicitly
