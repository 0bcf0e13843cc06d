"""tools/new writes a chapter and exercises that pass the book's checks of sources, and overwrites nothing.

litgrad_book.scaffold into a temporary folder laid out as the repository is; what CTest and the
mutation ledger make of the files is measured on a scratch branch (docs/adding.rst).
"""
import os
import tempfile
import unittest

from litgrad_book import exercises, mistakes, mutations, reader, scaffold


class Scaffold(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        for folder in ("chapters", os.path.join("tests", "mutations")):
            os.makedirs(os.path.join(self.root, folder))

    def tearDown(self):
        self.dir.cleanup()

    def test_a_new_chapter_passes_the_source_checks(self):
        written = scaffold.new_chapter("13_scratch", "A scratch chapter", self.root)
        self.assertIn("chapters/13_scratch.cpp", written)
        source = reader.read(os.path.join(self.root, "chapters", "13_scratch.cpp"))
        self.assertEqual([c.name for c in source.claims], ["adding up n ones counts them exactly"])
        self.assertTrue(source.declared("about"))
        chapters = reader.chapter_files(self.root)
        self.assertEqual(exercises.folder_problems(self.root, chapters), [])
        self.assertEqual(mistakes.problems(self.root), [])
        for path in exercises.exercise_files(self.root, "13_scratch"):
            reader.read(path, "exercise")  # laid out as the book reads an exercise
        catalogue = mutations.catalogues(self.root)["13_scratch"]
        self.assertEqual(len(catalogue), 1)
        self.assertIsNone(mutations.text_problem(catalogue[0], self.root))  # its text is there, once

    def test_a_new_exercise_is_numbered_after_the_last_and_brings_three_mistakes(self):
        scaffold.new_chapter("13_scratch", "A scratch chapter", self.root)
        written = scaffold.new_exercise("13_scratch", "One more", self.root)
        self.assertIn("chapters/exercises/13_scratch/3_one_more.cpp", written)
        self.assertEqual(len([m for m in mistakes.load(os.path.join(self.root, "chapters", "exercises",
                                                                    "13_scratch", "mistakes.toml"))
                              if m["exercise"] == 3]), 3)
        self.assertEqual(mistakes.problems(self.root), [])

    def test_nothing_is_overwritten_and_a_wrong_name_is_refused(self):
        scaffold.new_chapter("13_scratch", "A scratch chapter", self.root)
        with self.assertRaisesRegex(scaffold.ScaffoldError, "already has a chapter 13"):
            scaffold.new_chapter("13_other", "Another", self.root)
        with self.assertRaisesRegex(scaffold.ScaffoldError, "named NN_topic"):
            scaffold.new_chapter("thirteen", "Another", self.root)


if __name__ == "__main__":
    unittest.main(verbosity=2)
