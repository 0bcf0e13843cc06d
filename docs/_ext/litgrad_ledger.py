"""The mutation ledger on the book's pages: which catalogued bug turns each claim red.

``tools/mutate`` applies each mutation of ``tests/mutations/*.toml`` (a plausible bug: a file,
its exact text and replacement, a sentence saying what bug it models) in a scratch copy, reruns
the claims, and records in ``tests/mutations/ledger.json`` which tests went red, with the commit
and the content of the files each result depends on. This module shows it: under each claim's
verdict, the mutations that turned it red (or a mark that none does); on the Claims page, the
ledger's commit, the scores, every chapter's mutations with what they model, and a warning
where a file changed after its mutations ran.
"""
import hashlib
import json
import os
import re
import tomllib

_cache = {}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load(env):
    """(catalogues {name: [mutation]}, ledger or None), read once per build."""
    root = env.srcdir
    if root in _cache:
        return _cache[root]
    folder = os.path.join(root, "tests", "mutations")
    catalogues = {}
    if os.path.isdir(folder):
        for f in sorted(os.listdir(folder)):
            if f.endswith(".toml"):
                with open(os.path.join(folder, f), "rb") as handle:
                    catalogues[f[:-5]] = tomllib.load(handle).get("mutation", [])
    ledger = None
    path = os.path.join(folder, "ledger.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            ledger = json.load(handle)
    _cache[root] = (catalogues, ledger)
    return _cache[root]


def note_dependencies(env):
    folder = os.path.join(env.srcdir, "tests", "mutations")
    if os.path.isdir(folder):
        for f in os.listdir(folder):
            env.note_dependency(os.path.join(folder, f))


def rst(text):
    """Text as reST shows it literally."""
    return re.sub(r"([\\`*_|<>\[\]:])", r"\\\1", str(text))


def result(ledger, catalogue, name):
    return (ledger or {}).get("mutations", {}).get(f"{catalogue}: {name}")


def stale_files(env, catalogue, mutations, ledger):
    """The files whose content changed after this catalogue's mutations ran."""
    changed = set()
    for m in mutations:
        r = result(ledger, catalogue, m["name"])
        for f, h in (r or {}).get("depends", {}).items():
            path = os.path.join(env.srcdir, f)
            if not os.path.exists(path) or sha256(path) != h:
                changed.add(f)
    return sorted(changed)


def claim_lines(env, chapter, claim):
    """Under a claim's verdict: the mutations of its chapter's catalogue that turned it red."""
    catalogues, ledger = load(env)
    note_dependencies(env)
    if ledger is None:
        return []
    biting = [m for m in catalogues.get(chapter, [])
              if claim in ((result(ledger, chapter, m["name"]) or {}).get("red", {}).get(chapter) or [])]
    if not biting:
        return ["", ".. container:: litgrad-unbitten", "",
                "   No catalogued mutation turns this claim red.", ""]
    names = "; ".join(f"*{rst(m['name'])}*" for m in biting)
    return ["", ".. container:: litgrad-mutation", "", f"   Turned red by: {names}.", ""]


def page_header(env):
    catalogues, ledger = load(env)
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
        if name not in catalogues:
            continue
        label = "the library" if name == "lib" else f"chapter {int(name[:2])}"
        score = "not run" if s["score"] is None else f"{s['score']:.0%}"
        survived = f", {s['survived']} survived with a reason" if s["survived"] else ""
        lines.append(f"* {label}: {s['killed']} of {s['mutations']} killed{survived} ({score})")
        stale = stale_files(env, name, catalogues[name], ledger)
        if stale:
            lines.append(f"  · **out of date**: {', '.join('``' + f + '``' for f in stale)} changed after these "
                         f"mutations ran")
    return lines + [""]


def chapter_lines(env, chapter):
    """On the Claims page, before a chapter's claims: its mutations, what each models, and what
    each turned red (folded), and a warning if the chapter changed after they ran."""
    catalogues, ledger = load(env)
    mutations = catalogues.get(chapter, [])
    if ledger is None or not mutations:
        return []
    lines = []
    stale = stale_files(env, chapter, mutations, ledger)
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
