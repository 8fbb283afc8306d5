"""In-process fault injection for the service's AWS dependencies and the pin server (devstack and tests
only; chain faults live in the devstack chain itself, `devstack_setFault`).

    from devstack import faults
    faults.set_fault("kms", "throttle", count=1, operations=["Decrypt"])
    faults.clear()
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from botocore.exceptions import ClientError, EndpointConnectionError

from .faultlist import FaultList

TARGETS = ("kms", "dynamodb", "pinning")
MODES = ("throttle", "error", "down")
SERVICE_HOOKS = {"kms": "before-call.kms", "dynamodb": "before-call.dynamodb"}
THROTTLE_CODE = {
    "kms": "ThrottlingException",
    "dynamodb": "ProvisionedThroughputExceededException",
    "pinning": "ThrottlingException",
}
ENDPOINTS = {
    "kms": "https://kms.devstack.invalid",
    "dynamodb": "https://dynamodb.devstack.invalid",
    "pinning": "http://pinning.devstack.invalid",
}
PATH = "/_devstack/faults"


@dataclass
class Fault:
    id: int
    target: str
    mode: str
    count: int | None
    operations: list[str] | None
    hits: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class FaultRegistry(FaultList[Fault]):
    def add(self, target: str, mode: str, count: int | None = None, operations: list[str] | None = None) -> Fault:
        if target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
            raise ValueError("count must be a positive integer")
        if operations is not None and not (
            isinstance(operations, list) and all(isinstance(o, str) and o for o in operations)
        ):
            raise ValueError("operations must be a list of operation names")
        return self._add(lambda id_: Fault(id_, target, mode, count, list(operations) if operations else None))

    def take(self, target: str, operation: str) -> Fault | None:
        """The first fault matching (target, operation), with one of its uses consumed."""
        return self._take(lambda f: f.target == target and (f.operations is None or operation in f.operations))

    def _use(self, fault: Fault) -> None:
        fault.hits += 1
        super()._use(fault)


registry = FaultRegistry()


def error_for(target: str, mode: str, operation: str) -> Exception:
    """The exception botocore would raise for this fault."""
    if mode == "down":
        return EndpointConnectionError(endpoint_url=ENDPOINTS[target])
    if mode == "throttle":
        code, status, message = THROTTLE_CODE[target], 400, "Rate exceeded (devstack fault)"
    else:
        code, status, message = "InternalFailure", 500, "Internal failure (devstack fault)"
    return ClientError(
        {
            "Error": {"Code": code, "Message": message},
            "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": "devstack-fault"},
        },
        operation,
    )


def take(target: str, operation: str) -> Exception | None:
    """The exception to raise for this call, when a fault applies (the pinning client uses it)."""
    fault = registry.take(target, operation)
    return None if fault is None else error_for(target, fault.mode, operation)


def _hook_for(target: str):
    def before_call(model: Any = None, **_: Any) -> None:
        operation = getattr(model, "name", "") or ""
        error = take(target, operation)
        if error is not None:
            raise error

    before_call.__name__ = f"devstack_fault_{target}"
    return before_call


_HOOKS = {target: _hook_for(target) for target in SERVICE_HOOKS}


def install() -> None:
    """Register the AWS hooks (once; add_hook ignores repeats)."""
    from partner.store import aws

    for target, event_name in SERVICE_HOOKS.items():
        aws.add_hook(event_name, _HOOKS[target])


def uninstall() -> None:
    from partner.store import aws

    for target, event_name in SERVICE_HOOKS.items():
        aws.remove_hook(event_name, _HOOKS[target])


def set_fault(target: str, mode: str, count: int | None = None, operations: list[str] | None = None) -> dict[str, Any]:
    """Targets: `kms`, `dynamodb` (through a `before-call.<service>` hook installed with
    `partner.store.aws.add_hook`, so every client of this process sees it) and `pinning` (a
    registry entry the pinning client consults with `take("pinning", operation)`).
    Modes: `throttle` (ThrottlingException, or ProvisionedThroughputExceededException on
    DynamoDB), `error` (InternalFailure, HTTP 500) and `down` (EndpointConnectionError).
    `count` faults the next N matching calls, then the fault clears itself; without it the
    fault stays until cleared. `operations` limits it to those API operation names.

    The hook raises before the request is built, so botocore does not retry it: one faulted
    call is one failed SDK call. The gateway serves the registry as `POST /_devstack/faults`
    (JSON body: target, mode, count?, operations? or methods?), `GET` and `DELETE` (optional
    `?target=`); `partnerctl dev fault` uses those routes.
    """
    fault = registry.add(target, mode, count, operations)
    if target in SERVICE_HOOKS:
        install()
    return fault.to_json()


def clear(target: str | None = None) -> int:
    return registry.clear(target)


def list_faults() -> list[dict[str, Any]]:
    return registry.list()


# ------------------------------------------------------------------ gateway routes


def _answer(status: int, payload: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json", "Cache-Control": "no-store"}, json.dumps(payload).encode()


def _post(request: Any) -> tuple[int, dict[str, str], bytes]:
    try:
        spec = request.json()
    except ValueError:
        return _answer(400, {"error": "invalid_request", "message": "The body must be JSON."})
    if not isinstance(spec, dict):
        return _answer(400, {"error": "invalid_request", "message": "The body must be a JSON object."})
    operations = spec.get("operations", spec.get("methods"))
    try:
        fault = set_fault(str(spec.get("target")), str(spec.get("mode")), spec.get("count"), operations)
    except ValueError as exc:
        return _answer(400, {"error": "invalid_request", "message": str(exc)})
    return _answer(200, fault)


def _get(_request: Any) -> tuple[int, dict[str, str], bytes]:
    return _answer(200, {"faults": list_faults()})


def _delete(request: Any) -> tuple[int, dict[str, str], bytes]:
    target = (request.query.get("target") or [None])[0]
    return _answer(200, {"cleared": clear(target)})


def routes() -> dict[tuple[str, str], Any]:
    """Extra gateway routes: POST (set), GET (list), DELETE (clear) on /_devstack/faults."""
    return {("POST", PATH): _post, ("GET", PATH): _get, ("DELETE", PATH): _delete}
