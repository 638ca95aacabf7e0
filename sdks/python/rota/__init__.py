"""Python client of a Rota gateway (standard library only).

`Rota` is synchronous, `AsyncRota` the same surface for asyncio. Refusals raise
`RotaError`, except `Session.execute`, which answers them as data.
"""

from ._async import AsyncRota, AsyncSession
from ._client import ExecuteResponse, McpConnection, Rota, Session
from ._errors import PolicyDenial, RotaError
from ._version import API_VERSION, __version__
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "API_VERSION",
    "AsyncRota",
    "AsyncSession",
    "ExecuteResponse",
    "McpConnection",
    "PolicyDenial",
    "Rota",
    "RotaError",
    "Session",
    "WebhookVerificationError",
    "__version__",
    "verify_webhook",
]
