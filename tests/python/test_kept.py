"""One build adopts the models another build of a chapter kept, all but each model's first seed (every seed
of chapter 12's), under its own program's key.

litgrad_book.kept on two made-up builds of one chapter: programs of different bytes, and the
files book::train_once would have kept beside the first.
"""
import io
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from litgrad_book import kept, runner


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Adopt(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = self.tmp.name
        self.fast, self.plain = os.path.join(root, "fast"), os.path.join(root, "plain")
        for build, body in ((self.fast, "fast kernels"), (self.plain, "plain kernels")):
            os.makedirs(os.path.join(build, "chapters"))
            for chapter in ("10_language_model", "12_gpt"):
                program = os.path.join(build, "chapters", chapter)
                write(program, f"{chapter} on the {body}")
                os.chmod(program, 0o755)
        self.source = os.path.join(self.fast, "chapters", "10_language_model")
        self.target = os.path.join(self.plain, "chapters", "10_language_model")
        for program in (self.source, os.path.join(self.fast, "chapters", "12_gpt")):
            key = runner.program_key(program)
            for name, seed in (("gpt", 1), ("gpt", 2), ("gpt", 3), ("tokenizer", 0)):
                for kind in ("state", "record", "seconds"):
                    write(f"{program}.trained-{key}-{name}-seed{seed}.{kind}", f"{name} {seed} {kind}")
        key = runner.program_key(self.source)
        # a model kept whole by an earlier build (another key), and one whose record is missing
        write(f"{self.source}.trained-0123456789abcdef-gpt-seed4.state", "stale")
        write(f"{self.source}.trained-0123456789abcdef-gpt-seed4.record", "stale")
        write(f"{self.source}.trained-{key}-gpt-seed5.state", "half written")

    def tearDown(self):
        self.tmp.cleanup()

    def kept_files(self, program=None):
        program = program or self.target
        stem = os.path.basename(program) + ".trained-"
        return sorted(f for f in os.listdir(os.path.dirname(program)) if f.startswith(stem))

    def test_every_seed_but_the_first_is_copied_under_the_target_key_without_its_seconds(self):
        with redirect_stdout(io.StringIO()) as out:
            self.assertEqual(kept.main(["adopt", self.fast, self.plain]), 0)
        key = runner.program_key(self.target)
        self.assertEqual(self.kept_files(), sorted(f"10_language_model.trained-{key}-gpt-seed{s}.{k}"
                                                   for s in (2, 3) for k in ("record", "state")))
        with open(f"{self.target}.trained-{key}-gpt-seed3.state", encoding="utf-8") as f:
            self.assertEqual(f.read(), "gpt 3 state")
        self.assertIn("10_language_model: model gpt, seeds 2, 3 adopted", out.getvalue())
        self.assertIn("the first seed it trains itself", out.getvalue())
        self.assertNotIn("10_language_model: model tokenizer", out.getvalue())

    def test_chapter_12_adopts_every_seed_the_first_too(self):
        with redirect_stdout(io.StringIO()) as out:
            self.assertEqual(kept.main(["adopt", self.fast, self.plain]), 0)
        gpt = os.path.join(self.plain, "chapters", "12_gpt")
        key = runner.program_key(gpt)
        models = [("gpt", 1), ("gpt", 2), ("gpt", 3), ("tokenizer", 0)]
        self.assertEqual(self.kept_files(gpt), sorted(f"12_gpt.trained-{key}-{name}-seed{s}.{k}"
                                                      for name, s in models for k in ("record", "state")))
        self.assertIn(f"12_gpt: model gpt, seeds 1, 2, 3 adopted from {self.fast}\n", out.getvalue())
        self.assertIn(f"12_gpt: model tokenizer, seeds 0 adopted from {self.fast}\n", out.getvalue())

    def test_a_file_the_target_has_is_left_as_it_is(self):
        key = runner.program_key(self.target)
        mine = f"{self.target}.trained-{key}-gpt-seed2.state"
        write(mine, "trained here")
        kept.adopt(self.source, self.target)
        with open(mine, encoding="utf-8") as f:
            self.assertEqual(f.read(), "trained here")

    def test_a_build_folder_without_chapters_is_refused(self):
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(kept.main(["adopt", os.path.join(self.tmp.name, "nowhere"), self.plain]), 1)
        self.assertIn("must both be built folders", err.getvalue())
        with redirect_stderr(io.StringIO()):
            self.assertEqual(kept.main(["adopt", self.fast]), 2)


if __name__ == "__main__":
    unittest.main()
