"""Runs the Python blocks of docs/python.md against the stack, in order, as the page says."""

from __future__ import annotations

import json
import re
import unittest
from pathlib import Path
from typing import Any, Dict, List
from unittest import mock

from rota import RotaError

from .stack import env, sandbox_counters

DOC = Path(__file__).resolve().parents[3] / "docs" / "python.md"


def blocks(heading: str) -> List[str]:
    """The ```python blocks between ``heading`` and the next heading of its level."""
    text = DOC.read_text("utf-8")
    start = text.index(heading + "\n")
    level = heading.split(" ")[0]
    rest = text[start + len(heading) + 1 :]
    nxt = re.search(rf"^{level} ", rest, re.M)
    section = rest[: nxt.start()] if nxt else rest
    return re.findall(r"```python\n(.*?)```", section, re.S)


class DocsQuickStart(unittest.TestCase):
    def run_blocks(self, heading: str, expected: int) -> Dict[str, Any]:
        code = blocks(heading)
        self.assertEqual(len(code), expected, heading)
        namespace: Dict[str, Any] = {"__name__": "docs_example"}
        with mock.patch.dict("os.environ", {"ROTA_URL": env("ROTA_TEST_URL"), "ROTA_API_KEY": env("ROTA_TEST_KEY")}):
            exec(compile("\n".join(code), str(DOC), "exec"), namespace)  # noqa: S102 (our own docs)
        return namespace

    def test_quick_start(self) -> None:
        before = sandbox_counters().get("charges_created", 0)
        ns = self.run_blocks("## Quick start", 3)
        self.assertGreater(len(ns["hits"]["hits"]), 0)
        self.assertTrue(ns["best"].startswith("codespar_"))
        self.assertEqual((ns["connection"]["status"], ns["connection"]["environment"]), ("connected", "test"))
        self.assertNotIn("sandbox-asaas-key", json.dumps(ns["connection"]))
        self.assertEqual(ns["found"]["use_case"], "gerar uma cobrança pix")
        self.assertIsInstance(ns["found"]["meta_tools"], list)
        charge, replay = ns["charge"], ns["replay"]
        self.assertEqual((charge.success, charge.status, charge.code, charge.replayed), (True, 200, None, False))
        self.assertEqual(charge.data["body"]["billingType"], "PIX")
        self.assertTrue(ns["payment_id"].startswith("pay_"))
        self.assertEqual((replay.success, replay.replayed, replay.idempotency_key), (True, True, "order-1001"))
        self.assertEqual(replay.data["body"]["id"], ns["payment_id"])
        # Two requests with one key: one charge at the provider.
        self.assertEqual(sandbox_counters().get("charges_created", 0), before + 1)
        refusal = ns["refusal"]
        self.assertIsInstance(refusal, RotaError)
        self.assertEqual((refusal.status, refusal.code), (404, "session_not_found"))
        self.assertRegex(refusal.request_id or "", r"\S")
        self.assertEqual(ns["closed"]["status"], "closed")
        late = ns["late"]
        self.assertEqual((late.success, late.status, late.code), (False, 409, "session_not_active"))

    def test_async_client(self) -> None:
        ns = self.run_blocks("## Asynchronous client", 1)
        self.assertEqual(ns["async_found"]["use_case"], "send a whatsapp message")

    def test_webhook_block(self) -> None:
        ns = self.run_blocks("## Verifying webhooks", 1)
        vectors = json.loads((Path(__file__).parent / "fixtures" / "webhook-vectors.json").read_text("utf-8"))["vectors"]
        v = next(v for v in vectors if v["valid"])
        with mock.patch("time.time", return_value=float(v["now"])):
            self.assertEqual(ns["handle"](v["secret"], v["payload"].encode(), v["headers"]), json.loads(v["payload"]))
            bad = next(b for b in vectors if not b["valid"])
            with self.assertRaises(PermissionError):
                ns["handle"](bad["secret"], bad["payload"].encode(), bad["headers"])


if __name__ == "__main__":
    unittest.main()
