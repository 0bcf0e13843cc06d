"""The mutation ledger: the catalogues of plausible bugs, what each turned red, and its check.

A catalogue, ``tests/mutations/lib.toml`` or ``tests/mutations/NN_topic.toml``, lists mutations:
each a name, a file, the exact text to find and its replacement, a sentence saying what bug it
models (``bug``), for the library's the operations whose backward it breaks (``ops``), and for
one that is expected to survive the measured reason (``survives``). ``tools/mutate`` (module
``mutate``) applies each in a scratch copy, reruns the claims and records in
``tests/mutations/ledger.json`` which tests went red, with the commit and the fingerprints of
the code each result depends on (``fingerprint``: the tokens, not the comments, the layout or
the claims' wording, so that editing prose reruns nothing). A mutation of a chapter's own file
also records the code of what the claims that run the mutated code run (``reach``): while that
is unchanged, an edit elsewhere in the chapter (another claim, a helper those claims do not
call) leaves the result standing.

This module holds what needs no build: reading the catalogues and the ledger, which results are
out of date, the scores, the check CI runs (``problems``), and the reST the book's pages show of
it: under each claim's verdict, the mutations that turned it red; on the Claims page, the
ledger's commit, the scores, every chapter's mutations with what they model, and a warning
where a file changed after its mutations ran. (The page functions take Sphinx's ``env`` and use
only its ``srcdir`` and ``note_dependency``.)
"""
import glob
import hashlib
import json
import os
import re

import tomllib

from litgrad_book import fingerprint, reach, reader

REQUIRED = ("name", "file", "bug", "find", "replace")


class CatalogueError(Exception):
    """A catalogue written wrong: a missing field, a name used twice, a mutation that does
    nothing."""


def folder(root):
    return os.path.join(root, "tests", "mutations")


def ledger_path(root):
    return os.path.join(folder(root), "ledger.json")


# ------------------------------------------------------------------------------------------
# Catalogues, chapters and the ledger


def parse_catalogue(data, name, where):
    """The mutations of one catalogue (``data`` as TOML reads it), each given its ``catalogue``
    and its ledger ``key`` ("NAME: mutation name"); ``where`` names the file in errors."""
    mutations = data.get("mutation", [])
    seen = set()
    for m in mutations:
        for key in REQUIRED:
            if key not in m:
                raise CatalogueError(f"{where}: mutation {m.get('name', '?')!r} has no '{key}'")
        if m["name"] in seen:
            raise CatalogueError(f"{where}: two mutations are named {m['name']!r}")
        seen.add(m["name"])
        if m["find"] == m["replace"]:
            raise CatalogueError(f"{where}: mutation {m['name']!r} replaces its text with itself")
        m["catalogue"] = name
        m["key"] = f"{name}: {m['name']}"
    return mutations


def load_catalogue(path, root):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return parse_catalogue(data, os.path.basename(path)[:-5], os.path.relpath(path, root))


def catalogues(root):
    """{catalogue name: [mutation, ...]}: "lib" and one per chapter that has one."""
    return {os.path.basename(p)[:-5]: load_catalogue(p, root)
            for p in sorted(glob.glob(os.path.join(folder(root), "*.toml")))}


def chapters(root):
    """Every chapter, read; each source's path relative to the root, as the ledger records it."""
    book = {}
    for path in reader.chapter_files(root):
        source = reader.read(path)
        source.path = os.path.relpath(path, root)
        book[source.name] = source
    return book


def load_ledger(root):
    path = ledger_path(root)
    if not os.path.exists(path):
        return {"mutations": {}, "runs": {}}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


_fingerprints = {}


def code_fingerprint(path):
    """``fingerprint.of_file``, remembered while the file is unchanged (the check and the pages
    ask for the same few files hundreds of times)."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _fingerprints:
        _fingerprints[key] = fingerprint.of_file(path)
    return _fingerprints[key]


def code_of(root, files):
    """{file: fingerprint} for the given files (relative to ``root``)."""
    return {f: code_fingerprint(os.path.join(root, f)) for f in files}


def depends_on(m, book, root):
    """The files a mutation's result depends on: its own file, and its chapter's source (a
    claim can change without the mutated file changing)."""
    files = {m["file"]}
    if m["catalogue"] in book:
        files.add(book[m["catalogue"]].path)
    return sorted(f for f in files if os.path.exists(os.path.join(root, f)))


def definition(m):
    """A hash of what a mutation does: a result is stale once its file, or the code of its find
    or its replace, change. In a C++ file the texts count by their tokens, as files do
    (``fingerprint``): a find text re-wrapped to follow its file's new layout is the same
    mutation."""
    if m["file"].endswith(fingerprint.CPP):
        texts = [fingerprint.code_of(m["find"]), fingerprint.code_of(m["replace"])]
    else:
        texts = [m["find"], m["replace"]]
    return hashlib.sha256(json.dumps([m["file"], *texts]).encode()).hexdigest()[:16]


def _reading(m, root):
    """``reach.read`` of a mutation of its own chapter's file (``chapters/NN_topic.cpp`` in
    catalogue NN_topic), remembered while the file is unchanged; ``(None, None, None)`` for any
    other mutation."""
    path = os.path.join(root, m["file"])
    if m["file"] != f"chapters/{m['catalogue']}.cpp" or not os.path.exists(path):
        return None, None, None
    key = ("reach", path, os.stat(path).st_mtime_ns, m["find"])
    if key not in _fingerprints:
        with open(path, encoding="utf-8") as f:
            _fingerprints[key] = reach.read(f.read(), m["find"])
    return _fingerprints[key]


def reach_of(m, root):
    """``reach.of_mutation`` for a mutation of its own chapter's file: the fingerprint of the
    code its verdict can depend on in that file, and the places of the claims that can turn
    red; ``(None, None)`` for any other mutation."""
    return _reading(m, root)[:2]


def claims_read_alike(m, source, root):
    """Whether ``reach`` finds as many claims in the mutation's chapter as the book's reader
    does: the places it gives are then places among ``source.claims``."""
    return _reading(m, root)[2] == len(source.claims)


def reach_fingerprint(m, root):
    return reach_of(m, root)[0]


def red_reaching(m, red, source, root):
    """The red claims of the mutation's own chapter by their place among the claims that reach
    the mutated code (``reach_of``): what ``red_claims`` maps back to names after the chapter's
    code changed elsewhere."""
    reaching = reach_of(m, root)[1]
    if reaching is None or not claims_read_alike(m, source, root):
        return None
    names, red = [c.name for c in source.claims], set(red)
    return [k for k, place in enumerate(reaching) if place < len(names) and names[place] in red]


def reach_record(m, red, source, root):
    """What a result of ``m`` that turned ``red`` (its chapter's claims, or "crashed") red
    records to outlive edits elsewhere in the chapter: ``reach`` and ``red_reaching``. None of
    it (``{}``) for a mutation outside its chapter's file, a crash, or a red claim the reading
    says cannot run the mutated code (it missed a path, and the whole file must count)."""
    fingerprint_now, _ = reach_of(m, root)
    if fingerprint_now is None or not isinstance(red, list):
        return {}
    places = red_reaching(m, red, source, root)
    return {"reach": fingerprint_now, "red_reaching": places} if places is not None and len(places) == len(set(red)) \
        else {}


def changed_files(m, r, root, files):
    """Those of ``files`` whose code changed since result ``r`` ran. The mutation's own chapter
    file counts as unchanged while the result's recorded reach (``reach_fingerprint``) is
    still the file's, whatever changed elsewhere in it."""
    changed = []
    for f in files:
        path = os.path.join(root, f)
        if os.path.exists(path) and r.get("code", {}).get(f) == code_fingerprint(path):
            continue
        if f == m["file"] and r.get("reach") is not None and r["reach"] == reach_fingerprint(m, root):
            continue
        changed.append(f)
    return changed


def out_of_date(ledger, cats, book, root):
    """{mutation key: [changed files]} for every mutation whose files' code changed since it
    ran, or that never ran. A file counts as changed when its fingerprint differs: an edit of
    prose, comments, layout or a claim's wording changes none; nor, in a mutation's own
    chapter file, does code no claim that runs the mutated code can reach (``changed_files``)."""
    stale = {}
    for ms in cats.values():
        for m in ms:
            r = ledger["mutations"].get(m["key"])
            if r is None:
                stale[m["key"]] = ["(never run)"]
                continue
            changed = changed_files(m, r, root, depends_on(m, book, root))
            if r.get("definition") != definition(m):
                changed.append(f"tests/mutations/{m['catalogue']}.toml")
            if changed:
                stale[m["key"]] = changed
    return stale


def red_claims(r, chapter, source, root, m=None):
    """The names of ``source``'s claims that result ``r`` (of mutation ``m``) turned red. A
    result keeps each red claim's place among the chapter's claims (``red_places``); while the
    chapter's code is as it was (its fingerprint ignores the claims' wording), the claim at that
    place is the one that went red, whatever it is called now. Where the code changed but not
    what the mutation can reach (``reach_of``), the red claims are those at their recorded places
    among the claims that reach it (``red_reaching``). Otherwise the names recorded."""
    names = (r.get("red") or {}).get(chapter) or []
    places = (r.get("red_places") or {}).get(chapter)
    if places is not None and r.get("code", {}).get(source.path) == code_fingerprint(os.path.join(root, source.path)) \
            and all(i < len(source.claims) for i in places):
        return [source.claims[i].name for i in places]
    if m is not None and m["catalogue"] == chapter and r.get("red_reaching") is not None:
        fingerprint_now, reaching = reach_of(m, root)
        if fingerprint_now is not None and fingerprint_now == r.get("reach") and claims_read_alike(m, source, root) \
                and all(k < len(reaching) for k in r["red_reaching"]) and all(p < len(source.claims) for p in reaching):
            return [source.claims[reaching[k]].name for k in r["red_reaching"]]
    return names if isinstance(names, list) else []


def places_of(red, book):
    """{chapter: [place of each red claim among the chapter's claims]} for the chapters in a
    result's ``red`` ({program: [red test names]})."""
    places = {}
    for label, names in red.items():
        if label in book and isinstance(names, list):
            index = {c.name: c.index for c in book[label].claims}
            places[label] = sorted(index[n] for n in names if n in index)
    return places


def scores(ledger, cats):
    """{catalogue: {killed, survived, mutations, score}}; the score is killed among those that
    ran to a verdict (None when none did)."""
    out = {}
    for name, ms in cats.items():
        results = [ledger["mutations"].get(m["key"], {}).get("status") for m in ms]
        killed = results.count("killed")
        judged = killed + results.count("survived")
        out[name] = {"killed": killed, "survived": results.count("survived"), "mutations": len(ms),
                     "score": killed / judged if judged else None}
    return out


REGISTRY = os.path.join("lib", "litgrad", "ops", "registry.hpp")
REGISTRY_ENTRY = re.compile(r'^\s*LITGRAD_OP\((\w+), (yes|no), "((?:[^"\\]|\\.)*)"\)\s*\\?$')


def recorded_ops(root):
    """The name of every operation the library records a backward for: the entries of its table
    of operations (lib/litgrad/ops/registry.hpp), one ``LITGRAD_OP(name, twice, why)`` a line
    between ``#define LITGRAD_OPERATIONS`` and the line that ends the macro. A line there that is
    not one entry is refused, so that no entry can hide from the check."""
    path = os.path.join(root, REGISTRY)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("#define LITGRAD_OPERATIONS(")), None)
    if start is None:
        raise CatalogueError(f"{REGISTRY}: no '#define LITGRAD_OPERATIONS(' line")
    ops, i = set(), start
    while lines[i].rstrip().endswith("\\"):
        i += 1
        m = REGISTRY_ENTRY.match(lines[i])
        if not m:
            raise CatalogueError(f"{REGISTRY}:{i + 1}: not one LITGRAD_OP(name, yes|no, \"...\") entry: {lines[i]!r}")
        ops.add(m.group(1))
    return ops


def text_problem(m, root):
    """Why mutation m could not be applied to the file as it is now (its text gone or found
    twice), or None. Checked without running anything, so that an edit of a comment or of
    prose that a mutation's text includes is caught when it is made, not at the next run."""
    path = os.path.join(root, m["file"])
    if not os.path.exists(path):
        return f"stale (its file {m['file']} does not exist)"
    with open(path, encoding="utf-8") as f:
        count = f.read().count(m["find"])
    if count == 0:
        return f"stale (its text is no longer in {m['file']})"
    if count > 1:
        return f"ambiguous (its text is found {count} times in {m['file']})"
    return None


def problems(ledger, cats, book, ops, root=None):
    """What the check refuses, one line each: a mutation not run, stale, ambiguous, that does
    not compile, or that survived without a reason (and, given ``root``, one whose text is not
    found exactly once in its file as it is now); a chapter without a catalogue; a claim no
    mutation of its chapter turns red; an operation in ``ops`` whose backward no killed mutation
    names."""
    found = []
    for ms in cats.values():
        for m in ms:
            r = ledger["mutations"].get(m["key"])
            where = f"tests/mutations/{m['catalogue']}.toml: {m['name']!r}"
            now = text_problem(m, root) if root is not None else None
            if now is not None:
                found.append(f"{where}: {now}")
            elif r is None:
                found.append(f"{where}: not run yet")
            elif r["status"] in ("stale", "ambiguous", "does not compile"):
                found.append(f"{where}: {r['status']}" + (f" (its text is no longer in {m['file']})"
                                                          if r["status"] == "stale" else ""))
            elif r["status"] == "survived" and not m.get("survives"):
                found.append(f"{where}: survived, and the catalogue gives no reason (survives = \"...\")")
    for chapter, source in book.items():
        own = cats.get(chapter, [])
        if not own:
            found.append(f"tests/mutations/{chapter}.toml: the chapter has no catalogue")
        red = set()
        for m in own:
            if m["key"] in ledger["mutations"]:
                red.update(red_claims(ledger["mutations"][m["key"]], chapter, source, root, m) if root is not None
                           else ledger["mutations"][m["key"]].get("red", {}).get(chapter) or [])
        for claim in source.claims:
            if claim.name not in red:
                found.append(f"{source.path}:{claim.line}: no mutation of its catalogue turns the claim "
                             f"\"{claim.name}\" red")
    for op in sorted(ops):
        biting = [m for m in cats.get("lib", []) if op in m.get("ops", [])
                  and ledger["mutations"].get(m["key"], {}).get("status") == "killed"]
        if not biting:
            found.append(f"tests/mutations/lib.toml: no killed mutation names the backward of '{op}' "
                         f"(ops = [\"{op}\"])")
    return found


# ------------------------------------------------------------------------------------------
# The ledger on the book's pages

_cache = {}


def load(env):
    """(catalogues, ledger or None, the chapters read), read once per build."""
    root = env.srcdir
    if root not in _cache:
        ledger = load_ledger(root) if os.path.exists(ledger_path(root)) else None
        _cache[root] = (catalogues(root), ledger, chapters(root))
    return _cache[root]


def note_dependencies(env):
    if os.path.isdir(folder(env.srcdir)):
        for f in os.listdir(folder(env.srcdir)):
            env.note_dependency(os.path.join(folder(env.srcdir), f))


def rst(text):
    """Text as reST shows it literally."""
    return re.sub(r"([\\`*_|<>\[\]:])", r"\\\1", str(text))


def result(ledger, catalogue, name):
    return (ledger or {}).get("mutations", {}).get(f"{catalogue}: {name}")


def stale_files(root, catalogue, mutations, ledger):
    """The files whose code changed after this catalogue's mutations ran (``changed_files``)."""
    changed = set()
    for m in mutations:
        r = result(ledger, catalogue, m["name"]) or {}
        changed.update(changed_files(m, r, root, r.get("code", {})))
    return sorted(changed)


def claim_lines(env, chapter, claim):
    """Under a claim's verdict: the mutations of its chapter's catalogue that turned it red."""
    cats, ledger, book = load(env)
    note_dependencies(env)
    if ledger is None:
        return []
    biting = [m for m in cats.get(chapter, [])
              if claim in red_claims(result(ledger, chapter, m["name"]) or {}, chapter, book[chapter], env.srcdir,
                                     m)]
    if not biting:
        return ["", ".. container:: litgrad-unbitten", "",
                "   No catalogued mutation turns this claim red.", ""]
    names = "; ".join(f"*{rst(m['name'])}*" for m in biting)
    return ["", ".. container:: litgrad-mutation", "", f"   Turned red by: {names}.", ""]


def page_header(env):
    cats, ledger, _ = load(env)
    note_dependencies(env)
    if ledger is None or "last_run" not in ledger:
        return ["The mutation ledger has not been run (``tools/mutate``), so no claim shows the bugs that "
                "turn it red.", ""]
    run = ledger["last_run"]
    commit = run["commit"][:10] + (" with uncommitted changes" if run.get("commit_had_changes") else "")
    lines = ["**The mutation ledger.** Each claim below lists the catalogued bugs that turned it red, "
             "from ``tests/mutations/``: a mutation is a plausible mistake, applied to a copy of the "
             "book by ``tools/mutate``, which then reruns the claims and records which failed. The ledger "
             f"last ran on commit ``{commit}``, on {run['date']}. Scores, killed among the mutations "
             "that ran:", ""]
    for name, s in sorted(ledger.get("scores", {}).items(), key=lambda kv: (kv[0] != "lib", kv[0])):
        if name not in cats:
            continue
        label = "the library" if name == "lib" else f"chapter {int(name[:2])}"
        score = "not run" if s["score"] is None else f"{s['score']:.0%}"
        survived = f", {s['survived']} survived with a reason" if s["survived"] else ""
        lines.append(f"* {label}: {s['killed']} of {s['mutations']} killed{survived} ({score})")
        stale = stale_files(env.srcdir, name, cats[name], ledger)
        if stale:
            lines.append(f"  · **out of date**: {', '.join('``' + f + '``' for f in stale)} changed after these "
                         f"mutations ran")
    return lines + [""]


def chapter_lines(env, chapter):
    """On the Claims page, before a chapter's claims: its mutations, what each models, and what
    each turned red (folded), and a warning if the chapter changed after they ran."""
    cats, ledger, _ = load(env)
    mutations = cats.get(chapter, [])
    if ledger is None or not mutations:
        return []
    lines = []
    stale = stale_files(env.srcdir, chapter, mutations, ledger)
    if stale:
        lines += [".. container:: litgrad-unbitten", "",
                  f"   The ledger is out of date for this chapter: {', '.join(stale)} changed after its "
                  f"mutations ran (``tools/mutate {chapter[:2]}`` reruns them).", ""]
    lines += [".. raw:: html", "", f'   <details class="litgrad-fold"><summary>The chapter\'s {len(mutations)} '
              f'mutations, and what each turned red</summary>', ""]
    for m in mutations:
        r = result(ledger, chapter, m["name"]) or {"status": "not run"}
        red = len((r.get("red") or {}).get(chapter) or [])
        what = {"killed": f"killed: {red} claim{'s' if red != 1 else ''} red",
                "survived": f"survived: {m.get('survives', 'no reason given')}"}.get(r["status"], r["status"])
        lines += [f"* **{rst(m['name'])}** (``{m['file']}``): {rst(m['bug'])}. *{rst(what)}*"]
    lines += ["", ".. raw:: html", "", "   </details>", ""]
    return lines
