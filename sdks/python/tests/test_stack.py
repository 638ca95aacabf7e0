"""Both clients against the booted stack: the three searches, a session, execute, refusals, the other reads."""

from __future__ import annotations

import asyncio
import unittest

from rota import API_VERSION, AsyncRota, Rota, RotaError

from .stack import env

META_TOOLS = 15


class SyncAgainstStack(unittest.TestCase):
    def setUp(self) -> None:
        self.rota = Rota(env("ROTA_TEST_LIVE_KEY"), base_url=env("ROTA_TEST_URL"))

    def test_search_list_and_path_c(self) -> None:
        hits = self.rota.tools.search("send a whatsapp notification to a customer", limit=3)
        self.assertEqual(hits["source"], "fallback")
        self.assertTrue(all(h["tool_name"].startswith("codespar_") for h in hits["hits"]))
        listed = self.rota.meta_tools.list()
        self.assertEqual(len(listed["tools"]), META_TOOLS)
        with self.assertRaises(RotaError) as caught:
            self.rota.meta_tools.discover(intent={"operation": "charge", "currency": "JPY", "country": "JP"})
        err = caught.exception
        self.assertGreaterEqual(err.status, 400)
        self.assertEqual(err.code, err.body["error"] if isinstance(err.body, dict) else None)  # pyright: ignore[reportUnknownMemberType]

    def test_session_execute_and_refusals_as_data(self) -> None:
        session = self.rota.sessions.create("user_py", servers=["asaas"], metadata={"from": "python"})
        self.assertTrue(session.id.startswith("ses_"))
        self.assertEqual(session.servers, ["asaas"])
        self.assertTrue(session.mcp.url.endswith(f"/v1/sessions/{session.id}/mcp"))
        self.assertEqual(session.mcp.headers["Authorization"], f"Bearer {env('ROTA_TEST_LIVE_KEY')}")
        unknown = session.execute("nope/nothing", {})
        self.assertFalse(unknown.success)
        self.assertGreaterEqual(unknown.status, 200)
        self.assertIsNotNone(unknown.code)
        same = self.rota.sessions.get(session.id)
        self.assertEqual(same.id, session.id)
        first = session.close()
        self.assertEqual(session.close()["closed_at"], first["closed_at"])
        late = session.execute("codespar_list_tools")
        self.assertEqual((late.success, late.status, late.code), (False, 409, "session_not_active"))
        self.assertRegex(late.request_id or "", r"^req_|\S")

    def test_a_bad_key_is_unauthorized(self) -> None:
        with self.assertRaises(RotaError) as caught:
            Rota("csk_live_not_a_key", base_url=env("ROTA_TEST_URL")).tools.search("cobrar via pix")
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthorized"))

    def test_other_reads(self) -> None:
        self.assertIn("status", self.rota.health())
        logs = self.rota.logs.list(limit=5)
        self.assertIsInstance(logs["logs"], list)
        self.assertIn("next_cursor", logs)
        self.assertIsInstance(self.rota.usage(), dict)

    def test_version_constant(self) -> None:
        self.assertRegex(API_VERSION, r"^\d+\.\d+\.\d+$")


class AsyncAgainstStack(unittest.IsolatedAsyncioTestCase):
    async def test_the_same_surface(self) -> None:
        rota = AsyncRota(env("ROTA_TEST_LIVE_KEY"), base_url=env("ROTA_TEST_URL"))
        hits, listed = await asyncio.gather(rota.tools.search("cobrar via pix"), rota.meta_tools.list())
        self.assertGreater(len(hits["hits"]), 0)
        self.assertEqual(len(listed["tools"]), META_TOOLS)
        session = await rota.sessions.create(None, servers=["asaas"])
        found = await session.discover("create a pix payment", limit=2)
        self.assertEqual(found["use_case"], "create a pix payment")
        await session.close()
        late = await session.execute("codespar_list_tools")
        self.assertEqual(late.code, "session_not_active")
        with self.assertRaises(RotaError) as caught:
            await rota.sessions.get("ses_missing")
        self.assertEqual(caught.exception.code, "session_not_found")


if __name__ == "__main__":
    unittest.main()
