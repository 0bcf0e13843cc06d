"""The catalogues of learners' mistakes are read strictly, each mistake is made exactly where it says, and the judge passes only a wrong answer rejected on a check.

litgrad_book.mistakes on catalogues, solutions and doctest reports made here, and the tool's
choice of the mistake a learner's failures point to.
"""
import os
import tempfile
import tomllib
import unittest
from unittest import mock

from litgrad_book import exercise_tool, exercises, mistakes

SPEC = ("// Exercise 9.1 · Try\n// ===================\n//\n// Do it.\n\n// %% hint\n// Think.\n\n"
        "int f();\nTEST_CASE(\"f is one\") {}\n")
SOLUTION = "int f() { return 1; }\n"
CATALOGUE = '''
[[mistake]]
exercise = 1
name = "an off-by-one answer"
find = \'\'\'return 1;\'\'\'
replace = \'\'\'return 2;\'\'\'
hint = "Count again from zero."
'''


def failure(test, *lines, threw=False):
    return exercises.Failure(test, list(lines), threw)


def report(*failures, summary=(3, 1, 2)):
    text = ""
    for f in failures:
        text += f"=====\n/x.cpp:1:\nTEST CASE:  {f.test}\n\n/x.cpp:2: ERROR: " + "\n  ".join(f.lines) + "\n\n"
    if summary:
        text += f"=====\n[doctest] test cases: {summary[0]} | {summary[1]} passed | {summary[2]} failed |\n"
    return text


class Catalogue(unittest.TestCase):
    def parse(self, text):
        return mistakes.parse(tomllib.loads(text), "mistakes.toml")

    def test_a_catalogue_is_read_with_each_mistakes_place(self):
        m = self.parse(CATALOGUE + CATALOGUE.replace("off-by-one", "other"))
        self.assertEqual([(x["name"], x["ordinal"]) for x in m], [("an off-by-one answer", 0), ("an other answer", 1)])

    def test_every_field_is_required_and_no_other_is_allowed(self):
        for field in ("exercise", "name", "find", "replace", "hint"):
            lines = [l for l in CATALOGUE.splitlines() if not l.startswith(field + " =")]
            with self.assertRaisesRegex(mistakes.CatalogueError, f"'{field}' must be"):
                self.parse("\n".join(lines))
        with self.assertRaisesRegex(mistakes.CatalogueError, "unknown field"):
            self.parse(CATALOGUE + 'bug = "x"\n')
        with self.assertRaisesRegex(mistakes.CatalogueError, "'exercise' must be a number"):
            self.parse(CATALOGUE.replace("exercise = 1", 'exercise = "1"'))

    def test_a_mistake_that_changes_nothing_or_is_named_twice_is_refused(self):
        with self.assertRaisesRegex(mistakes.CatalogueError, "the same as 'find'"):
            self.parse(CATALOGUE.replace("return 2;", "return 1;"))
        with self.assertRaisesRegex(mistakes.CatalogueError, "two mistakes of that name"):
            self.parse(CATALOGUE + CATALOGUE.replace("an off-by-one", "An  off-by-one"))

    def test_a_mistake_is_made_where_its_text_is_exactly_once(self):
        m = self.parse(CATALOGUE)[0]
        self.assertEqual(mistakes.apply(m, SOLUTION), "int f() { return 2; }\n")
        with self.assertRaisesRegex(mistakes.CatalogueError, "not at all"):
            mistakes.apply(m, "int f() { return 3; }\n")
        with self.assertRaisesRegex(mistakes.CatalogueError, "2 times"):
            mistakes.apply(m, SOLUTION + SOLUTION)


class Names(unittest.TestCase):
    def test_a_message_names_a_mistake_whatever_its_case_spacing_and_article(self):
        self.assertTrue(mistakes.names("row 0 is NaN: this points to\nan Off-by-one  mask", "an off-by-one mask"))
        self.assertTrue(mistakes.names("the off-by-one mask", "an off-by-one mask"))
        self.assertFalse(mistakes.names("a mask of ones", "an off-by-one mask"))

    def test_hyphens_dashes_and_typographic_quotes_do_not_hide_a_name(self):
        self.assertTrue(mistakes.names("this points to an off by one mask", "an off-by-one mask"))
        self.assertTrue(mistakes.names("pairs counted twice in \u2018aaa\u2019", "pairs counted twice in 'aaa'"))
        self.assertTrue(mistakes.names("the step\u2014taken uphill", "the step-taken uphill"))
        self.assertFalse(mistakes.names("an off by two mask", "an off-by-one mask"))
        self.assertFalse(mistakes.names("the mask is off", "an off-by-one mask"))


class Judge(unittest.TestCase):
    m = {"name": "an off-by-one mask"}

    def test_a_mistake_rejected_on_a_check_is_caught_and_named_by_its_first_message(self):
        v = mistakes.judge_output(self.m, report(failure("t1", "CHECK( a ) is NOT correct!",
                                                         "logged: this points to an off-by-one mask"),
                                                 failure("t2", "CHECK( b ) is NOT correct!")), 1)
        self.assertEqual((v["caught"], v["named"], v["failing"]), (True, True, ["t1", "t2"]))

    def test_a_first_message_that_names_another_mistake_does_not_count(self):
        v = mistakes.judge_output(self.m, report(failure("t1", "CHECK( a ) is NOT correct!",
                                                         "logged: a boolean mask"),
                                                 failure("t2", "logged: an off-by-one mask")), 1)
        self.assertEqual((v["caught"], v["named"]), (True, False))

    def test_a_mistake_the_tests_pass_is_not_caught(self):
        v = mistakes.judge_output(self.m, report(summary=(3, 3, 0)), 0)
        self.assertEqual((v["caught"], v["why"]), (False, "every test passed: the mistake is not caught"))

    def test_a_crash_or_only_exceptions_are_no_check(self):
        crashed = mistakes.judge_output(self.m, report(failure("t1", "CHECK( a ) is NOT correct!"), summary=None), -11)
        self.assertFalse(crashed["caught"])
        self.assertIn("a crash is no check", crashed["why"])
        threw = mistakes.judge_output(self.m, report(failure("t1", "test case THREW exception: boom")), 1)
        self.assertEqual((threw["caught"], threw["why"]), (False, "the tests failed only by exceptions, not on a check"))


class Tree(unittest.TestCase):
    def make(self, root, catalogue, spec_title="Exercise 9.1 · Try"):
        folder = os.path.join(root, "chapters", "exercises", "09_try")
        os.makedirs(folder)
        files = {"1_try.cpp": SPEC.replace("Exercise 9.1 · Try", spec_title), "1_try.solution.cpp": SOLUTION,
                 "1_try.starter.cpp": SOLUTION, "mistakes.toml": catalogue}
        for name, text in files.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)

    def test_three_good_mistakes_make_no_problem_and_cmake_gets_one_call_each(self):
        catalogue = "".join(CATALOGUE.replace("off-by-one", n).replace("return 2;", f"return {k};")
                            for k, n in enumerate(["first", "second", "third"], 2))
        with tempfile.TemporaryDirectory() as root:
            self.make(root, catalogue)
            self.assertEqual(mistakes.problems(root), [])
            self.assertEqual(mistakes.cmake_lines(root),
                             [f'litgrad_exercise_mistake(09_try 1_try {k} {k + 1} "an {n} answer")'
                              for k, n in enumerate(["first", "second", "third"])])
            self.assertEqual(mistakes.uncatalogued(root), [])

    def test_the_tree_check_names_each_problem(self):
        bad = (CATALOGUE
               + CATALOGUE.replace("off-by-one", "stale").replace("return 1;", "return 7;")
               + CATALOGUE.replace("off-by-one", "quoting").replace("Count again from zero.",
                                                                    "Write int f() { return 1; } instead.")
               .replace("return 1;", "int f() { return 1; }")
               + CATALOGUE.replace("off-by-one", "lost").replace("exercise = 1", "exercise = 4"))
        with tempfile.TemporaryDirectory() as root:
            self.make(root, bad)
            found = mistakes.problems(root)
            where = "chapters/exercises/09_try/mistakes.toml"
            self.assertEqual(found, [
                f"{where}: mistake 'an stale answer': its find text is in "
                "chapters/exercises/09_try/1_try.solution.cpp nowhere; it must be there once",
                f"{where}: mistake 'an quoting answer': its hint quotes the solution's text; a hint points at "
                "the idea",
                f"{where}: mistake 'an lost answer': the chapter has no exercise 4"])

    def test_a_catalogue_that_does_not_read_is_a_problem_and_a_cmake_warning(self):
        with tempfile.TemporaryDirectory() as root:
            self.make(root, "[[mistake]\n")
            self.assertEqual(len(mistakes.problems(root)), 1)
            self.assertTrue(mistakes.cmake_lines(root)[0].startswith("message(WARNING"))

    def test_an_exercise_with_one_or_two_mistakes_needs_more(self):
        with tempfile.TemporaryDirectory() as root:
            self.make(root, CATALOGUE)
            self.assertEqual(mistakes.problems(root), ["chapters/exercises/09_try/mistakes.toml: exercise 1 has 1 "
                                                       "catalogued mistake; at least 3"])


class PointedTo(unittest.TestCase):
    def test_the_mistake_most_failing_tests_name_comes_first(self):
        catalogue = [{"name": "an off-by-one mask", "hint": ""}, {"name": "a boolean mask added as numbers",
                                                                   "hint": ""}]
        failures = [failure("t1", "logged: points to a boolean mask added as numbers"),
                    failure("t2", "logged: points to an off-by-one mask"),
                    failure("t3", "logged: again an off-by-one mask")]
        with mock.patch.object(mistakes, "for_exercise", lambda e: catalogue):
            self.assertEqual([m["name"] for m in exercise_tool.pointed_to(None, failures)],
                             ["an off-by-one mask", "a boolean mask added as numbers"])
            self.assertEqual(exercise_tool.pointed_to(None, [failure("t", "values: CHECK( 1 == 2 )")]), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
