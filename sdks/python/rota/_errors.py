"""`RotaError` and how a gateway answer becomes one (the same rules as `@rota/sdk`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, cast

UNAUTHORIZED_MESSAGE = "The API key is missing, malformed, unknown or revoked."


@dataclass(frozen=True)
class PolicyDenial:
    """The fields of a policy refusal, as the gateway sends them."""

    reason: str
    rule_type: Optional[str]
    rule_id: Optional[str]
    #: Set when the refusal opened a human approval: send the same call again with ``approval_id=`` once it is approved.
    approval_id: Optional[str] = None
    #: When that approval lapses (ISO 8601).
    expires_at: Optional[str] = None


class RotaError(Exception):
    """A refusal or failure of a call.

    ``code`` is always set: the envelope's ``error``; ``unauthorized`` for the raw 401;
    ``policy_denied`` for a policy refusal (its fields on ``policy``); the ``code`` of a
    ``{"code": ...}`` body; ``network_error`` or ``timeout`` (status 0) when no answer
    arrived; ``http_<status>`` for a body that says nothing usable.
    """

    status: int
    code: str
    message: str
    request_id: Optional[str]
    body: object
    policy: Optional[PolicyDenial]
    idempotency_key: Optional[str]

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str] = None,
        body: object = None,
        policy: Optional[PolicyDenial] = None,
        idempotency_key: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.body = body
        self.policy = policy
        #: Set on a call sent with an idempotency key that got no answer: send it again later with this key.
        self.idempotency_key = idempotency_key

    def __repr__(self) -> str:
        return f"RotaError(status={self.status}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"


def as_record(value: object) -> Optional[Dict[str, Any]]:
    """A JSON object as a dict with string keys, or None for anything else."""
    return cast(Dict[str, Any], value) if isinstance(value, dict) else None


def _str(value: object) -> Optional[str]:
    return value if isinstance(value, str) and value != "" else None


def error_from_response(status: int, body: object, headers: Optional[Mapping[str, str]] = None) -> RotaError:
    """Builds the `RotaError` for a non-2xx answer, reading the body the way the TypeScript SDK does."""
    header_id = None
    if headers is not None:
        header_id = next((v for k, v in headers.items() if k.lower() == "x-request-id"), None)
    record = as_record(body)
    if record is not None:
        request_id = _str(record.get("request_id")) or header_id
        error = _str(record.get("error"))
        if error is not None:
            default = UNAUTHORIZED_MESSAGE if error == "unauthorized" else error
            message = _str(record.get("message")) or _str(record.get("detail")) or default
            return RotaError(status=status, code=error, message=message, request_id=request_id, body=body)
        reason = _str(record.get("reason"))
        if reason is not None and ("ruleType" in record or "ruleId" in record):
            policy = PolicyDenial(
                reason=reason,
                rule_type=_str(record.get("ruleType")),
                rule_id=_str(record.get("ruleId")),
                approval_id=_str(record.get("approval_id")),
                expires_at=_str(record.get("expires_at")),
            )
            return RotaError(status=status, code="policy_denied", message=reason, request_id=request_id, body=body, policy=policy)
        code = _str(record.get("code"))
        if code is not None:
            return RotaError(status=status, code=code, message=_str(record.get("message")) or code, request_id=request_id, body=body)
    else:
        request_id = header_id
    if status == 401:
        return RotaError(status=status, code="unauthorized", message=UNAUTHORIZED_MESSAGE, request_id=request_id, body=body)
    message = body if isinstance(body, str) and 0 < len(body) < 300 else f"HTTP {status}"
    return RotaError(status=status, code=f"http_{status}", message=message, request_id=request_id, body=body)
