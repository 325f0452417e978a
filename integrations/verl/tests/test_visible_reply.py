"""The reply the simulated user sees: the same split as the benchmark's LLM agent. The cases are
shared with ``test/server-verl.test.ts``, which checks them against the TypeScript ``splitThink``."""

from __future__ import annotations

import json
import os
import unittest

import support

from aeb_verl.visible_reply import visible_reply

CASES = os.path.join(support.HERE, "fixtures", "visible-replies.json")


class VisibleReply(unittest.TestCase):
    def test_every_shared_case(self) -> None:
        with open(CASES, encoding="utf-8") as handle:
            cases = json.load(handle)
        self.assertGreaterEqual(len(cases), 10)
        for case in cases:
            self.assertEqual(visible_reply(case["completion"]), case["visible"], case["why"])


if __name__ == "__main__":
    unittest.main()
