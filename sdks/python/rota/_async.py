"""The asyncio client: the same surface as `Rota`, every method a coroutine.

Each HTTP attempt runs the standard library's blocking client in a worker
thread (`asyncio.to_thread`), so no third-party event-loop HTTP library is
needed; back-off waits are `asyncio.sleep`, so cancelling a call between
attempts stops it.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._client import (
    DEFAULT_BASE_URL,
    ExecuteResponse,
    HttpMethod,
    JsonObject,
    McpConnection,
    discover_input,
    discover_result,
    execute_headers,
    execute_response,
    proxy_body,
    session_path,
)
from ._errors import RotaError, as_record, error_from_response
from ._transport import RawResponse, RetryPolicy, Transport, backoff_seconds, new_idempotency_key, should_retry


class _AsyncCaller:
    def __init__(self, transport: Transport) -> None:
        self.t = transport

    async def raw(
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
        h = dict(headers or {})
        if idempotency_key is not None:
            h["idempotency-key"] = idempotency_key
        attempt = 0
        while True:
            try:
                res = await asyncio.to_thread(self.t.once, method, path, body, h, query)
            except RotaError as err:
                if attempt < self.t.max_retries and should_retry(policy, err):
                    await asyncio.sleep(backoff_seconds(attempt))
                    attempt += 1
                    continue
                err.idempotency_key = idempotency_key
                raise
            if attempt < self.t.max_retries and should_retry(policy, res):
                await asyncio.sleep(backoff_seconds(attempt, res.headers))
                attempt += 1
                continue
            return res

    async def json(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        policy: RetryPolicy,
        idempotency_key: Optional[str] = None,
        query: Optional[Mapping[str, object]] = None,
    ) -> Any:
        res = await self.raw(method, path, body, policy=policy, idempotency_key=idempotency_key, query=query)
        if 200 <= res.status < 300:
            return res.body
        raise error_from_response(res.status, res.body, res.headers)


class AsyncSession:
    """`Session` for `AsyncRota`: the same methods, awaited."""

    def __init__(self, caller: _AsyncCaller, data: JsonObject) -> None:
        self._c = caller
        self.data = data
        self.id: str = str(data["id"])
        self.user_id: Optional[str] = data.get("user_id")
        self.servers: List[str] = list(data.get("servers") or [])
        mcp = as_record(data.get("mcp")) or {}
        self.mcp = McpConnection(url=str(mcp.get("url", "")), headers={"Authorization": caller.t.headers["authorization"]})

    async def execute(
        self,
        tool: str,
        input: Optional[Mapping[str, object]] = None,  # noqa: A002
        *,
        idempotency_key: Optional[str] = None,
        approval_id: Optional[str] = None,
    ) -> ExecuteResponse:
        """See `Session.execute`."""
        key = idempotency_key or new_idempotency_key()
        body: JsonObject = {"tool": tool} if input is None else {"tool": tool, "input": dict(input)}
        res = await self._c.raw("POST", session_path(self.id, "/execute"), body, policy="safe", idempotency_key=key, headers=execute_headers(key, approval_id))
        return execute_response(res, tool, key)

    async def discover(self, use_case: str, *, limit: Optional[int] = None, country: Optional[str] = None, category: Optional[str] = None) -> JsonObject:
        """See `Session.discover`."""
        return discover_result(await self.execute("codespar_discover", discover_input(use_case, limit, country, category)))

    async def proxy_execute(
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
        """See `Session.proxy_execute`."""
        key = idempotency_key or new_idempotency_key()
        payload = proxy_body(server, endpoint, method, body, params, headers)
        result: JsonObject = await self._c.json("POST", session_path(self.id, "/proxy"), payload, policy="unavailable", idempotency_key=key)
        return result

    async def get(self) -> JsonObject:
        """See `Session.get`."""
        result: JsonObject = await self._c.json("GET", session_path(self.id), policy="safe")
        return result

    async def close(self) -> JsonObject:
        """See `Session.close`."""
        result: JsonObject = await self._c.json("DELETE", session_path(self.id), policy="safe")
        return result

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _AsyncTools:
    def __init__(self, c: _AsyncCaller) -> None:
        self._c = c

    async def search(self, intent: str, *, limit: Optional[int] = None) -> JsonObject:
        """See `Rota.tools.search`."""
        body: JsonObject = {"intent": intent} if limit is None else {"intent": intent, "limit": limit}
        result: JsonObject = await self._c.json("POST", "/v1/tools/search", body, policy="safe", idempotency_key=new_idempotency_key())
        return result


class _AsyncMetaTools:
    def __init__(self, c: _AsyncCaller) -> None:
        self._c = c

    async def discover(self, *, intent: Optional[Mapping[str, object]] = None, description: Optional[str] = None, **extra: object) -> JsonObject:
        """See `Rota.meta_tools.discover`."""
        body: JsonObject = dict(extra)
        if intent is not None:
            body["intent"] = dict(intent)
        if description is not None:
            body["description"] = description
        result: JsonObject = await self._c.json("POST", "/v1/meta-tools/discover", body, policy="safe", idempotency_key=new_idempotency_key())
        return result

    async def list(self) -> JsonObject:
        """See `Rota.meta_tools.list`."""
        result: JsonObject = await self._c.json("GET", "/v1/meta-tools.json", policy="safe")
        return result


class _AsyncSessions:
    def __init__(self, c: _AsyncCaller) -> None:
        self._c = c

    async def create(self, user_id: Optional[str], *, servers: Sequence[str], metadata: Optional[Mapping[str, object]] = None) -> AsyncSession:
        """See `Rota.sessions.create`."""
        body: JsonObject = {"servers": list(servers)}
        if user_id is not None:
            body["user_id"] = user_id
        if metadata is not None:
            body["metadata"] = dict(metadata)
        data: JsonObject = await self._c.json("POST", "/v1/sessions", body, policy="unavailable", idempotency_key=new_idempotency_key())
        return AsyncSession(self._c, data)

    async def get(self, session_id: str) -> AsyncSession:
        """See `Rota.sessions.get`."""
        data: JsonObject = await self._c.json("GET", session_path(session_id), policy="safe")
        return AsyncSession(self._c, data)

    async def close(self, session_id: str) -> JsonObject:
        """See `Rota.sessions.close`."""
        result: JsonObject = await self._c.json("DELETE", session_path(session_id), policy="safe")
        return result


class _AsyncLogs:
    def __init__(self, c: _AsyncCaller) -> None:
        self._c = c

    async def list(
        self,
        *,
        session_id: Optional[str] = None,
        tool: Optional[str] = None,
        server: Optional[str] = None,
        outcome: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> JsonObject:
        """See `Rota.logs.list`."""
        query: Dict[str, object] = {"session_id": session_id, "tool": tool, "server": server, "outcome": outcome, "limit": limit, "cursor": cursor}
        result: JsonObject = await self._c.json("GET", "/v1/logs", policy="safe", query=query)
        return result


class AsyncRota:
    """The asyncio Rota client; the same surface as `Rota`."""

    def __init__(self, api_key: str, *, base_url: str = DEFAULT_BASE_URL, timeout: float = 30.0, max_retries: int = 2) -> None:
        self._c = _AsyncCaller(Transport(api_key, base_url, timeout, max_retries))
        self.tools = _AsyncTools(self._c)
        self.meta_tools = _AsyncMetaTools(self._c)
        self.sessions = _AsyncSessions(self._c)
        self.logs = _AsyncLogs(self._c)

    @property
    def base_url(self) -> str:
        return self._c.t.base_url

    async def policy(self) -> JsonObject:
        """See `Rota.policy`."""
        result: JsonObject = await self._c.json("GET", "/v1/policy", policy="safe")
        return result

    async def usage(self) -> JsonObject:
        """See `Rota.usage`."""
        result: JsonObject = await self._c.json("GET", "/v1/usage", policy="safe")
        return result

    async def health(self) -> JsonObject:
        """See `Rota.health`."""
        result: JsonObject = await self._c.json("GET", "/v1/health", policy="safe")
        return result

    async def request(self, method: HttpMethod, path: str, body: object = None, *, query: Optional[Mapping[str, object]] = None) -> Any:
        """See `Rota.request`."""
        policy: RetryPolicy = "safe" if method == "GET" else "never"
        return await self._c.json(method, path, body, policy=policy, query=query)
