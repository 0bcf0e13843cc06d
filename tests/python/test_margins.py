"""A claim's margin is how many times over its measurement clears its bound, in the claim's own units; equalities and signs have none.

litgrad_book.margins on the bound texts book::check writes.
"""
import math
import unittest

from litgrad_book import margins


class Margins(unittest.TestCase):
    def test_each_kind_of_bound(self):
        self.assertEqual(margins.margin(0.1, "≤ 1"), 10)
        self.assertEqual(margins.margin(0.25, "< 0.01"), 0.04)  # outside: the claim fails
        self.assertAlmostEqual(margins.margin(234, "> 4"), 58.5)
        self.assertAlmostEqual(margins.margin(0.8739, "within 0.058 of 0.875"), 0.058 / 0.0011, places=6)
        self.assertEqual(margins.margin(1.0, "between -4 and 4"), 4)
        self.assertTrue(math.isinf(margins.margin(0.0, "≤ 9.059e-14")))

    def test_equalities_and_signs_have_no_margin(self):
        for value, bound in [(0.0, "= 0"), (3.0, "= 3"), (0.0005, "≥ 0"), (2.0, "> 0"), (-1.0, "≤ -1")]:
            self.assertIsNone(margins.margin(value, bound), bound)
        self.assertEqual(margins.text(None), "")
        self.assertEqual(margins.text(58.5), "margin: 58.5× inside its bound")

    def test_a_text_book_check_does_not_write_is_refused(self):
        with self.assertRaisesRegex(ValueError, "not a bound book::check writes"):
            margins.parse("about 3")

    def test_large_margins_are_listed_by_claim(self):
        claims = [{"name": "tight", "measured": [{"name": "gap", "value": 3.0, "bound": "> 2"}]},
                  {"name": "loose", "measured": [{"name": "lead", "value": 400.0, "bound": "> 4"},
                                                 {"name": "count", "value": 0, "bound": "= 0"}]}]
        self.assertEqual(margins.large(claims), [("loose", "lead", 400.0, "> 4", 100.0, None)])

    def test_a_two_sided_bound_over_seeds_has_the_margin_of_their_spread(self):
        # 0.2, -0.9 and 0.05 standard errors of a 4-SE interval: root mean square 0.533
        claim = {"name": "c", "measured": [
            {"name": "ratio (seed 1)", "value": 0.2, "bound": "between -4 and 4"},
            {"name": "ratio (seed 2)", "value": -0.9, "bound": "between -4 and 4"},
            {"name": "ratio (seed 3)", "value": 0.05, "bound": "between -4 and 4"},
            {"name": "lead (seed 1)", "value": 400.0, "bound": "> 4"},
            {"name": "alone", "value": 0.05, "bound": "between -4 and 4"}]}
        spread = 4 / math.sqrt((0.2 ** 2 + 0.9 ** 2 + 0.05 ** 2) / 3)
        found = margins.of_claim(claim)
        for g in found[:3]:
            self.assertAlmostEqual(g, spread)
        self.assertEqual(found[3:], [100.0, 80.0])  # one-sided, and a single draw: as margin()
        self.assertEqual([r[1] for r in margins.large([claim])], ["lead (seed 1)", "alone"])

    def test_a_large_margin_its_chapter_gives_a_reason_for_is_listed_apart(self):
        why = "a worst-case rounding bound"
        claims = [{"name": "rounding", "measured": [{"name": "error", "value": 0.0, "bound": "≤ 1e-15",
                                                     "large_margin_because": why},
                                                    {"name": "lead", "value": 400.0, "bound": "> 4"}]}]
        self.assertEqual(margins.large(claims), [("rounding", "lead", 400.0, "> 4", 100.0, None)])
        self.assertEqual(margins.large(claims, reasoned=True),
                         [("rounding", "error", 0.0, "≤ 1e-15", math.inf, why)])


class ClaimsPageList(unittest.TestCase):
    """The Claims page's lists: one bullet a claim, its numbers with their margins, the reason once."""

    def test_numbers_of_one_claim_share_a_bullet_and_its_reason_is_given_once(self):
        from types import SimpleNamespace
        from litgrad_book import sphinx_extension
        why = "a worst-case rounding bound"
        source = SimpleNamespace(name="03_line", title="Chapter 3 · A line",
                                 claims=[SimpleNamespace(name="rounded", index=0),
                                         SimpleNamespace(name="trained", index=1)])
        claims = [{"name": "rounded", "measured": [
                       {"name": "error (seed 1)", "value": 0.0, "bound": "≤ 1e-15", "large_margin_because": why},
                       {"name": "error (seed 2)", "value": 1e-17, "bound": "≤ 1e-15", "large_margin_because": why}]},
                  {"name": "trained", "measured": [{"name": "lead", "value": 400.0, "bound": "> 4"}]}]
        lines = sphinx_extension.large_margin_lines([(source, claims)])
        bullets = [line for line in lines if line.startswith("* ")]
        self.assertEqual(len(bullets), 2)
        self.assertIn("lead = 400 (\\> 4), 100×", bullets[0])
        self.assertNotIn("Why", bullets[0])
        self.assertIn("error (seed 1) = 0 (≤ 1e-15), exactly at the best value; error (seed 2)", bullets[1])
        self.assertEqual(bullets[1].count("Why: "), 1)
        self.assertTrue(bullets[1].endswith("Why: " + why))
        self.assertIn("1 numbers, in 1 claims:", " ".join(lines))
        self.assertIn("And 2 numbers, in 1 claims", " ".join(lines))


if __name__ == "__main__":
    unittest.main(verbosity=2)
