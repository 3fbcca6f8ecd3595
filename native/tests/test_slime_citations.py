"""The slime facts openclaw_rl's comments point at (fixtures/slime_citations.json): each names code of ours that
exists, and, where OPENCLAW_RL_REFERENCE (the fork's repository) or SLIME_REFERENCE (upstream slime) names a checkout
at the recorded commit, the cited lines hold the recorded text."""

from __future__ import annotations

import json
import os
import unittest
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "slime_citations.json"
REPOSITORY = Path(__file__).resolve().parents[2]
CHECKOUTS = {"fork": "OPENCLAW_RL_REFERENCE", "upstream": "SLIME_REFERENCE"}


def cited_lines(root: Path, where: str) -> str:
    """The lines `where` ("file:10-12,15") names under `root`, joined."""
    file, ranges = where.split(":")
    lines = (root / file).read_text(encoding="utf-8").split("\n")
    chosen = []
    for part in ranges.split(","):
        first, _, last = part.partition("-")
        chosen.extend(lines[int(first) - 1 : int(last or first)])
    return "\n".join(chosen)


class SlimeCitationsTest(unittest.TestCase):
    facts = json.loads(FIXTURE.read_text(encoding="utf-8"))

    def test_each_fact_names_our_code_and_where_in_a_known_flavour(self):
        for name, fact in self.facts["facts"].items():
            flavours = [flavour for flavour in self.facts["flavours"] if flavour in fact]
            self.assertTrue(flavours, name)
            for ours in fact["ours"].split("; "):
                path = ours.split(" ")[0]
                candidates = [REPOSITORY / path, REPOSITORY / "native" / path]
                self.assertTrue(any(candidate.exists() for candidate in candidates), f"{name}: {path}")

    def test_cited_lines_hold_the_recorded_text(self):
        checked = 0
        for flavour, variable in CHECKOUTS.items():
            checkout = os.environ.get(variable)
            if not checkout:
                continue
            root = Path(checkout) / self.facts["flavours"][flavour]["root"]
            for name, fact in self.facts["facts"].items():
                if flavour not in fact:
                    continue
                wheres = fact[flavour]["where"]
                text = "\n".join(cited_lines(root, where) for where in ([wheres] if isinstance(wheres, str) else wheres))
                for expected in fact[flavour]["contains"]:
                    self.assertIn(expected, text, f"{flavour} {name}: {wheres}")
                checked += 1
        if checked == 0:
            self.skipTest("neither OPENCLAW_RL_REFERENCE nor SLIME_REFERENCE names a checkout")


if __name__ == "__main__":
    unittest.main()
