"""The mutation ledger's check refuses every gap it promises to, and only code makes a result stale: prose, comments, layout and a claim's wording rerun nothing.

litgrad_book.mutations on small catalogues, chapters and ledgers made here, so that what
``tools/mutate --check`` (and CI) refuses is itself tested.
"""
import json
import os
import tempfile
import unittest

from litgrad_book import fingerprint, mutations, reader

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

    def test_in_cpp_the_definition_counts_tokens_not_layout(self):
        one = mutation("m", find="f(a, b);  // why", replace="f(b, a);")
        wrapped = mutation("m", find="f(a,\n  b);  // because", replace="f(b,\n  a);")
        self.assertEqual(mutations.definition(one), mutations.definition(wrapped))
        self.assertNotEqual(mutations.definition(one), mutations.definition(mutation("m", find="f(a, b);",
                                                                                     replace="f(a, a);")))
        toml = mutation("m", file="tests/x.toml", find="a = 1", replace="a = 2")
        self.assertNotEqual(mutations.definition(toml), mutations.definition(dict(toml, find="a  =  1")))


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
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        os.makedirs(os.path.join(self.root, "chapters"))
        self.path = os.path.join(self.root, "chapters", "09_try.cpp")
        self.base = CHAPTER + "int value = 1;\n"
        self.write(self.base)
        self.cats = {"09_try": catalogue("09_try", mutation("m", find="int value = 1;", replace="int value = 2;"))}
        self.m = self.cats["09_try"][0]

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text):
        with open(self.path, "w") as f:
            f.write(text)
        self.book = mutations.chapters(self.root)

    def stale(self, ledger):
        return mutations.out_of_date(ledger, self.cats, self.book, self.root)

    def ran(self):
        """A ledger in which the mutation ran on the chapter as it is, and turned "two" red."""
        red = {"09_try": ["two"]}
        return {"mutations": {"09_try: m": {
            "status": "killed", "red": red, "red_places": mutations.places_of(red, self.book),
            "code": mutations.code_of(self.root, mutations.depends_on(self.m, self.book, self.root)),
            "definition": mutations.definition(self.m)}}}

    def test_a_result_goes_out_of_date_when_its_code_or_its_definition_changes(self):
        self.assertEqual(mutations.depends_on(self.m, self.book, self.root), ["chapters/09_try.cpp"])
        self.assertEqual(self.stale({"mutations": {}}), {"09_try: m": ["(never run)"]})
        ledger = self.ran()
        self.assertEqual(self.stale(ledger), {})
        self.write(self.base + "int added = 1;\n")
        self.assertEqual(self.stale(ledger), {"09_try: m": ["chapters/09_try.cpp"]})
        self.write(self.base)
        self.m["replace"] = "c"
        self.assertEqual(self.stale(ledger), {"09_try: m": ["tests/mutations/09_try.toml"]})

    def test_prose_comments_layout_and_a_claims_wording_stale_nothing(self):
        ledger = self.ran()
        self.write(self.base.replace("// Two.", "// Two, said better.\n// And a second line.")
                   .replace("TEST_CASE(\"two\") {}", "TEST_CASE(\"two, \"\n          \"reworded\")  {  }  // why"))
        self.assertEqual(self.stale(ledger), {})
        self.assertEqual([c.name for c in self.book["09_try"].claims], ["one", "two, reworded"])
        # the verdict follows the claim to its new name: it is still the second claim
        self.assertEqual(mutations.red_claims(ledger["mutations"]["09_try: m"], "09_try", self.book["09_try"],
                                              self.root), ["two, reworded"])
        self.assertEqual(mutations.problems(ledger, self.cats, self.book, set(), self.root),
                         ['chapters/09_try.cpp:10: no mutation of its catalogue turns the claim "one" red'])

    def test_once_the_code_changes_the_recorded_names_count_again(self):
        ledger = self.ran()
        self.write(self.base.replace("TEST_CASE(\"two\") {}", "TEST_CASE(\"deux\") { int x = 0; }"))
        self.assertEqual(mutations.red_claims(ledger["mutations"]["09_try: m"], "09_try", self.book["09_try"],
                                              self.root), ["two"])

    def test_a_mutations_text_lost_to_an_edit_is_a_problem_before_any_run(self):
        ledger = self.ran()
        self.write(self.base.replace("int value = 1;", "int value  =  1;"))
        self.assertEqual(self.stale(ledger), {})  # the code is the same ...
        self.assertIn("tests/mutations/09_try.toml: 'm': stale (its text is no longer in chapters/09_try.cpp)",
                      mutations.problems(ledger, self.cats, self.book, set(), self.root))  # ... its text is not

    def test_the_repositorys_own_ledger_reads(self):
        from litgrad_book import ROOT
        cats = mutations.catalogues(ROOT)
        self.assertIn("lib", cats)
        with open(mutations.ledger_path(ROOT), encoding="utf-8") as f:
            self.assertIn("mutations", json.load(f))
        self.assertIn("matmul", mutations.recorded_ops(ROOT))
        self.assertEqual(len(mutations.recorded_ops(ROOT)), 42)  # the entries of lib/litgrad/ops/registry.hpp


class Registry(unittest.TestCase):
    """The operations the check wants a mutation for come from the library's table, read
    strictly: a line in the table that is not one entry is refused, never skipped."""

    def registry(self, body):
        root = tempfile.mkdtemp()
        os.makedirs(os.path.join(root, "lib", "litgrad", "ops"))
        with open(os.path.join(root, mutations.REGISTRY), "w") as f:
            f.write("#define LITGRAD_OPERATIONS(LITGRAD_OP) \\\n" + body + "\n// after\n")
        return root

    def test_every_entry_is_read(self):
        root = self.registry('  LITGRAD_OP(add, yes, "") \\\n  LITGRAD_OP(max, no, "a \\"quoted\\" why") \\\n'
                             '  LITGRAD_OP(sum, yes, "")')
        self.assertEqual(mutations.recorded_ops(root), {"add", "max", "sum"})

    def test_a_line_that_is_not_one_entry_is_refused(self):
        root = self.registry('  LITGRAD_OP(add, yes, "") LITGRAD_OP(sub, yes, "") \\\n  LITGRAD_OP(sum, yes, "")')
        with self.assertRaisesRegex(mutations.CatalogueError, "registry.hpp:2: not one LITGRAD_OP"):
            mutations.recorded_ops(root)


class Fingerprint(unittest.TestCase):
    CODE = ('#include <vector>\n// %% A heading\n// prose\nint f(int a, int b) { return a - -b; }  // why\n'
            'TEST_CASE("a claim") { CHECK(f(1, 2) == 3); }\n#define TWICE(x) (2 * (x))\n+1\n'
            'const char* s = "a // b"; /* c */ const char* r = R"(x)"; char q = \'\\\'\'; long n = 1\'000;\n')

    def same(self, edited):
        return fingerprint.of_text(edited) == fingerprint.of_text(self.CODE)

    def test_prose_comments_layout_and_claim_names_do_not_count(self):
        self.assertTrue(self.same(self.CODE.replace("// prose", "// other prose\n// and more")))
        self.assertTrue(self.same(self.CODE.replace("  // why", "").replace("/* c */", "/* other */")))
        self.assertTrue(self.same(self.CODE.replace("int f(int a, int b) {", "int f(int a,\n      int b)\n{")))
        self.assertTrue(self.same(self.CODE.replace('"a claim"', '"a claim, "\n          "reworded"')))
        self.assertTrue(self.same(self.CODE.replace('"a // b"', '"a "\n    "// b"')))  # joined, as the compiler does

    def test_every_change_of_a_token_counts(self):
        for old, new in [("a - -b", "a--b"), ("a - -b", "a - b"), ('"a // b"', '"a // c"'), ("R\"(x)\"", "R\"(y)\""),
                         ("1\'000", "1\'001"), ("#define TWICE(x) (2 * (x))\n+1", "#define TWICE(x) (2 * (x)) +1"),
                         ("<vector>", "<string>"), ("CHECK(", "REQUIRE(")]:
            self.assertIn(old, self.CODE)
            self.assertFalse(self.same(self.CODE.replace(old, new)), f"{old!r} -> {new!r}")

    def test_a_claim_name_is_the_only_string_that_does_not_count(self):
        self.assertEqual(fingerprint.code_of('TEST_CASE("x") { f("y"); }'), 'TEST_CASE("<claim>"){f("y");}')

    def test_an_escape_that_a_joined_literal_would_extend_keeps_them_apart(self):
        self.assertNotEqual(fingerprint.of_text('s = "\\x4" "1";'), fingerprint.of_text('s = "\\x41";'))

    def test_the_books_chapters_keep_their_fingerprints_under_their_clang_format(self):
        """Formatting a chapter changes no mutation's freshness (when clang-format is here)."""
        import shutil
        import subprocess
        from litgrad_book import ROOT
        if not shutil.which("clang-format"):
            self.skipTest("clang-format is not installed")
        for path in reader.chapter_files(ROOT):
            formatted = subprocess.run(["clang-format", f"--style=file:{ROOT}/chapters/.clang-format", path],
                                       capture_output=True, text=True, check=True).stdout
            with open(path, encoding="utf-8") as f:
                self.assertEqual(fingerprint.of_text(f.read()), fingerprint.of_text(formatted), path)


if __name__ == "__main__":
    unittest.main(verbosity=2)
