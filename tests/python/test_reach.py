"""A mutation's result stands through edits its claims cannot run and goes stale through any they can, and every claim the ledger records red reaches its mutation.

litgrad_book.reach on small chapters written here (how a file is cut into pieces, what each
declares and uses, which claims reach which piece), then mutations.out_of_date with a result
that recorded its reach, and last the repository's own ledger: every claim a chapter's mutation
turned red must be one the reading says can reach the mutated code, or the reading misses a
path and a result it calls standing could be wrong.
"""
import os
import tempfile
import unittest

from litgrad_book import mutations, reach

CHAPTER = """#include <vector>
namespace {
using namespace litgrad;
constexpr int kSteps = 20, kEvery = 5;
struct Model : nn::Module {
  int width = 3;
};
int helper(int x) { return x + kSteps; }
int other(int x) {
  static const int helper = 2;  // a local that shadows the function
  return x * helper;
}
int Counter::next() { return 1; }
enum Colour { red, green };
TEST_CASE("one") { CHECK(helper(1) == 21); }
TEST_CASE("two") {
  const int value = other(3);
  CHECK(value == 6);
}
}  // namespace
"""


def names(text):
    return {u.code.split("(")[0][:24]: u.names for u in reach.units(text) if not u.claim}


class Pieces(unittest.TestCase):
    def test_a_file_is_cut_into_its_top_level_pieces_through_its_namespace(self):
        pieces = reach.units(CHAPTER)
        self.assertEqual([u.claim for u in pieces].count(True), 2)
        self.assertEqual(pieces[0].code, "#include<vector>")
        self.assertIsNone(pieces[0].names)  # a preprocessor line is everyone's
        self.assertIsNone(pieces[1].names)  # so is using namespace
        self.assertEqual(pieces[2].names, {"kSteps", "kEvery"})
        self.assertEqual(pieces[3].names, {"Model"})  # not its base class
        self.assertEqual(pieces[4].names, {"helper"})
        self.assertEqual(pieces[6].names, {"next", "Counter"})  # reached through its class
        self.assertEqual(pieces[7].names, {"Colour", "red", "green"})  # an enumerator by its own name

    def test_what_cannot_be_told_is_everyones(self):
        for text in ("bool operator<(A a, A b) { return a.x < b.x; }",
                     "const int kFound = find_it();",
                     "#define TWICE(x) (2 * (x))"):
            self.assertIsNone(reach.units(text)[0].names, text)

    def test_a_name_is_used_unless_it_is_a_member_a_namespaces_or_a_local_in_scope(self):
        uses = reach.units("int f(const W& w) { static const int g = 1; return w.h + book::k + g + G::m + x; }")[0].uses
        self.assertTrue({"W", "w", "G", "x", "book"} <= uses)
        self.assertFalse({"h", "k", "g", "m"} & uses)
        called = reach.units("int f() { int g = 1; { int g2 = g; } return g(2) + g2; }")[0].uses
        self.assertTrue({"g", "g2"} <= called)  # called despite the local; g2 used out of its scope

    def test_a_claim_reaches_what_it_calls_and_what_that_calls(self):
        pieces = reach.units(CHAPTER)
        one, two = reach.claim_reach(pieces)

        def at(start):
            return next(i for i, u in enumerate(pieces) if u.code.startswith(start))
        self.assertIn(at("constexpr int kSteps"), one)  # helper uses kSteps
        self.assertNotIn(at("int other("), one)
        self.assertIn(at("int other("), two)
        self.assertNotIn(at("int helper("), two)  # other's helper is its local


class OfMutation(unittest.TestCase):
    FIND = "return x + kSteps;"

    def fingerprint(self, text):
        return reach.of_mutation(text, self.FIND)

    def test_an_edit_no_claim_that_runs_the_mutated_code_can_run_keeps_it(self):
        before, claims = self.fingerprint(CHAPTER)
        self.assertEqual(claims, [0])
        for edit in (CHAPTER.replace("CHECK(value == 6)", "CHECK(value == 7)"),
                     CHAPTER.replace("return x * helper;", "return x * helper * 1;"),
                     CHAPTER.replace("}  // namespace", 'TEST_CASE("three") { CHECK(other(1) == 2); }\n}')):
            self.assertEqual(self.fingerprint(edit)[0], before, edit)

    def test_an_edit_of_what_those_claims_run_or_a_new_claim_that_runs_it_changes_it(self):
        before, _ = self.fingerprint(CHAPTER)
        for edit in (CHAPTER.replace("CHECK(helper(1) == 21)", "CHECK(helper(1) == 22)"),
                     CHAPTER.replace("kSteps = 20", "kSteps = 21"),
                     CHAPTER.replace("#include <vector>", "#include <map>"),
                     CHAPTER.replace("}  // namespace", 'TEST_CASE("three") { CHECK(helper(0) == 20); }\n}')):
            self.assertNotEqual(self.fingerprint(edit)[0], before, edit)

    def test_a_text_not_inside_exactly_one_piece_counts_the_whole_file(self):
        self.assertEqual(reach.of_mutation(CHAPTER, "kSteps; }\nint other"), (None, None))
        self.assertEqual(reach.of_mutation(CHAPTER, "not in the file"), (None, None))


class Standing(unittest.TestCase):
    """mutations.out_of_date and red_claims with a result that recorded its reach."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        os.makedirs(os.path.join(self.root, "chapters"))
        self.path = os.path.join(self.root, "chapters", "09_try.cpp")
        self.base = ("// Chapter 9 · Trying\n// ==================\n//\n// Intro.\n\n// %% about: A try.\n"
                     + "".join(f"// %%\n// {w}.\n\n{c}\n" for w, c in (
                         ("Helpers", "int helper(int x) { return x + 1; }\nint other(int x) { return x * 2; }"),
                         ("One", 'TEST_CASE("one") { CHECK(helper(1) == 2); }'),
                         ("Two", 'TEST_CASE("two") { CHECK(other(1) == 2); }'))))
        self.write(self.base)
        m = {"name": "m", "file": "chapters/09_try.cpp", "bug": "a bug", "find": "return x + 1;",
             "replace": "return x + 2;"}
        self.cats = {"09_try": mutations.parse_catalogue({"mutation": [m]}, "09_try", "09_try.toml")}
        self.m = self.cats["09_try"][0]
        red = {"09_try": ["one"]}
        source = self.book["09_try"]
        self.ledger = {"mutations": {"09_try: m": {
            "status": "killed", "red": red, "red_places": mutations.places_of(red, self.book),
            "code": mutations.code_of(self.root, mutations.depends_on(self.m, self.book, self.root)),
            "definition": mutations.definition(self.m), "reach": mutations.reach_fingerprint(self.m, self.root),
            "red_reaching": mutations.red_reaching(self.m, ["one"], source, self.root)}}}

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text):
        with open(self.path, "w") as f:
            f.write(text)
        mutations._fingerprints.clear()
        self.book = mutations.chapters(self.root)

    def stale(self):
        return mutations.out_of_date(self.ledger, self.cats, self.book, self.root)

    def test_an_edit_of_another_claims_code_keeps_the_result_and_its_red_claim(self):
        self.write(self.base.replace("x * 2", "x * 3").replace("other(1) == 2", "other(1) == 3")
                   .replace('"one"', '"one, reworded"').replace("// Helpers.", "// Helpers.\n// %%\n// Zero.\n\n"
                                                                 'TEST_CASE("zero") { CHECK(other(0) == 0); }\n'))
        self.assertEqual(self.stale(), {})
        r = self.ledger["mutations"]["09_try: m"]
        # the code changed, so the places among all claims no longer hold ("zero" is first now)
        self.assertEqual(mutations.red_claims(r, "09_try", self.book["09_try"], self.root), ["one"])
        self.assertEqual(mutations.red_claims(r, "09_try", self.book["09_try"], self.root, self.m),
                         ["one, reworded"])
        self.assertEqual(mutations.stale_files(self.root, "09_try", self.cats["09_try"], self.ledger), [])

    def test_a_result_records_no_reach_for_a_red_claim_the_reading_cannot_explain_nor_for_a_crash(self):
        source = self.book["09_try"]
        self.assertEqual(set(mutations.reach_record(self.m, ["one"], source, self.root)), {"reach", "red_reaching"})
        self.assertEqual(mutations.reach_record(self.m, ["one", "two"], source, self.root), {})
        self.assertEqual(mutations.reach_record(self.m, "crashed", source, self.root), {})

    def test_an_edit_of_the_claim_that_runs_the_mutated_code_stales_it(self):
        self.write(self.base.replace("helper(1) == 2", "helper(1) == 2 && other(0) == 0"))
        self.assertEqual(self.stale(), {"09_try: m": ["chapters/09_try.cpp"]})
        self.assertEqual(mutations.stale_files(self.root, "09_try", self.cats["09_try"], self.ledger),
                         ["chapters/09_try.cpp"])


class TheLedger(unittest.TestCase):
    def test_every_claim_a_chapters_mutation_turned_red_reaches_the_mutated_code(self):
        from litgrad_book import ROOT
        ledger = mutations.load_ledger(ROOT)
        cats, book = mutations.catalogues(ROOT), mutations.chapters(ROOT)
        checked, stale = 0, mutations.out_of_date(ledger, cats, book, ROOT)
        for ms in cats.values():
            for m in ms:
                r = ledger["mutations"].get(m["key"])
                fingerprint, reaching = mutations.reach_of(m, ROOT)
                if r is None or fingerprint is None or m["key"] in stale:
                    continue
                source = book[m["catalogue"]]
                red = mutations.red_claims(r, m["catalogue"], source, ROOT, m)
                unreached = [n for n in red if [c.name for c in source.claims].index(n) not in reaching]
                self.assertEqual(unreached, [], f"{m['key']}: red claims the reading says cannot run its code")
                checked += 1
        self.assertGreater(checked, 150)


if __name__ == "__main__":
    unittest.main()
