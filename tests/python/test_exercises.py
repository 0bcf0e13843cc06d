"""The exercise tool's pure parts: naming exercises, hints as plain text, doctest's report read, each failing test shown, stamps by content, and what an exercise folder must hold.

litgrad_book.exercises and litgrad_book.exercise_tool, on names, reports and folders made here
(the reports are doctest's own wording, copied from runs of exercise programs).
"""
import json
import os
import tempfile
import unittest
from unittest import mock

from litgrad_book import ROOT, exercise_tool, exercises

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


THREW = """\
===============================================================================
/src/x.cpp:10:
TEST CASE:  the sum is right

/src/x.cpp:12: ERROR: CHECK( total(x) == 3 ) THREW exception: "sum: empty"
  logged: three numbers

===============================================================================
/src/x.cpp:20:
TEST CASE:  a mask for every length

/src/x.cpp:22: ERROR: CHECK( wrong.empty() ) is NOT correct!
  values: CHECK( false )
  logged: this points to an off-by-one mask
          length 1
          entry (0, 0) is -inf where 0 belongs

/src/x.cpp:22: ERROR: CHECK( wrong.empty() ) is NOT correct!
  values: CHECK( false )
  logged: length 2

===============================================================================
/src/x.cpp:30:
TEST CASE:  the test that throws

/src/x.cpp:30: ERROR: test case THREW exception: matmul: [2,3] @ [2,3]: inner sizes 3 and 2 differ

===============================================================================
/src/x.cpp:40:
TEST CASE:  it does not throw

/src/x.cpp:42: ERROR: CHECK_NOTHROW( one = collapse(layers) ) THREW exception: "matmul: [5,3] @ [4,5]"
  logged: a product of shapes that do not fit: the weights multiplied in the wrong order

===============================================================================
[doctest] test cases: 5 | 1 passed | 4 failed | 0 skipped
[doctest] assertions: 5 | 1 passed | 4 failed |
[doctest] Status: FAILURE!
"""


class Text(unittest.TestCase):
    def test_a_hint_loses_its_roles_and_literals_and_is_rewrapped(self):
        self.assertEqual(exercises.plain("Use ``masked_fill`` and\n:cpp:func:`litgrad::softmax`.\n\nThen   rest."),
                         "Use masked_fill and litgrad::softmax.\n\nThen rest.")

    def test_math_becomes_text_a_terminal_shows(self):
        cases = {r"\partial L / \partial a_{il} = \sum_j g_{ij} b_{lj}": "∂ L / ∂ aᵢₗ = Σⱼ gᵢⱼ bₗⱼ",
                 r"B^T": "Bᵀ", r"-\infty": "-∞", r"\hat m = m / (1 - \beta_1^t)": "m̂ = m / (1 - β₁ᵗ)",
                 r"(\text{softmax}(z) - \text{one\_hot}(y)) / N": "(softmax(z) - one_hot(y)) / N",
                 r"\lceil \log_2 n \rceil u": "⌈ log₂ n ⌉ u", r"3\sqrt{2\sigma^4/n}": "3√(2σ⁴/n)",
                 r"(\sqrt\kappa - 1)/(\sqrt\kappa + 1)": "(√κ - 1)/(√κ + 1)", r"\tfrac78 s^2": "7/8 s²",
                 r"x_{t+1}": "xₜ₊₁", r"e^{x_j}": "e^xⱼ", r"e^{-z}": "e^(-z)"}
        for tex, text in cases.items():
            self.assertEqual(exercises.tex_text(tex), text, tex)
        self.assertEqual(exercises.plain("where :math:`j \\le i`, masked"), "where j ≤ i, masked")

    def test_no_hint_of_the_book_prints_a_backslash_or_a_tex_group(self):
        for e in exercises.all_exercises(ROOT):
            text = exercises.plain(e.hint())
            for raw in ("\\", "^{", "_{", ":math:"):
                self.assertNotIn(raw, text, f"{e.label}'s hint as printed: {text}")


class Reports(unittest.TestCase):
    def test_a_failure_is_its_test_its_first_check_and_the_values(self):
        first = exercises.report(REPORT).failures[0]
        self.assertEqual(first.test, "the handmade network bends at -1, 0.25 and 0.5 inside (-2, 1), and nowhere else")
        self.assertEqual(first.lines, ["CHECK( kinks == expected ) is NOT correct!", "values: CHECK( {?} == {?} )"])

    def test_a_report_without_failures_has_none(self):
        self.assertEqual(exercises.report("a\nb\n").failures, [])

    def test_every_failing_test_is_read_with_its_first_failure_and_whether_it_only_threw(self):
        r = exercises.report(THREW)
        self.assertEqual(r.summary, (5, 1, 4))
        self.assertEqual([(f.test, f.threw) for f in r.failures],
                         [("the sum is right", True), ("a mask for every length", False),
                          ("the test that throws", True), ("it does not throw", False)])
        self.assertEqual(r.failures[1].lines[-1], "entry (0, 0) is -inf where 0 belongs")
        self.assertIn("off-by-one mask", r.failures[1].text)

    def test_a_run_that_crashed_has_no_summary(self):
        self.assertIsNone(exercises.report(THREW.split("[doctest]")[0]).summary)

    def test_a_failing_test_is_shown_as_values_and_messages_without_doctests_boilerplate(self):
        first, mask, threw, nothrow = exercises.report(THREW).failures
        self.assertEqual(exercise_tool.failure_lines(mask), ["this points to an off-by-one mask", "length 1",
                                                             "entry (0, 0) is -inf where 0 belongs"])
        self.assertEqual(exercise_tool.failure_lines(first),
                         ['CHECK( total(x) == 3 ) THREW exception: "sum: empty"', "three numbers"])
        kinks = exercises.report(REPORT).failures[0]
        self.assertEqual(exercise_tool.failure_lines(kinks), ["kinks == expected:  {?} == {?}"])
        agreement = exercises.Failure("t", ["CHECK( exercise::agrees(a, b) ) is NOT correct!",
                                            "values: CHECK( element [1] is 2 where 1 was expected )",
                                            "logged:", "row 1"])
        self.assertEqual(exercise_tool.failure_lines(agreement), ["element [1] is 2 where 1 was expected", "row 1"])


class Stamps(unittest.TestCase):
    def test_an_exercise_passes_as_it_is_only_while_the_file_that_passed_is_unchanged(self):
        e = exercises.all_exercises(ROOT)[0]
        with tempfile.TemporaryDirectory() as folder:
            mine = os.path.join(folder, "mine.cpp")
            stamp = os.path.join(folder, "stamp")
            with open(mine, "w") as f:
                f.write("int answer() { return 42; }\n")
            with mock.patch.object(exercise_tool, "mine", lambda _: mine), \
                    mock.patch.object(exercise_tool, "passed_stamp", lambda _: stamp):
                self.assertFalse(exercise_tool.passes_as_it_is(e))  # no stamp
                with open(stamp, "w") as f:
                    json.dump({"content": exercise_tool.content(mine, e.spec)}, f)
                self.assertTrue(exercise_tool.passes_as_it_is(e))
                os.utime(mine, (0, 0))  # an older time changes nothing
                self.assertTrue(exercise_tool.passes_as_it_is(e))
                with open(mine, "w") as f:
                    f.write("int answer() { return 41; }\n")
                self.assertFalse(exercise_tool.passes_as_it_is(e))


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
