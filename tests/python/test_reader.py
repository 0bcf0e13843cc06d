"""The chapter reader reads a chapter into its parts, and a chapter laid out wrong gets an error naming its file and line.

The errors an author meets, each tried on a small chapter written here: each names the file and
the line, and says what to do (litgrad_book.reader).
"""
import os
import tempfile
import unittest

from litgrad_book import reader

HEAD = "// Chapter 9 · Trying\n// ==================\n//\n// Intro.\n\n// %% about: A try.\n"


def read(body):
    return reader.parse(HEAD + body, "chapters/09_try.cpp")


class ChapterReader(unittest.TestCase):
    def error(self, body):
        with self.assertRaises(reader.SourceError) as caught:
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
        with self.assertRaises(reader.SourceError) as caught:
            reader.parse("// Chapter 9 · Trying\n//\n// Intro.\n", "chapters/09_try.cpp")
        self.assertEqual(caught.exception.line, 2)

    def test_budgets(self):
        self.assertEqual(reader.budget_seconds(read("int x;\n")), (10.0, ""))
        s = read("// %% budget: 30 s, it trains the book's largest model\nint x;\n")
        self.assertEqual(reader.budget_seconds(s), (30.0, "it trains the book's largest model"))
        self.assertIn("needs its reason", self.error("// %% budget: 20 s\nint x;\n").message)
        self.assertIn("no chapter may take more than 250 s", self.error("// %% budget: 270 s, long\n").message)

    def test_assumed_chapters_must_exist(self):
        s = read("// %% assumes: 7, what a gradient is\nint x;\n")
        self.assertEqual(reader.assumed(s, {7, 8}), [7, "what a gradient is"])
        with self.assertRaises(reader.SourceError) as caught:
            reader.assumed(s, {8})
        self.assertIn("assumes chapter 7, which the book does not have", caught.exception.message)


    def test_a_test_case_named_by_anything_but_string_literals(self):
        e = self.error('// %%\n// Prose.\n\nTEST_CASE(name) {}\n')
        self.assertIn("named by string literals only", e.message)

    def test_a_claim_named_twice(self):
        e = self.error('// %%\n// One.\n\nTEST_CASE("same") {}\n// %%\n// Two.\n\nTEST_CASE("same") {}\n')
        self.assertIn('"same" is named twice', e.message)

    def test_a_claim_name_ctest_would_split_or_merge(self):
        e = self.error('// %%\n// One.\n\nTEST_CASE("a; b") {}\n')
        self.assertIn('contains ";"', e.message)
        e = self.error('// %%\n// One.\n\nTEST_CASE("the slice [0, 1") {}\n')
        self.assertIn('unmatched "["', e.message)
        e = self.error('// %%\n// One.\n\nTEST_CASE("a ] then [") {}\n')
        self.assertIn('unmatched "["', e.message)
        read('// %%\n// One.\n\nTEST_CASE("[3,1] + [1,4], and [:, 1:4:2]") {}\n')

    def test_a_declaration_continues_over_the_lines_after_it_and_may_not_repeat(self):
        s = read("// %% assumes: 1,\n// what a slope is\n\nint x;\n")
        self.assertEqual(s.declared("assumes"), "1, what a slope is")
        self.assertIn("declared twice", self.error("// %% about: Again.\nint x;\n").message)

    def test_an_exercise_file_has_a_hint_and_tests_without_prose_of_their_own(self):
        s = reader.parse("// Exercise 9.1 · Try\n// ===================\n//\n// Do it.\n\n"
                         "// %% hint\n// Think.\n\nint f();\nTEST_CASE(\"f is one\") {}\n",
                         "chapters/exercises/09_try/1_try.cpp", "exercise")
        self.assertEqual([b.kind for b in s.blocks], ["header", "hint", "code"])
        self.assertEqual([c.name for c in s.claims], ["f is one"])
        with self.assertRaises(reader.SourceError) as caught:
            reader.parse("// Chapter 9 · Trying\n// ==================\n\n// %% hint\n// No.\n", "c.cpp")
        self.assertIn("unknown marker '// %% hint:'", caught.exception.message)

    def test_math_and_figure_ids(self):
        self.assertTrue(read("// %%\n// Where :math:`x = 1`.\n\nint x;\n").has_math)
        self.assertFalse(read("int x;\n").has_math)
        self.assertEqual(reader.figure_id("08_attention", "Map_2"), "figure-08-attention-map-2")

    def test_chapter_files_are_the_numbered_chapters_in_order(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "chapters"))
            for name in ("10_b.cpp", "02_a.cpp", "notes.cpp", "3_short.cpp", "01_x.hpp"):
                open(os.path.join(root, "chapters", name), "w").close()
            self.assertEqual([os.path.basename(p) for p in reader.chapter_files(root)], ["02_a.cpp", "10_b.cpp"])
        self.assertEqual(reader.chapter_number("08_attention"), 8)
        self.assertIsNone(reader.chapter_number("attention"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
