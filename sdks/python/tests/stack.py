"""What the stack runner (`python.stack-spec.ts`) hands to pytest; a missing value fails the test rather than skipping it."""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any, Dict


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise AssertionError(f"{name} is not set: run these tests with `bash sdks/python/scripts/test.sh`, which boots the stack")
    return value


def sandbox_counters() -> Dict[str, Any]:
    req = urllib.request.Request(
        f"{env('ROTA_TEST_SANDBOX_CONTROL_URL')}/_control/counters",
        headers={"Authorization": f"Bearer {env('ROTA_TEST_SANDBOX_CONTROL_TOKEN')}"},
    )
    with urllib.request.urlopen(req, timeout=10) as res:
        counters: Dict[str, Any] = json.loads(res.read())
        return counters
