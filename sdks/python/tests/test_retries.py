"""The retry rule of both clients, against a small server on 127.0.0.1 that answers in the gateway's envelope.

The real stack cannot be told to answer ``503 outcome_unknown`` on demand, so
these cases use a scripted server; everything else runs against the stack.
"""

from __future__ import annotations

import asyncio
import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

from rota import AsyncRota, Rota, RotaError

# One scripted answer: (status, body), or None to drop the connection without answering.
Answer = Optional[Tuple[int, Dict[str, Any]]]


class ScriptedGateway:
    def __init__(self, answers: List[Answer]) -> None:
        self.answers = list(answers)
        self.requests: List[Dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def handle_one(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.requests.append({"method": self.command, "path": self.path, "key": self.headers.get("idempotency-key"), "body": body})
                answer = outer.answers.pop(0) if outer.answers else (500, {"error": "internal", "message": "script ran out"})
                if answer is None:
                    self.close_connection = True
                    self.connection.close()
                    return
                status, payload = answer
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("x-request-id", "req_test")
                if status == 503:
                    self.send_header("retry-after", "0.01")
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


SESSION = {"id": "ses_1", "user_id": None, "servers": ["asaas"], "mcp": {"url": "http://x/v1/sessions/ses_1/mcp"}}
OK = {"success": True, "data": {"id": "pay_1"}, "error": None, "duration": 3, "server": "asaas", "tool": "asaas/create_payment", "tool_call_id": "tc_1", "called_at": "2026-12-06T00:00:00Z"}
UNKNOWN = {"error": "outcome_unknown", "message": "the call may have run", "request_id": "req_x"}
UNAVAILABLE = {"error": "unavailable", "message": "no replica", "request_id": "req_y"}


class SyncRetries(unittest.TestCase):
    def run_execute(self, answers: List[Answer], **kw: Any) -> Tuple[ScriptedGateway, Any]:
        gw = ScriptedGateway([(201, SESSION), *answers])
        self.addCleanup(gw.close)
        rota = Rota("csk_test_x", base_url=gw.url, max_retries=2, **kw)
        session = rota.sessions.create("u", servers=["asaas"])
        try:
            return gw, session.execute("asaas/create_payment", {"value": 1})
        except RotaError as err:
            return gw, err

    def test_outcome_unknown_then_success_resends_the_same_key(self) -> None:
        gw, r = self.run_execute([(503, UNKNOWN), None, (200, OK)])
        self.assertTrue(r.success)
        keys = [q["key"] for q in gw.requests[1:]]
        self.assertEqual(len(keys), 3)
        self.assertEqual(len(set(keys)), 1)
        self.assertEqual(r.idempotency_key, keys[0])

    def test_attempts_are_bounded_and_the_last_answer_is_data(self) -> None:
        gw, r = self.run_execute([(503, UNAVAILABLE), (503, UNAVAILABLE), (503, UNKNOWN), (200, OK)])
        self.assertEqual(len(gw.requests), 1 + 3)
        self.assertFalse(r.success)
        self.assertEqual((r.status, r.code, r.request_id), (503, "outcome_unknown", "req_x"))

    def test_other_refusals_are_not_retried(self) -> None:
        gw, r = self.run_execute([(409, {"error": "request_in_progress", "message": "busy", "request_id": "req_z"}), (200, OK)])
        self.assertEqual(len(gw.requests), 2)
        self.assertEqual((r.success, r.status, r.code), (False, 409, "request_in_progress"))

    def test_a_given_key_is_used_on_every_attempt(self) -> None:
        gw = ScriptedGateway([(201, SESSION), (503, UNKNOWN), (200, OK)])
        self.addCleanup(gw.close)
        session = Rota("k", base_url=gw.url).sessions.create(None, servers=["asaas"])
        r = session.execute("asaas/create_payment", {}, idempotency_key="order-1")
        self.assertTrue(r.success)
        self.assertEqual([q["key"] for q in gw.requests[1:]], ["order-1", "order-1"])

    def test_session_create_is_resent_only_after_unavailable(self) -> None:
        gw = ScriptedGateway([(503, UNAVAILABLE), (503, UNKNOWN)])
        self.addCleanup(gw.close)
        with self.assertRaises(RotaError) as caught:
            Rota("k", base_url=gw.url).sessions.create(None, servers=["asaas"])
        self.assertEqual((caught.exception.status, caught.exception.code), (503, "outcome_unknown"))
        self.assertEqual(len(gw.requests), 2)
        self.assertEqual(gw.requests[0]["key"], gw.requests[1]["key"])

    def test_no_server_at_all_is_a_network_error_with_the_key(self) -> None:
        gw = ScriptedGateway([])
        url = gw.url
        gw.close()
        session_rota = Rota("k", base_url=url, max_retries=1)
        with self.assertRaises(RotaError) as caught:
            session_rota.tools.search("cobrar via pix")
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "network_error"))
        self.assertIsNotNone(caught.exception.idempotency_key)


class AsyncRetries(unittest.IsolatedAsyncioTestCase):
    async def test_outcome_unknown_then_success_resends_the_same_key(self) -> None:
        gw = ScriptedGateway([(201, SESSION), (503, UNKNOWN), None, (200, OK)])
        self.addCleanup(gw.close)
        session = await AsyncRota("k", base_url=gw.url).sessions.create("u", servers=["asaas"])
        r = await session.execute("asaas/create_payment", {"value": 1})
        self.assertTrue(r.success)
        self.assertEqual(len({q["key"] for q in gw.requests[1:]}), 1)
        self.assertEqual(len(gw.requests), 4)

    async def test_refusals_raise_the_same_error_as_the_sync_client(self) -> None:
        gw = ScriptedGateway([(404, {"error": "session_not_found", "message": "no such session", "request_id": "req_n"})])
        self.addCleanup(gw.close)
        with self.assertRaises(RotaError) as caught:
            await asyncio.wait_for(AsyncRota("k", base_url=gw.url).sessions.get("ses_missing"), 10)
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.request_id), (404, "session_not_found", "req_n"))


if __name__ == "__main__":
    unittest.main()
