"""Which of a chapter's claims a mutation's code can reach, and the code their verdicts rest on.

A mutation of a chapter reruns the whole chapter (about three minutes for chapter 12), and its
verdict, the claims it turned red, was stale whenever the chapter's code changed anywhere
(``fingerprint``). But each claim is its own process, and a claim's outcome depends only on the
code it runs: its own body and the chapter's helpers it calls, directly or through others. A
mutation's verdict can change only if a claim that runs the mutated code changes what it runs.

So a chapter's file is cut into its top-level pieces (``units``): each claim (``TEST_CASE``),
each function, type and constant, each preprocessor line, namespaces looked through. A claim
*reaches* a piece when the piece declares a name the claim uses, or a name used by a piece the
claim reaches, and so on; the pieces whose names cannot be told (an ``operator``, a ``using
namespace``, a preprocessor line, a constant whose initialiser calls something, which could
act beside its value) are reached by every claim. A mutation's fingerprint (``of_mutation``) is
the code of everything each claim that reaches the mutated piece reaches, claim by claim. An
edit outside all of that (a new claim that does not run the mutated code, a helper only other
claims call) leaves it unchanged; any edit that could change the verdict changes it.

The rule errs one way only, as ``fingerprint`` does. Names are matched as words, so a member
or a local that shares a helper's name makes the helper reached, which costs a rerun, never a
wrong verdict; a piece whose names the reading cannot tell is everyone's; where the mutated
text is not inside exactly one piece, ``of_mutation`` returns None and the whole file counts.
What it assumes is what CTest assumes, each claim being its own process there: no claim reads
state another claim changed. ``tools/mutate`` runs a chapter's claims in one process, so the
chapters' main restarts the default generator before each claim (lib/litgrad/book/main.cpp),
and what the chapters keep between claims are results memoised by their arguments (a trained
model, a table of costs), the same whichever claim asked first. The repository's ledger is the
test of the reading (tests/python/test_reach.py): each of the claims its chapters' mutations
turned red, measured, is one the reading says can run the mutated code.
"""
import hashlib
import json

from litgrad_book import fingerprint

KEYWORDS = {"struct", "class", "enum", "union"}


def identifier(token):
    return token[:1].isalpha() or token[:1] == "_"


class Unit:
    """One top-level piece of a file: its tokens, its code (``fingerprint.code_of_tokens``),
    whether it is a claim, the names it declares (None: reached by every claim) and the names
    it uses."""

    def __init__(self, toks):
        self.tokens = toks
        self.code = fingerprint.code_of_tokens(toks)
        words = [t.lstrip("\0") for t in toks]
        # doctest's TEST_CASE, and its other ways to write one (TEST_CASE_FIXTURE, SCENARIO)
        self.claim = words[0].startswith(("TEST_CASE", "SCENARIO"))
        self.uses = set() if words[:2] == ["#", "include"] else uses(words)  # <.../trained.hpp>
        self.names = None if self.claim else declared(words)


# Words that may stand before a name in an expression (``return x;``, ``else x = 1;``): a name
# after one of them is used, not declared.
EXPRESSION_KEYWORDS = {"return", "throw", "case", "delete", "new", "sizeof", "typename", "template", "goto",
                       "else", "do", "and", "or", "not", "xor", "bitand", "bitor", "compl", "co_return",
                       "co_await", "co_yield", "alignof", "decltype", "noexcept", "static_assert"}
# What may follow a declared name: int x = 1;  Bigram model{...};  double a[3];  int a, b;  f(int x)
# for (auto w : words).
DECLARATOR_END = {"=", ";", ",", "{", "[", ")", ":"}


def uses(words):
    """The names a piece uses: its words, less those that name a member or a namespace's
    entity (after ``.``, ``->`` or ``::``: ``w.windows``, ``book::GPT``), which are not the
    chapter's pieces (the qualifier itself is a use: ``GPT::forward`` uses GPT), and less the
    names it declares itself where they are in scope (``static const BPETokenizer trained =
    ...; return trained;`` in a function uses no piece called ``trained``). A name counts as
    declared where a type's name stands before it (a word that is not an expression's keyword)
    and ``=``, ``;``, ``,``, ``{``, ``[``, ``)`` or ``:`` after it; it stays in scope until the
    brace that encloses it closes. Called (followed by ``(``), a name counts as used even where a
    local of that name is in scope, so a local that shadows a function costs a rerun at most."""
    found, scopes = set(), [set()]
    for i, w in enumerate(words):
        if w == "{":
            scopes.append(set())
            continue
        if w == "}":
            if len(scopes) > 1:
                scopes.pop()
            continue
        if not identifier(w):
            continue
        before = "".join(words[max(0, i - 2):i])
        if before.endswith(".") or before in ("->", "::"):
            continue
        previous = words[i - 1] if i else ""
        following = words[i + 1] if i + 1 < len(words) else ""
        scope = following == ":" and i + 2 < len(words) and words[i + 2] == ":"
        if identifier(previous) and previous not in EXPRESSION_KEYWORDS and following in DECLARATOR_END \
                and not scope:
            scopes[-1].add(w)
            continue
        if following != "(" and any(w in s for s in scopes):
            continue
        found.add(w)
    return found


def qualified(words, i):
    """The name at ``words[i]`` and the classes that qualify it (``Foo::bar``: bar and Foo): a
    piece that defines a member outside its class is reached through the class's name."""
    names = {words[i]}
    while i >= 3 and words[i - 1] == ":" and words[i - 2] == ":" and identifier(words[i - 3]):
        i -= 3
        names.add(words[i])
    return names


def declared(words):
    """The names a top-level declaration declares (a superset: a name too many only widens what
    reaches the piece), or None when they cannot be told."""
    if words[0] == "#" or words[:2] == ["using", "namespace"]:
        return None
    start = 0
    if words[0] == "template":  # template <...>: the parameters declare nothing outside
        depth = 0
        for start, w in enumerate(words[1:], 1):
            depth += (w == "<") - (w == ">")
            if depth == 0:
                start += 1
                break
    if words[start] == "enum":  # its enumerators too: an unscoped one is used by its own name
        return {w for w in words if identifier(w) and w not in ("enum", "class", "struct")}
    for k in range(start, len(words) - 2):  # struct X : Base {: X alone (not a function's type)
        if words[k] in ("{", "=", "("):
            break
        if words[k] in KEYWORDS and identifier(words[k + 1]) and words[k + 1] not in KEYWORDS \
                and words[k + 2] != "(":
            return {words[k + 1]}
    names, depth, end = set(), 0, len(words)
    for i in range(start, len(words)):
        w = words[i]
        if depth == 0 and w in ("{", "="):
            end = i
            break
        depth += (w in "([<") - (w in ")]>")
        nxt = words[i + 1] if i + 1 < len(words) else ""
        scope = nxt == ":" and i + 2 < len(words) and words[i + 2] == ":"
        if depth == 0 and identifier(w) and w not in KEYWORDS:
            if nxt in ("(", "=", "{", "[", ",", ";") or nxt == ":" and not scope:
                names |= qualified(words, i)  # f(, x =, X {, a[, a, b;, struct X : Base
            elif i > start and words[i - 1] in KEYWORDS:
                names.add(w)  # struct X final
    if "operator" in words[:end]:
        return None  # an operator is called without its name
    if words[end:end + 1] == ["="]:
        if "(" in words[end:]:
            return None  # an initialiser that calls something: what else it does is not read here
        depth = 0  # int a = 1, b = 2;: the names after each comma outside brackets
        for i in range(end, len(words) - 2):
            depth += (words[i] in "([{") - (words[i] in ")]}")
            if depth == 0 and words[i] == "," and identifier(words[i + 1]) \
                    and words[i + 2] in ("=", "{", "[", ",", ";"):
                names.add(words[i + 1])
    return names or None


def units(text):
    """The top-level pieces of a C++ file, in order (namespaces looked through, each
    preprocessor line a piece of its own)."""
    toks = fingerprint.tokens(text)
    out, current, depth, namespaces = [], [], 0, 0
    i = 0
    while i < len(toks):
        t = toks[i].lstrip("\0")
        if not current and t == "namespace":  # namespace [name] {: looked through
            j = i + 1
            while j < len(toks) and toks[j].lstrip("\0") not in ("{", ";"):
                j += 1
            if j < len(toks) and toks[j].lstrip("\0") == "{" and "=" not in [x.lstrip("\0") for x in toks[i:j]]:
                namespaces += 1
                i = j + 1
                continue
        if not current and t == "}" and namespaces:
            namespaces -= 1
            i += 1
            continue
        if not current and t == "#":
            j = i
            while j < len(toks) and toks[j] != "\n":
                j += 1
            out.append(Unit(toks[i:j]))
            i = j + 1
            continue
        if t == "\n":
            i += 1
            continue
        current.append(toks[i])
        if t in "({[":
            depth += 1
        elif t in ")}]":
            depth -= 1
        end = depth == 0 and t == ";"
        if depth == 0 and t == "}":
            following = toks[i + 1].lstrip("\0") if i + 1 < len(toks) else ""
            if following == ";":
                current.append(toks[i + 1])
                i += 1
                end = True
            elif following not in (",", "(", ")", ".", "[", "-", "+", "*", "/", "?", ":", "&", "|", "<", ">", "="):
                end = True
        if end:
            out.append(Unit(current))
            current = []
        i += 1
    if current:
        out.append(Unit(current))
    return out


def claim_reach(pieces):
    """For each claim (in file order), the indices of the pieces it reaches, itself included."""
    everyone = [i for i, u in enumerate(pieces) if not u.claim and u.names is None]
    declaring = {}
    for i, u in enumerate(pieces):
        for name in u.names or ():
            declaring.setdefault(name, set()).add(i)
    reaches = []
    for c, u in enumerate(pieces):
        if not u.claim:
            continue
        reached, frontier = {c, *everyone}, [c, *everyone]
        while frontier:
            for name in pieces[frontier.pop()].uses:
                for j in declaring.get(name, ()):
                    if j not in reached:
                        reached.add(j)
                        frontier.append(j)
        reaches.append(reached)
    return reaches


def mutated_piece(pieces, find):
    """The index of the one piece whose code holds the code of ``find``, or None."""
    code = fingerprint.code_of(find)
    found = [i for i, u in enumerate(pieces) if code and code in u.code]
    return found[0] if len(found) == 1 else None


def of_mutation(text, find):
    """``(fingerprint, claims)`` of a mutation of ``find`` in the file ``text``: the claims
    that reach the mutated piece, by their place among the file's claims, and the fingerprint
    of the code of every piece each of them reaches, claim by claim; ``(None, None)`` when the
    mutated text is not inside exactly one piece."""
    return read(text, find)[:2]


def read(text, find):
    """``of_mutation``, and the number of claims the file holds, from one reading of it."""
    pieces = units(text)
    claims = sum(u.claim for u in pieces)
    at = mutated_piece(pieces, find)
    if at is None:
        return None, None, claims
    reaching = [(k, sorted(r)) for k, r in enumerate(claim_reach(pieces)) if at in r]
    code = [[pieces[i].code for i in r] for _, r in reaching] or [[pieces[at].code]]
    return hashlib.sha256(json.dumps(code).encode()).hexdigest(), [k for k, _ in reaching], claims
