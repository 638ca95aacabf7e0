"""`verify_webhook` against vectors signed and checked by the npm `standardwebhooks` package."""

from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any, Dict, List

from rota import WebhookVerificationError, verify_webhook
from rota.webhooks import sign

FIXTURE = Path(__file__).parent / "fixtures" / "webhook-vectors.json"


def load_vectors() -> List[Dict[str, Any]]:
    doc: Dict[str, Any] = json.loads(FIXTURE.read_text("utf-8"))
    vectors: List[Dict[str, Any]] = doc["vectors"]
    return vectors


class WebhookVectors(unittest.TestCase):
    def test_every_vector_agrees_with_the_reference_library(self) -> None:
        vectors = load_vectors()
        self.assertGreaterEqual(len(vectors), 30)
        self.assertTrue(any(v["valid"] for v in vectors) and any(not v["valid"] for v in vectors))
        for v in vectors:
            with self.subTest(v["name"], id=v["headers"]["webhook-id"]):
                if v["valid"]:
                    body = verify_webhook(v["secret"], v["payload"], v["headers"], now=v["now"])
                    self.assertEqual(body, json.loads(v["payload"]))
                    # Bytes as received work the same as text.
                    self.assertEqual(verify_webhook(v["secret"], v["payload"].encode("utf-8"), v["headers"], now=v["now"]), body)
                else:
                    with self.assertRaises(WebhookVerificationError):
                        verify_webhook(v["secret"], v["payload"], v["headers"], now=v["now"])

    def test_sign_writes_the_reference_signature(self) -> None:
        for v in load_vectors():
            if v["name"] == "valid":
                h = v["headers"]
                self.assertEqual(sign(v["secret"], h["webhook-id"], int(h["webhook-timestamp"]), v["payload"]), h["webhook-signature"])

    def test_a_timestamp_outside_the_tolerance_is_refused(self) -> None:
        v = next(v for v in load_vectors() if v["name"] == "valid")
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(v["secret"], v["payload"], v["headers"], now=v["now"] + 301)
        with self.assertRaisesRegex(WebhookVerificationError, "too new"):
            verify_webhook(v["secret"], v["payload"], v["headers"], now=v["now"] - 301)
        self.assertIsNotNone(verify_webhook(v["secret"], v["payload"], v["headers"], now=v["now"] + 300))

    def test_a_missing_header_is_refused(self) -> None:
        v = next(v for v in load_vectors() if v["name"] == "valid")
        headers = {k: val for k, val in v["headers"].items() if k != "webhook-signature"}
        with self.assertRaisesRegex(WebhookVerificationError, "webhook-signature"):
            verify_webhook(v["secret"], v["payload"], headers, now=v["now"])


if __name__ == "__main__":
    unittest.main()
