"""The bench report and the chapter runner turn a run into what the book shows, and the runner refuses a run whose claims did not all hold.

litgrad_book.performance on a made-up tools/bench folder (every file the report reads, with
round numbers), and litgrad_book.runner on a made-up chapter program.
"""
import io
import json
import os
import stat
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from litgrad_book import performance, reader, runner

CHAPTER = ("// Chapter 9 · Trying\n// ==================\n//\n// Intro.\n\n// %% about: A try.\n"
           "// %%\n// One.\n\nTEST_CASE(\"one\") {}\n// %%\n// Two.\n\nTEST_CASE(\"two\") {}\n")


def benchmark(name, ms, **extra):
    return {"name": name, "run_name": name, "run_type": "iteration", "real_time": ms, "time_unit": "ms", **extra}


def bench_folder(folder):
    runs = [benchmark("FlagStep/litgrad", 0.01), benchmark("FlagStep/libtorch", 0.2),
            benchmark("EigenGemm/1024", 50, **{"FLOP/s": 4e10}),
            benchmark("Attention/litgrad/128/16/128/8", 10, **{"FLOP/s": 3e10}),
            benchmark("Attention/libtorch/128/16/128/8", 30)]
    runs += [benchmark("GPTStep/litgrad", 10), benchmark("GPTStep/libtorch/64", 30), benchmark("GPTStep/libtorch/32", 8),
             benchmark("Decode/litgrad", 0.1), benchmark("Decode/libtorch/64", 0.5), benchmark("Decode/libtorch/32", 0.4),
             benchmark("GPTStepThreads/litgrad", 5, **{"same bits": 1}),
             benchmark("BlockThreads/litgrad/64/16/64/4/256", 6, **{"same bits": 1})]
    for length in (16, 32, 64):
        runs += [benchmark(f"Sweep/litgrad/{length}/4/64/4", length / 10),
                 benchmark(f"Sweep/libtorch/{length}/4/64/4", length / 5),
                 benchmark(f"Block/litgrad/{length}/16/64/4/256", length / 10),
                 benchmark(f"Block/libtorch/{length}/16/64/4/256", length / 4)]
    files = {"benchmark.json": {"context": {"peer": "libtorch 1.13", "blas": "openblas", "blas_kernel": "Haswell",
                                            "date": "2026-12-07T14:00:00+00:00"}, "benchmarks": runs},
             "memory_flag.json": {"peak_kb": 20000, "resident_kb_every_1000_steps": [10000, 10100]},
             "memory_sweep.json": {"peak_kb": 90000, "attention_weights_kb": 32768},
             "build_times.json": {"clean_seconds": 100, "chapter_rebuild_seconds": 5, "cores": 2}}
    for name, data in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            json.dump(data, f)
    with open(os.path.join(folder, "book_seconds.txt"), "w", encoding="utf-8") as f:
        f.write("01_tensors 0.5\n01_tensors 0.4\n08_attention 2.0\n")
    with open(os.path.join(folder, "blas_environment.txt"), "w", encoding="utf-8") as f:
        f.write("OPENBLAS_CORETYPE=Haswell\nOPENBLAS_L2_SIZE=\nprobe - Prescott 193.4\nprobe SkylakeX SkylakeX 105.9\n")


class Report(unittest.TestCase):
    def test_a_bench_run_becomes_results_json_with_every_workload_and_its_goal(self):
        with tempfile.TemporaryDirectory() as folder:
            bench_folder(folder)
            with redirect_stdout(io.StringIO()) as printed:
                performance.write_report(folder)
            with open(os.path.join(folder, "results.json"), encoding="utf-8") as f:
                results = json.load(f)
        titles = [w["title"] for w in results["workloads"]]
        self.assertEqual(titles[0], "One training step of the flag model")
        flag = results["workloads"][0]
        self.assertAlmostEqual(flag["rows"][0][3], 20.0)  # libtorch's time over litgrad's
        self.assertTrue(flag["met"])
        book = next(w for w in results["workloads"] if w["title"] == "The book's claims")
        self.assertEqual(book["rows"], [["chapter 1", 0.4, 0.0], ["chapter 8", 2.0, 0.0], ["all chapters", 2.4, 0.0]])
        self.assertTrue(book["met"])
        self.assertIn("goal (", printed.getvalue())
        lines = performance.page_lines(results, lambda w: [".. figure:: sweep.png", ""])
        self.assertIn("One training step of the flag model", lines)
        self.assertIn(".. figure:: sweep.png", lines)
        self.assertIn("     - 20×", lines)
        # The GPT: faster than libtorch in double (3×), slower than in float32 (0.8×), so that
        # goal is not met; two threads: twice as fast with the same bits.
        double = next(w for w in results["workloads"] if w["title"].endswith("libtorch in double"))
        single = next(w for w in results["workloads"] if w["title"].endswith("libtorch in float32"))
        self.assertEqual([r[0] for r in double["rows"]], ["training step", "decoding step"])
        self.assertAlmostEqual(double["rows"][0][3], 3.0)
        self.assertTrue(double["met"])
        self.assertAlmostEqual(single["rows"][0][3], 0.8)
        self.assertFalse(single["met"])
        # A goal not met has its bound on the page; a goal met does not.
        bounds = [l for l in lines if l.startswith("**What bounds it:**")]
        self.assertEqual(bounds, ["**What bounds it:** " + single["bound"]])
        # Every goal says what bounds it, for the machine on which it is not met.
        for w in results["workloads"]:
            self.assertTrue(w.get("bound"), w["title"])
        threads = next(w for w in results["workloads"] if w["title"] == "Two threads")
        self.assertEqual(threads["rows"], [["the block at L = 64", 6.4, 6.0, 6.4 / 6.0, "yes"],
                                           ["chapter 12's GPT step", 10.0, 5.0, 2.0, "yes"]])
        self.assertTrue(threads["met"])

    def test_the_page_without_a_run_says_how_to_make_one(self):
        self.assertIn("No benchmark has been run", " ".join(performance.page_lines(None, None)))

    def test_the_report_names_the_machine_date_commit_and_openblas_settings_and_keep_copies_it(self):
        with tempfile.TemporaryDirectory() as folder:
            bench_folder(folder)
            kept_path, performance.KEPT = performance.KEPT, os.path.join(folder, "kept.json")
            try:
                with redirect_stdout(io.StringIO()) as printed:
                    performance.write_report(folder, keep=True)
                with open(performance.KEPT, encoding="utf-8") as f:
                    kept = json.load(f)
            finally:
                performance.KEPT = kept_path
            with open(os.path.join(folder, "results.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f), kept)
        self.assertIn("kept in", printed.getvalue())
        machine = dict(kept["machine"])
        self.assertEqual(machine["date"], "2026-12-07T14:00:00+00:00")
        self.assertRegex(machine["commit"], r"^([0-9a-f]{12}( \+ changes)?|unknown)$")
        self.assertTrue(machine["machine"])
        self.assertEqual(machine["OpenBLAS's settings"],
                         "OpenBLAS's kernels: Haswell, libtorch's fastest in a probe of its attention layer and "
                         "GPT step: OpenBLAS's own pick (Prescott) 193.4 ms; OPENBLAS_CORETYPE=SkylakeX (SkylakeX) "
                         "105.9 ms. OPENBLAS_L2_SIZE unset for the run (the machine had set OPENBLAS_CORETYPE=Haswell)")
        # Shown as the kept report: a note with where it ran and how to measure this machine.
        note = " ".join(performance.page_lines(kept, lambda w: [], kept=True))
        self.assertIn("the numbers of the last full run", note)
        self.assertIn("kept in the repository (``bench/last_report.json``)", note)
        self.assertIn(f"on {machine['machine']}, 2026-12-07T14:00:00+00:00", note)
        self.assertIn("run ``tools/bench``", note)
        self.assertNotIn("kept in the repository", " ".join(performance.page_lines(kept, lambda w: [])))

    def test_a_run_without_either_openblas_setting_says_neither_was_set(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "blas_environment.txt"), "w", encoding="utf-8") as f:
                f.write("OPENBLAS_CORETYPE=\nOPENBLAS_L2_SIZE=\n")
            self.assertIn("(the machine had set neither)", performance.blas_environment(folder, "Haswell"))


class Runner(unittest.TestCase):
    def run_chapter(self, claims, status=0, extra=None, kept=(), calibration=runner.REFERENCE):
        """Runs a made-up chapter program that emits ``claims``, beside files that
        book::train_once kept for it (``kept``: (key, name, seconds), the key None for the
        program's own), with a made-up calibration program that prints ``calibration`` (unless
        ``extra`` gives the runner's last arguments); (exit status, stderr)."""
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "09_try.cpp")
            with open(source, "w", encoding="utf-8") as f:
                f.write(CHAPTER)
            program = os.path.join(folder, "chapter")
            with open(program, "w", encoding="utf-8") as f:
                f.write(f"#!{sys.executable}\nimport json, os, sys\nout = sys.argv[2]\nos.makedirs(out)\n"
                        f"json.dump({claims!r}, open(os.path.join(out, 'claims.json'), 'w'))\nsys.exit({status})\n")
            os.chmod(program, os.stat(program).st_mode | stat.S_IEXEC)
            for key, name, seconds in kept:
                stem = f"{program}.trained-{key or runner.program_key(program)}-{name}-seed1"
                with open(stem + ".seconds", "w", encoding="utf-8") as f:
                    f.write(f"{seconds}\n")
                open(stem + ".record", "w").close()
            if extra is None:
                calibrate = os.path.join(folder, "calibration")
                with open(calibrate, "w", encoding="utf-8") as f:
                    f.write(f"#!{sys.executable}\nprint(*{list(calibration)!r}, 1.0)\n")
                os.chmod(calibrate, os.stat(calibrate).st_mode | stat.S_IEXEC)
                extra = ["--calibration", calibrate]
            out = os.path.join(folder, "book", "09_try")
            with redirect_stderr(io.StringIO()) as errors, redirect_stdout(io.StringIO()):
                code = runner.main([program, source, out, *extra])
            if code == 0:
                with open(out + ".run.json", encoding="utf-8") as f:
                    self.assertEqual(json.load(f)["budget_seconds"], 10.0)
            return code, errors.getvalue()

    def test_a_run_in_which_every_claim_held_is_recorded_with_its_time(self):
        self.assertEqual(self.run_chapter([{"name": "one", "passed": True}, {"name": "two", "passed": True}]),
                         (0, ""))

    def test_a_model_trained_earlier_counts_toward_the_budget(self):
        held = [{"name": "one", "passed": True}, {"name": "two", "passed": True}]
        code, errors = self.run_chapter(held, kept=[(None, "model", 6.5), (None, "tokenizer", 4.0)])
        self.assertEqual(code, 1)
        self.assertIn("over the chapter's budget of 10 s", errors)
        # another build's files (another key) are not this program's models
        self.assertEqual(self.run_chapter(held, kept=[("0123456789abcdef", "model", 60)]), (0, ""))
        self.assertEqual(self.run_chapter(held, kept=[(None, "model", 2.5)]), (0, ""))

    def test_a_machine_slower_than_the_reference_gets_a_budget_larger_by_its_slowness(self):
        held = [{"name": "one", "passed": True}, {"name": "two", "passed": True}]
        slow = (runner.REFERENCE[0], 2 * runner.REFERENCE[1], runner.REFERENCE[2])  # slow at one size
        self.assertEqual(self.run_chapter(held, kept=[(None, "model", 15)], calibration=slow), (0, ""))
        code, errors = self.run_chapter(held, kept=[(None, "model", 25)], calibration=slow)
        self.assertEqual(code, 1)
        self.assertIn("over the chapter's budget of 10 s times 2.00", errors)
        # a faster machine does not shrink it
        fast = [t / 2 for t in runner.REFERENCE]
        self.assertEqual(self.run_chapter(held, kept=[(None, "model", 9)], calibration=fast), (0, ""))

    def test_slowness_is_the_largest_ratio_of_the_least_timings_and_never_below_one(self):
        r = runner.REFERENCE
        self.assertEqual(runner.slowness([[t / 2 for t in r]]), 1.0)
        self.assertAlmostEqual(runner.slowness([[r[0], 3 * r[1], r[2]], [r[0], 2 * r[1], 1.5 * r[2]]]), 2.0)

    def test_a_claim_that_failed_or_did_not_run_stops_the_book(self):
        code, errors = self.run_chapter([{"name": "one", "passed": False}])
        self.assertEqual(code, 1)
        self.assertIn('09_try.cpp:10: the claim "one" FAILED', errors)
        self.assertIn('09_try.cpp:14: the claim "two" did not run', errors)

    def test_a_plain_kernels_run_is_recorded_and_an_unknown_argument_refused(self):
        held = [{"name": "one", "passed": True}, {"name": "two", "passed": True}]
        self.assertEqual(self.run_chapter(held, extra=["--plain"]), (0, ""))
        self.assertEqual(self.run_chapter(held, extra=["--fast"])[0], 2)
        self.assertEqual(self.run_chapter(held, extra=[])[0], 2)  # neither the plain room nor a calibration

    def test_unheld_claims_reads_what_the_run_emitted(self):
        source = reader.parse(CHAPTER, "chapters/09_try.cpp")
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(len(runner.unheld_claims(source, out)), 2)  # no claims.json at all


if __name__ == "__main__":
    unittest.main(verbosity=2)
