"""The mutation ledger's check refuses every gap it promises to: a claim no bug turns red, an unnamed backward, a survivor without a reason, a stale result.

litgrad_book.mutations on small catalogues, chapters and ledgers made here, so that what
``tools/mutate --check`` (and CI) refuses is itself tested.
"""
import json
import os
import tempfile
import unittest

from litgrad_book import mutations, reader

CHAPTER = ("// Chapter 9 · Trying\n// ==================\n//\n// Intro.\n\n// %% about: A try.\n"
           "// %%\n// One.\n\nTEST_CASE(\"one\") {}\n// %%\n// Two.\n\nTEST_CASE(\"two\") {}\n")


def catalogue(name, *entries):
    return mutations.parse_catalogue({"mutation": [dict(e) for e in entries]}, name, f"{name}.toml")


def mutation(name, **kw):
    return {"name": name, "file": kw.pop("file", "chapters/09_try.cpp"), "bug": "a bug",
            "find": kw.pop("find", "a"), "replace": kw.pop("replace", "b"), **kw}


def result(status, red=None):
    return {"status": status, "red": red or {}}


class Catalogues(unittest.TestCase):
    def test_a_catalogue_gives_each_mutation_its_ledger_key(self):
        ms = catalogue("09_try", mutation("flip"))
        self.assertEqual((ms[0]["catalogue"], ms[0]["key"]), ("09_try", "09_try: flip"))

    def test_a_catalogue_written_wrong_is_refused_naming_the_mutation(self):
        with self.assertRaisesRegex(mutations.CatalogueError, "'flip' has no 'bug'"):
            catalogue("09_try", {k: v for k, v in mutation("flip").items() if k != "bug"})
        with self.assertRaisesRegex(mutations.CatalogueError, "two mutations are named 'flip'"):
            catalogue("09_try", mutation("flip"), mutation("flip"))
        with self.assertRaisesRegex(mutations.CatalogueError, "replaces its text with itself"):
            catalogue("09_try", mutation("flip", find="x", replace="x"))

    def test_the_definition_changes_with_the_file_the_text_or_its_replacement(self):
        base = mutation("m")
        others = [mutation("m", file="other.cpp"), mutation("m", find="c"), mutation("m", replace="c")]
        self.assertTrue(all(mutations.definition(o) != mutations.definition(base) for o in others))
        self.assertEqual(mutations.definition(mutation("renamed")), mutations.definition(base))


class Check(unittest.TestCase):
    def setUp(self):
        source = reader.parse(CHAPTER, "chapters/09_try.cpp")
        self.book = {"09_try": source}
        self.cats = {"09_try": catalogue("09_try", mutation("kills one"), mutation("kills two")),
                     "lib": catalogue("lib", mutation("breaks mul", file="lib/x.cpp", ops=["mul"]))}
        self.ledger = {"mutations": {
            "09_try: kills one": result("killed", {"09_try": ["one"]}),
            "09_try: kills two": result("killed", {"09_try": ["two"]}),
            "lib: breaks mul": result("killed", {"litgrad_tests": ["mul's gradient"]})}}

    def problems(self, ops=("mul",)):
        return mutations.problems(self.ledger, self.cats, self.book, set(ops))

    def test_a_ledger_where_every_claim_is_turned_red_and_every_backward_named_passes(self):
        self.assertEqual(self.problems(), [])

    def test_a_claim_no_mutation_turns_red(self):
        self.ledger["mutations"]["09_try: kills two"] = result("killed", {"09_try": ["one"]})
        self.assertEqual(self.problems(), ['chapters/09_try.cpp:14: no mutation of its catalogue turns the claim '
                                           '"two" red'])

    def test_a_claim_turned_red_only_by_another_chapters_mutation_does_not_count(self):
        self.cats["10_other"] = catalogue("10_other", mutation("elsewhere"))
        self.ledger["mutations"]["10_other: elsewhere"] = result("killed", {"09_try": ["two"]})
        self.ledger["mutations"]["09_try: kills two"] = result("survived")
        found = self.problems()
        self.assertIn('chapters/09_try.cpp:14: no mutation of its catalogue turns the claim "two" red', found)

    def test_an_operation_whose_backward_no_killed_mutation_names(self):
        self.assertEqual(self.problems(ops=("mul", "exp")),
                         ["tests/mutations/lib.toml: no killed mutation names the backward of 'exp' "
                          "(ops = [\"exp\"])"])
        self.ledger["mutations"]["lib: breaks mul"] = result("survived")
        self.assertTrue(any("backward of 'mul'" in p for p in self.problems()))

    def test_a_survivor_needs_its_reason(self):
        self.cats["lib"] += catalogue("lib", mutation("harmless", file="lib/x.cpp"))
        self.ledger["mutations"]["lib: harmless"] = result("survived")
        self.assertEqual(self.problems(), ["tests/mutations/lib.toml: 'harmless': survived, and the catalogue "
                                           "gives no reason (survives = \"...\")"])
        self.cats["lib"][-1]["survives"] = "the change is below the tolerance"
        self.assertEqual(self.problems(), [])

    def test_mutations_not_run_stale_ambiguous_or_not_compiling(self):
        self.cats["lib"] += catalogue("lib", *(mutation(n, file="lib/x.cpp") for n in ("new", "gone", "twice", "bad")))
        self.ledger["mutations"].update({"lib: gone": result("stale"), "lib: twice": result("ambiguous"),
                                         "lib: bad": result("does not compile")})
        self.assertEqual(self.problems(), ["tests/mutations/lib.toml: 'new': not run yet",
                                           "tests/mutations/lib.toml: 'gone': stale (its text is no longer in "
                                           "lib/x.cpp)",
                                           "tests/mutations/lib.toml: 'twice': ambiguous",
                                           "tests/mutations/lib.toml: 'bad': does not compile"])

    def test_a_chapter_without_a_catalogue(self):
        del self.cats["09_try"]
        self.assertIn("tests/mutations/09_try.toml: the chapter has no catalogue", self.problems())

    def test_scores_count_killed_among_those_that_ran(self):
        self.cats["lib"] += catalogue("lib", mutation("kept", file="lib/x.cpp"), mutation("later", file="lib/x.cpp"))
        self.ledger["mutations"]["lib: kept"] = result("survived")
        self.assertEqual(mutations.scores(self.ledger, self.cats)["lib"],
                         {"killed": 1, "survived": 1, "mutations": 3, "score": 0.5})
        self.assertIsNone(mutations.scores({"mutations": {}}, self.cats)["lib"]["score"])


class OutOfDate(unittest.TestCase):
    def test_a_result_goes_out_of_date_when_its_file_its_chapter_or_its_definition_changes(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "chapters"))
            path = os.path.join(root, "chapters", "09_try.cpp")
            with open(path, "w") as f:
                f.write(CHAPTER)
            book = mutations.chapters(root)
            cats = {"09_try": catalogue("09_try", mutation("m"))}
            m = cats["09_try"][0]
            self.assertEqual(mutations.depends_on(m, book, root), ["chapters/09_try.cpp"])
            ledger = {"mutations": {}}
            self.assertEqual(mutations.out_of_date(ledger, cats, book, root), {"09_try: m": ["(never run)"]})
            ledger["mutations"]["09_try: m"] = {"depends": {"chapters/09_try.cpp": mutations.sha256(path)},
                                                "definition": mutations.definition(m)}
            self.assertEqual(mutations.out_of_date(ledger, cats, book, root), {})
            with open(path, "a") as f:
                f.write("// a change\n")
            self.assertEqual(mutations.out_of_date(ledger, cats, book, root), {"09_try: m": ["chapters/09_try.cpp"]})
            ledger["mutations"]["09_try: m"]["depends"]["chapters/09_try.cpp"] = mutations.sha256(path)
            m["replace"] = "c"
            self.assertEqual(mutations.out_of_date(ledger, cats, book, root),
                             {"09_try: m": ["tests/mutations/09_try.toml"]})

    def test_the_repositorys_own_ledger_reads(self):
        from litgrad_book import ROOT
        cats = mutations.catalogues(ROOT)
        self.assertIn("lib", cats)
        with open(mutations.ledger_path(ROOT), encoding="utf-8") as f:
            self.assertIn("mutations", json.load(f))
        self.assertIn("matmul", mutations.recorded_ops(ROOT))


if __name__ == "__main__":
    unittest.main(verbosity=2)
