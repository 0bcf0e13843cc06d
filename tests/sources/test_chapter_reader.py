#!/usr/bin/python3
"""The errors an author meets when a chapter is laid out wrong: each names the file and the line,
and says what to do. Runs docs/_ext/litgrad_source.py on small chapters written here."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "_ext"))
import litgrad_source  # noqa: E402

HEAD = "// Chapter 9 · Trying\n// ==================\n//\n// Intro.\n\n// %% about: A try.\n"


def read(body):
    return litgrad_source.parse(HEAD + body, "chapters/09_try.cpp")


class ChapterReader(unittest.TestCase):
    def error(self, body):
        with self.assertRaises(litgrad_source.SourceError) as caught:
            read(body)
        return caught.exception

    def test_a_well_formed_chapter_is_read_into_sections_claims_folds_and_figures(self):
        s = read('// %% fold: includes\n#include <x>\n\n// %% 1 · One\n//\n// A claim.\n//\n'
                 '// .. figure:: strip\n\nTEST_CASE("one "\n          "two") {}\n')
        self.assertEqual(s.sections, ["1 · One"])
        self.assertEqual([c.name for c in s.claims], ["one two"])
        self.assertEqual(s.claims[0].line, 16)
        self.assertEqual(s.figures, [("strip", 14)])
        self.assertEqual([b.kind for b in s.blocks], ["header", "fold", "prose", "code"])
        self.assertEqual(s.declared("about"), "A try.")

    def test_a_claim_with_no_prose_of_its_own(self):
        e = self.error('// %% fold: helpers\nint x;\n\nTEST_CASE("orphan") {}\n')
        self.assertIn("inside the fold", e.message)
        e = self.error('// %% 1 · One\n//\n// Prose.\n\nint helper();\n// %%\n\nTEST_CASE("orphan") {}\n')
        self.assertEqual((e.line, "has no prose of its own" in e.message), (14, True))

    def test_two_claims_under_one_prose_block(self):
        e = self.error('// %%\n// Prose.\n\nTEST_CASE("first") {}\nTEST_CASE("second") {}\n')
        self.assertEqual(e.line, 11)
        self.assertIn('"second" shares its prose with "first" (line 10)', e.message)

    def test_an_unknown_marker(self):
        e = self.error("// %% flod: helpers\nint x;\n")
        self.assertEqual(e.line, 7)
        self.assertIn("unknown marker '// %% flod:'", e.message)

    def test_a_fold_without_summary_or_code(self):
        self.assertIn("needs a summary", self.error("// %% fold:\nint x;\n").message)
        self.assertIn("holds no code", self.error("// %% fold: nothing\n\n// %%\n// Prose.\n").message)

    def test_a_line_too_long(self):
        e = self.error("int x;  // " + "x" * 80 + "\n")
        self.assertEqual(e.line, 7)
        self.assertIn("line of 91 characters; at most 88", e.message)

    def test_a_title_without_its_underline(self):
        with self.assertRaises(litgrad_source.SourceError) as caught:
            litgrad_source.parse("// Chapter 9 · Trying\n//\n// Intro.\n", "chapters/09_try.cpp")
        self.assertEqual(caught.exception.line, 2)

    def test_budgets(self):
        self.assertEqual(litgrad_source.budget_seconds(read("int x;\n")), (10.0, ""))
        s = read("// %% budget: 30 s, it trains the book's largest model\nint x;\n")
        self.assertEqual(litgrad_source.budget_seconds(s), (30.0, "it trains the book's largest model"))
        self.assertIn("needs its reason", self.error("// %% budget: 20 s\nint x;\n").message)
        self.assertIn("no chapter may take more than 30 s", self.error("// %% budget: 60 s, long\n").message)

    def test_assumed_chapters_must_exist(self):
        s = read("// %% assumes: 7, what a gradient is\nint x;\n")
        self.assertEqual(litgrad_source.assumed(s, {7, 8}), [7, "what a gradient is"])
        with self.assertRaises(litgrad_source.SourceError) as caught:
            litgrad_source.assumed(s, {8})
        self.assertIn("assumes chapter 7, which the book does not have", caught.exception.message)


if __name__ == "__main__":
    unittest.main(verbosity=2)
