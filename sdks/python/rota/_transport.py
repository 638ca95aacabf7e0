"""HTTP over the standard library, and the one retry rule both clients follow.

A call is sent again only after an answer that proves a repeat is safe with the
same ``Idempotency-Key``: a connection that failed before any answer
(``network_error``), a ``503 unavailable`` (no handler took it) or a
``503 outcome_unknown`` (it may have run; the key makes the gateway answer the
stored result instead of running it twice). A timeout is not retried: the call
may still be running, and an immediate repeat would only meet
``409 request_in_progress``.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Literal, Mapping, Optional

from ._errors import RotaError, error_from_response
from ._version import API_VERSION, __version__

#: Which answers a call may be sent again after.
#: ``safe``: network errors, 503 ``unavailable`` and 503 ``outcome_unknown``;
#: ``unavailable``: only a 503 ``unavailable`` (the call provably never ran);
#: ``never``: sent once.
RetryPolicy = Literal["safe", "unavailable", "never"]

RETRYABLE_503 = frozenset({"unavailable", "outcome_unknown"})


@dataclass(frozen=True)
class RawResponse:
    status: int
    headers: Mapping[str, str]
    body: object


def new_idempotency_key() -> str:
    """A fresh key for one logical call."""
    return str(uuid.uuid4())


def backoff_seconds(attempt: int, headers: Optional[Mapping[str, str]] = None) -> float:
    """Exponential back-off with jitter (0.2 s, 0.4 s, 0.8 s … plus up to as much again); a ``Retry-After`` under a minute wins."""
    if headers is not None:
        raw = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
        if raw is not None:
            try:
                after = float(raw)
                if 0 < after <= 60:
                    return after
            except ValueError:
                pass
    base = 0.2 * 2**attempt
    return base + random.random() * base


def should_retry(policy: RetryPolicy, outcome: RawResponse | RotaError) -> bool:
    """Whether an attempt's outcome allows another attempt under ``policy``."""
    if policy == "never":
        return False
    if isinstance(outcome, RotaError):
        return policy == "safe" and outcome.code == "network_error"
    if outcome.status != 503:
        return False
    code = error_from_response(outcome.status, outcome.body, outcome.headers).code
    return code == "unavailable" if policy == "unavailable" else code in RETRYABLE_503


class Transport:
    """One attempt of one request; the clients loop over it."""

    def __init__(self, api_key: str, base_url: str, timeout: float, max_retries: int) -> None:
        if not api_key:
            raise ValueError("Rota: api_key is required")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self.headers = {
            "authorization": f"Bearer {api_key}",
            "user-agent": f"rota-python/{__version__} (api {API_VERSION})",
            "accept": "application/json",
        }

    def url(self, path: str, query: Optional[Mapping[str, object]] = None) -> str:
        if not query:
            return f"{self.base_url}{path}"
        pairs = [(k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in query.items() if v is not None]
        return f"{self.base_url}{path}?{urllib.parse.urlencode(pairs)}" if pairs else f"{self.base_url}{path}"

    def once(
        self,
        method: str,
        path: str,
        body: object = None,
        headers: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, object]] = None,
    ) -> RawResponse:
        """Sends one attempt; any status is an answer, no answer is a `RotaError` with status 0."""
        h = {**self.headers, **(headers or {})}
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            h["content-type"] = "application/json"
        request = urllib.request.Request(self.url(path, query), data=data, method=method, headers=h)
        origin = urllib.parse.urlsplit(self.base_url)
        where = f"{origin.scheme}://{origin.netloc}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as res:  # noqa: S310 (the caller's own gateway)
                return RawResponse(res.status, dict(res.headers.items()), _parse(res.read()))
        except urllib.error.HTTPError as err:
            with err:
                return RawResponse(err.code, dict(err.headers.items()), _parse(err.read()))
        except (TimeoutError, socket.timeout) as err:
            raise RotaError(status=0, code="timeout", message=f"{where} could not be reached: no answer within {self.timeout} s") from err
        except urllib.error.URLError as err:
            if isinstance(err.reason, (TimeoutError, socket.timeout)):
                raise RotaError(status=0, code="timeout", message=f"{where} could not be reached: no answer within {self.timeout} s") from err
            raise RotaError(status=0, code="network_error", message=f"{where} could not be reached: {err.reason}") from err
        except (ConnectionError, http.client.HTTPException, OSError) as err:
            raise RotaError(status=0, code="network_error", message=f"{where} could not be reached: {err}") from err


def _parse(raw: bytes) -> object:
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    try:
        parsed: object = json.loads(text)
        return parsed
    except ValueError:
        return text
