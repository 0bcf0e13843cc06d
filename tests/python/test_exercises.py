"""The exercise tool's pure parts: naming exercises, hints as plain text, doctest's report read, and what an exercise folder must hold.

litgrad_book.exercises, on names, reports and folders made here (the report is doctest's own
wording, copied from a run of a starter).
"""
import os
import tempfile
import unittest

from litgrad_book import ROOT, exercises

REPORT = """\
===============================================================================
/src/chapters/exercises/04_nonlinearity/2_kinks.cpp:59:
TEST CASE:  the handmade network bends at -1, 0.25 and 0.5 inside (-2, 1), and nowhere else

/src/chapters/exercises/04_nonlinearity/2_kinks.cpp:62: ERROR: CHECK( kinks == expected ) is NOT correct!
  values: CHECK( {?} == {?} )

===============================================================================
/src/chapters/exercises/04_nonlinearity/2_kinks.cpp:65:
TEST CASE:  for a random network, the slope is constant between your points

/src/chapters/exercises/04_nonlinearity/2_kinks.cpp:71: FATAL ERROR: REQUIRE( !k.empty() ) is NOT correct!
  values: REQUIRE( false )

===============================================================================
[doctest] test cases: 2 | 0 passed | 2 failed | 0 skipped
[doctest] assertions: 2 | 0 passed | 2 failed |
[doctest] Status: FAILURE!
"""


class Naming(unittest.TestCase):
    def setUp(self):
        self.all = exercises.all_exercises(ROOT)

    def test_every_exercise_of_the_book_is_found_with_its_files(self):
        self.assertGreaterEqual(len(self.all), 2)
        for e in self.all:
            self.assertTrue(os.path.exists(e.starter) and os.path.exists(e.solution), e.label)
            self.assertRegex(e.label, r"^\d\d\.\d$")
            self.assertTrue(e.title)

    def test_a_chapter_or_an_exercise_is_named_with_or_without_its_leading_zero(self):
        first = self.all[0]
        chapter = [e for e in self.all if e.number == first.number]
        self.assertEqual(exercises.select(self.all, str(first.number)), chapter)
        self.assertEqual(exercises.select(self.all, f"{first.number:02d}"), chapter)
        self.assertEqual(exercises.select(self.all, f"{first.number}.{first.index}"), [first])
        self.assertEqual(exercises.select(self.all, None), self.all)

    def test_a_name_that_is_no_exercise_says_which_chapters_have_some(self):
        with self.assertRaisesRegex(ValueError, "is not a chapter"):
            exercises.select(self.all, "attention")
        with self.assertRaisesRegex(ValueError, r"no exercise 99\.1; chapters with exercises: "):
            exercises.select(self.all, "99.1")


class Text(unittest.TestCase):
    def test_a_hint_loses_its_roles_and_literals_and_is_rewrapped(self):
        self.assertEqual(exercises.plain("Use ``masked_fill`` and\n:cpp:func:`litgrad::softmax`.\n\nThen   rest."),
                         "Use masked_fill and litgrad::softmax.\n\nThen rest.")

    def test_the_first_failure_is_the_test_its_check_and_its_values(self):
        case, detail = exercises.first_failure(REPORT)
        self.assertEqual(case, "the handmade network bends at -1, 0.25 and 0.5 inside (-2, 1), and nowhere else")
        self.assertEqual(detail, ["CHECK( kinks == expected ) is NOT correct!", "values: CHECK( {?} == {?} )"])

    def test_a_report_without_failures_gives_its_last_line(self):
        self.assertEqual(exercises.first_failure("a\nb\n"), ("", ["b"]))


class Folders(unittest.TestCase):
    def make(self, root, files):
        folder = os.path.join(root, "chapters", "exercises", "09_try")
        os.makedirs(folder, exist_ok=True)
        for name, text in files.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
        return [os.path.join(root, "chapters", "09_try.cpp")]

    def spec(self, number, hint=True, test=True, title=None):
        title = title or f"Exercise 9.{number} · Try"
        return (f"// {title}\n// {'=' * len(title)}\n//\n// Do it.\n\n" + ("// %% hint\n// Think.\n\n" if hint else "")
                + "int f();\n" + ('TEST_CASE("f") {}\n' if test else ""))

    def test_a_complete_folder_has_no_problem(self):
        with tempfile.TemporaryDirectory() as root:
            files = {f"{k}_try.{part}cpp": self.spec(k) if not part else "int f() { return 1; }\n"
                     for k in (1, 2) for part in ("", "starter.", "solution.")}
            self.assertEqual(exercises.folder_problems(root, self.make(root, files)), [])

    def test_each_missing_part_is_named(self):
        with tempfile.TemporaryDirectory() as root:
            files = {"1_try.cpp": self.spec(1, hint=False), "1_try.solution.cpp": "",
                     "2_try.cpp": self.spec(2, test=False, title="Exercise 9.3 · Try"),
                     "2_try.starter.cpp": "", "2_try.solution.cpp": "", "3_lost.starter.cpp": ""}
            found = exercises.folder_problems(root, self.make(root, files))
            self.assertEqual(found, [
                "chapters/exercises/09_try/3_lost.starter.cpp: no exercise 3_lost.cpp",
                "chapters/exercises/09_try/1_try.cpp: no starter file 1_try.starter.cpp",
                "chapters/exercises/09_try/1_try.cpp: no '// %% hint' block",
                "chapters/exercises/09_try/2_try.cpp:1: the title should start 'Exercise 9.2 · ', as its file is "
                "numbered",
                "chapters/exercises/09_try/2_try.cpp: no TEST_CASE: an exercise is checked by its tests"])

    def test_a_chapter_with_one_exercise_or_five(self):
        with tempfile.TemporaryDirectory() as root:
            chapters = self.make(root, {"1_try.cpp": self.spec(1), "1_try.starter.cpp": "",
                                        "1_try.solution.cpp": ""})
            self.assertIn("chapters/exercises/09_try: 1 exercises; a chapter ends with 2 to 4",
                          exercises.folder_problems(root, chapters))


if __name__ == "__main__":
    unittest.main(verbosity=2)
