"""Standard Webhooks verification on the standard library's `hmac`.

Rota signs each delivery with ``webhook-id``, ``webhook-timestamp`` and
``webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``,
keyed with the bytes of the subscription's ``whsec_<base64>`` secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Mapping, Optional, Union

SECRET_PREFIX = "whsec_"
#: How far a timestamp may be from now, in seconds, before the message is refused (a replay guard).
DEFAULT_TOLERANCE_S = 300


class WebhookVerificationError(Exception):
    """The message is not signed by the secret, or its timestamp is too far from now."""


def _secret_bytes(secret: Union[str, bytes]) -> bytes:
    if isinstance(secret, bytes):
        return secret
    raw = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as err:
        raise ValueError("the webhook secret is not base64 (whsec_<base64>)") from err


def sign(secret: Union[str, bytes], msg_id: str, timestamp: int, payload: Union[str, bytes]) -> str:
    """The ``webhook-signature`` value (``v1,<base64>``) of one message."""
    body = payload.encode("utf-8") if isinstance(payload, str) else payload
    content = f"{msg_id}.{timestamp}.".encode("utf-8") + body
    digest = hmac.new(_secret_bytes(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"missing header {name}")


def verify_webhook(
    secret: Union[str, bytes],
    payload: Union[str, bytes],
    headers: Mapping[str, str],
    *,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
    now: Optional[float] = None,
) -> Any:
    """Checks a delivery and answers its parsed JSON body.

    ``payload`` must be the body exactly as received (bytes or text, before any
    parsing). Raises `WebhookVerificationError` when a header is missing, the
    timestamp is more than ``tolerance_s`` from now, or no ``v1`` signature in
    the header matches (compared in constant time).
    """
    msg_id = _header(headers, "webhook-id")
    raw_ts = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    try:
        timestamp = int(raw_ts)
    except ValueError as err:
        raise WebhookVerificationError("invalid webhook-timestamp") from err
    current = int(time.time() if now is None else now)
    if timestamp < current - tolerance_s:
        raise WebhookVerificationError("message timestamp too old")
    if timestamp > current + tolerance_s:
        raise WebhookVerificationError("message timestamp too new")
    expected = sign(secret, msg_id, timestamp, payload).split(",", 1)[1].encode("ascii")
    for item in signatures.split(" "):
        version, _, signature = item.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode("ascii", errors="replace"), expected):
            body = payload.decode("utf-8") if isinstance(payload, bytes) else payload
            return json.loads(body) if body else None
    raise WebhookVerificationError("no matching signature")
