"""The synchronous client: `Rota`, its `Session`, and the result types both clients share."""

from __future__ import annotations

import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Union

from ._errors import RotaError, as_record, error_from_response
from ._transport import RawResponse, RetryPolicy, Transport, backoff_seconds, new_idempotency_key, should_retry

JsonObject = Dict[str, Any]
HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]

DEFAULT_BASE_URL = "http://127.0.0.1:3000"


@dataclass(frozen=True)
class ExecuteResponse:
    """What `Session.execute` answers, success or not.

    On a 200 it is the tool's result; on a refusal (4xx, 5xx) it is made up with
    ``success=False``, the refusal's ``code`` and the body in ``data``.
    """

    success: bool
    data: Any
    error: Optional[str]
    duration: float
    server: Optional[str]
    tool: str
    tool_call_id: Optional[str]
    called_at: str
    #: HTTP status of the answer.
    status: int
    #: None on success; the reason otherwise (the envelope's ``error``, or the tool's ``data.code``).
    code: Optional[str]
    request_id: Optional[str]
    #: The stored answer of an earlier request with the same idempotency key.
    replayed: bool
    #: The key the call was sent with (fresh unless given).
    idempotency_key: str


@dataclass(frozen=True)
class McpConnection:
    """How an MCP client reaches a session: POST JSON-RPC to ``url`` with ``headers``."""

    url: str
    headers: Mapping[str, str] = field(default_factory=lambda: dict[str, str]())


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    return next((v for k, v in headers.items() if k.lower() == name), None)


_record = as_record


def execute_response(res: RawResponse, tool: str, idempotency_key: str) -> ExecuteResponse:
    """Reads an execute answer, any status, as data."""
    body = _record(res.body)
    if res.status == 200 and body is not None:
        data = body.get("data")
        data_record = _record(data)
        data_code = data_record.get("code") if data_record is not None else None
        success = body.get("success") is True
        return ExecuteResponse(
            success=success,
            data=data,
            error=body.get("error"),
            duration=float(body.get("duration") or 0),
            server=body.get("server"),
            tool=str(body.get("tool") or tool),
            tool_call_id=body.get("tool_call_id"),
            called_at=str(body.get("called_at") or ""),
            status=200,
            code=None if success else (data_code if isinstance(data_code, str) and data_code else "tool_failed"),
            request_id=_header(res.headers, "x-request-id"),
            replayed=_header(res.headers, "idempotent-replayed") == "true",
            idempotency_key=idempotency_key,
        )
    error = error_from_response(res.status, res.body, res.headers)
    return ExecuteResponse(
        success=False,
        data=res.body,
        error=error.message,
        duration=0.0,
        server=None,
        tool=tool,
        tool_call_id=None,
        called_at=datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
        status=res.status,
        code=error.code,
        request_id=error.request_id,
        replayed=False,
        idempotency_key=idempotency_key,
    )


def discover_input(use_case: str, limit: Optional[int], country: Optional[str], category: Optional[str]) -> JsonObject:
    payload: JsonObject = {"use_case": use_case}
    if limit is not None:
        payload["limit"] = limit
    if country is not None:
        payload["country"] = country
    if category is not None:
        payload["category"] = category
    return payload


def discover_result(r: ExecuteResponse) -> JsonObject:
    """The ``codespar_discover`` result, or the `RotaError` its failure means."""
    data = _record(r.data)
    if r.success and data is not None:
        return data
    message = str(data.get("message")) if r.status == 200 and data is not None and data.get("message") else (r.error or "discover failed")
    raise RotaError(status=r.status, code=r.code or "tool_failed", message=message, request_id=r.request_id, body=r.data)


def proxy_body(
    server: str,
    endpoint: str,
    method: HttpMethod,
    body: object,
    params: Optional[Mapping[str, Union[str, int, float, bool]]],
    headers: Optional[Mapping[str, str]],
) -> JsonObject:
    payload: JsonObject = {"server": server, "endpoint": endpoint, "method": method}
    if body is not None:
        payload["body"] = body
    if params is not None:
        payload["params"] = dict(params)
    if headers is not None:
        payload["headers"] = dict(headers)
    return payload


def session_path(session_id: str, tail: str = "") -> str:
    return f"/v1/sessions/{urllib.parse.quote(session_id, safe='')}{tail}"


def execute_headers(idempotency_key: str, approval_id: Optional[str]) -> Dict[str, str]:
    headers = {"idempotency-key": idempotency_key}
    if approval_id is not None:
        headers["rota-approval-id"] = approval_id
    return headers


class _Caller:
    """The retry loop of the synchronous client."""

    def __init__(self, transport: Transport) -> None:
        self.t = transport

    def raw(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        policy: RetryPolicy,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, object]] = None,
    ) -> RawResponse:
        """Sends the call, and again with the same key while `should_retry` allows; raises `RotaError` when no answer came."""
        h = dict(headers or {})
        if idempotency_key is not None:
            h["idempotency-key"] = idempotency_key
        attempt = 0
        while True:
            try:
                res = self.t.once(method, path, body, h, query)
            except RotaError as err:
                if attempt < self.t.max_retries and should_retry(policy, err):
                    time.sleep(backoff_seconds(attempt))
                    attempt += 1
                    continue
                err.idempotency_key = idempotency_key
                raise
            if attempt < self.t.max_retries and should_retry(policy, res):
                time.sleep(backoff_seconds(attempt, res.headers))
                attempt += 1
                continue
            return res

    def json(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        policy: RetryPolicy,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, object]] = None,
    ) -> Any:
        res = self.raw(method, path, body, policy=policy, idempotency_key=idempotency_key, headers=headers, query=query)
        if 200 <= res.status < 300:
            return res.body
        raise error_from_response(res.status, res.body, res.headers)


class Session:
    """A session opened by `Rota.sessions.create` or read by `Rota.sessions.get`."""

    def __init__(self, caller: _Caller, data: JsonObject) -> None:
        self._c = caller
        #: The session as the gateway described it when this object was made.
        self.data = data
        self.id: str = str(data["id"])
        self.user_id: Optional[str] = data.get("user_id")
        self.servers: List[str] = list(data.get("servers") or [])
        mcp = _record(data.get("mcp")) or {}
        #: URL and headers for an MCP client bound to this session.
        self.mcp = McpConnection(url=str(mcp.get("url", "")), headers={"Authorization": caller.t.headers["authorization"]})

    def execute(
        self,
        tool: str,
        input: Optional[Mapping[str, object]] = None,  # noqa: A002 (the wire's name)
        *,
        idempotency_key: Optional[str] = None,
        approval_id: Optional[str] = None,
    ) -> ExecuteResponse:
        """Runs a tool in the session. Never raises on an HTTP status: a refusal answers ``success=False`` with
        its ``code``, ``status`` and ``request_id``. Always sends an ``Idempotency-Key`` (a fresh UUID unless
        given) and repeats it on every retry. Raises `RotaError` (status 0, with ``idempotency_key``) only when
        no answer came at all."""
        key = idempotency_key or new_idempotency_key()
        body: JsonObject = {"tool": tool} if input is None else {"tool": tool, "input": dict(input)}
        res = self._c.raw("POST", session_path(self.id, "/execute"), body, policy="safe", idempotency_key=key, headers=execute_headers(key, approval_id))
        return execute_response(res, tool, key)

    def discover(self, use_case: str, *, limit: Optional[int] = None, country: Optional[str] = None, category: Optional[str] = None) -> JsonObject:
        """Path B: the catalog tools and native meta-tools that fit a use case (``codespar_discover``). Raises `RotaError`."""
        return discover_result(self.execute("codespar_discover", discover_input(use_case, limit, country, category)))

    def proxy_execute(
        self,
        server: str,
        endpoint: str,
        method: HttpMethod = "GET",
        *,
        body: object = None,
        params: Optional[Mapping[str, Union[str, int, float, bool]]] = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotency_key: Optional[str] = None,
    ) -> JsonObject:
        """A raw HTTP call to one of the session's providers, credentials injected by the gateway. The provider's
        answer, any status, is data (``result["status"]``); Rota's refusals raise `RotaError`. Sent again only
        after a ``503 unavailable`` (it never ran)."""
        key = idempotency_key or new_idempotency_key()
        payload = proxy_body(server, endpoint, method, body, params, headers)
        result: JsonObject = self._c.json("POST", session_path(self.id, "/proxy"), payload, policy="unavailable", idempotency_key=key)
        return result

    def get(self) -> JsonObject:
        """Reads the session's current state. Raises `RotaError`."""
        result: JsonObject = self._c.json("GET", session_path(self.id), policy="safe")
        return result

    def close(self) -> JsonObject:
        """Closes the session; closing again answers the first ``closed_at``. Raises `RotaError`."""
        result: JsonObject = self._c.json("DELETE", session_path(self.id), policy="safe")
        return result

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Tools:
    def __init__(self, c: _Caller) -> None:
        self._c = c

    def search(self, intent: str, *, limit: Optional[int] = None) -> JsonObject:
        """``POST /v1/tools/search`` (path A): up to 5 meta-tools for an intent. Raises `RotaError`."""
        body: JsonObject = {"intent": intent} if limit is None else {"intent": intent, "limit": limit}
        result: JsonObject = self._c.json("POST", "/v1/tools/search", body, policy="safe", idempotency_key=new_idempotency_key())
        return result


class _MetaTools:
    def __init__(self, c: _Caller) -> None:
        self._c = c

    def discover(self, *, intent: Optional[Mapping[str, object]] = None, description: Optional[str] = None, **extra: object) -> JsonObject:
        """``POST /v1/meta-tools/discover`` (path C): the rail for an operation (``intent=``) or words (``description=``).
        Raises `RotaError` (for example 424 ``eligibility_empty``)."""
        body: JsonObject = dict(extra)
        if intent is not None:
            body["intent"] = dict(intent)
        if description is not None:
            body["description"] = description
        result: JsonObject = self._c.json("POST", "/v1/meta-tools/discover", body, policy="safe", idempotency_key=new_idempotency_key())
        return result

    def list(self) -> JsonObject:
        """``GET /v1/meta-tools.json``: the 15 published definitions. Raises `RotaError`."""
        result: JsonObject = self._c.json("GET", "/v1/meta-tools.json", policy="safe")
        return result


class _Sessions:
    def __init__(self, c: _Caller) -> None:
        self._c = c

    def create(self, user_id: Optional[str], *, servers: Sequence[str], metadata: Optional[Mapping[str, object]] = None) -> Session:
        """``POST /v1/sessions``: a session for an end user over 1 to 20 providers. Raises `RotaError`.
        Sent again only after a ``503 unavailable`` (it never ran)."""
        body: JsonObject = {"servers": list(servers)}
        if user_id is not None:
            body["user_id"] = user_id
        if metadata is not None:
            body["metadata"] = dict(metadata)
        data: JsonObject = self._c.json("POST", "/v1/sessions", body, policy="unavailable", idempotency_key=new_idempotency_key())
        return Session(self._c, data)

    def get(self, session_id: str) -> Session:
        """``GET /v1/sessions/{id}``. Raises `RotaError`."""
        data: JsonObject = self._c.json("GET", session_path(session_id), policy="safe")
        return Session(self._c, data)

    def close(self, session_id: str) -> JsonObject:
        """``DELETE /v1/sessions/{id}``. Raises `RotaError`."""
        result: JsonObject = self._c.json("DELETE", session_path(session_id), policy="safe")
        return result


class _Logs:
    def __init__(self, c: _Caller) -> None:
        self._c = c

    def list(
        self,
        *,
        session_id: Optional[str] = None,
        tool: Optional[str] = None,
        server: Optional[str] = None,
        outcome: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> JsonObject:
        """``GET /v1/logs``: one page of call records, newest first (``next_cursor`` for the next). Raises `RotaError`."""
        query: Dict[str, object] = {"session_id": session_id, "tool": tool, "server": server, "outcome": outcome, "limit": limit, "cursor": cursor}
        result: JsonObject = self._c.json("GET", "/v1/logs", policy="safe", query=query)
        return result


class Rota:
    """The synchronous Rota client.

    >>> rota = Rota(api_key=os.environ["ROTA_API_KEY"], base_url="http://127.0.0.1:3000")
    >>> session = rota.sessions.create("user_123", servers=["asaas"])
    """

    def __init__(self, api_key: str, *, base_url: str = DEFAULT_BASE_URL, timeout: float = 30.0, max_retries: int = 2) -> None:
        self._c = _Caller(Transport(api_key, base_url, timeout, max_retries))
        #: Path A.
        self.tools = _Tools(self._c)
        #: The published meta-tools, and path C.
        self.meta_tools = _MetaTools(self._c)
        #: Open, read and close sessions.
        self.sessions = _Sessions(self._c)
        #: The call log of the key's project and environment.
        self.logs = _Logs(self._c)

    @property
    def base_url(self) -> str:
        """The gateway, without a trailing slash."""
        return self._c.t.base_url

    def policy(self) -> JsonObject:
        """``GET /v1/policy``: the rules of the key's project and environment. Raises `RotaError`."""
        result: JsonObject = self._c.json("GET", "/v1/policy", policy="safe")
        return result

    def usage(self) -> JsonObject:
        """``GET /v1/usage``: calls and quota of the key's project. Raises `RotaError`."""
        result: JsonObject = self._c.json("GET", "/v1/usage", policy="safe")
        return result

    def health(self) -> JsonObject:
        """``GET /v1/health``: the checks and their rollup. Raises `RotaError`."""
        result: JsonObject = self._c.json("GET", "/v1/health", policy="safe")
        return result

    def request(self, method: HttpMethod, path: str, body: object = None, *, query: Optional[Mapping[str, object]] = None) -> Any:
        """Any route of the OpenAPI document: the 2xx body, or raises `RotaError`. Only ``GET`` is retried."""
        policy: RetryPolicy = "safe" if method == "GET" else "never"
        return self._c.json(method, path, body, policy=policy, query=query)
