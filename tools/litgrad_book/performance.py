"""Performance: one run of ``tools/bench`` made into ``build/bench/results.json`` and a printed
table of ratios, and the tables the book's Performance page shows of it.

usage: python3 -m litgrad_book.performance [--keep] BENCH_DIR
       (tools/bench runs it so, on the folder it wrote: benchmark.json, memory_*.json,
       book_seconds.txt, build_times.json, blas_environment.txt; with --keep it also copies
       the report to bench/last_report.json, kept in the repository)

``results.json`` holds the machine, then workloads, each with a title, a sentence of what it
is, one table in one unit, and its goal with the reason for it and what bounds it. The words
and the numbers each goal is held to are data, ``docs/performance.toml``; this module measures
each workload from the run (one small function each) and holds it to them. The Performance
page (``.. litgrad-performance::``, in ``sphinx_extension``) shows them as they are, through
``page_lines``; nothing on that page is typed by hand. A comparison's ratio is libtorch's time
divided by litgrad's. A build where tools/bench has not run shows the last report kept in the
repository (``KEPT``), with the machine, the date and the commit it measured.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import tomllib

from litgrad_book import ROOT, reader, runner


def load(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return json.load(f)


def seconds(b):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
    return b["real_time"] * scale


def cpu_model():
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def compiler():
    try:
        return subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except OSError:
        return "unknown"


GOALS = os.path.join(ROOT, "docs", "performance.toml")
KEPT = os.path.join(ROOT, "bench", "last_report.json")  # the last report `tools/bench --keep` kept


def commit():
    """The commit the run measured, "+ changes" when the work tree differs from it."""
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True).stdout.strip()
    try:
        head = git("rev-parse", "--short=12", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except OSError:
        return "unknown"
    return (head or "unknown") + (" + changes" if changed else "")


def blas_environment(folder, kernel):
    """What the run did about OpenBLAS for libtorch: what OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
    the machine had set, the probe of each candidate kernel (tools/bench writes both to
    blas_environment.txt) and the kernels that ran (``kernel``, from the benchmark's context)."""
    path = os.path.join(folder, "blas_environment.txt")
    if not os.path.exists(path):
        return f"as the machine set it; OpenBLAS's kernels: {kernel}"
    was, probes = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) == 4 and words[0] == "probe":
                asked = "OpenBLAS's own pick" if words[1] == "-" else f"OPENBLAS_CORETYPE={words[1]}"
                probes.append(f"{asked} ({words[2]}) {float(words[3]):g} ms")
            elif "=" in line and line.strip().split("=", 1)[1]:
                was.append(line.strip())
    before = "the machine had set " + ", ".join(was) if was else "the machine had set neither"
    text = f"OpenBLAS's kernels: {kernel}, libtorch's fastest"
    if probes:
        text += " in a probe of its attention layer and GPT step: " + "; ".join(probes)
    return f"{text}. OPENBLAS_L2_SIZE unset for the run ({before})"


class Run:
    """One tools/bench run: each workload by its fastest repetition, and libtorch's beside it."""

    def __init__(self, folder):
        self.folder = folder
        bench = load(folder, "benchmark.json")
        # Each workload ran several times, its repetitions shuffled among all the others' (so that
        # drifts of the machine's speed hit both libraries alike); each is represented by its
        # fastest repetition. On a shared machine a disturbed repetition is only ever slower, so
        # the fastest is the closest to the workload's own time, and the median can be a
        # disturbed one.
        runs = {}
        for b in bench["benchmarks"]:
            if b.get("run_type", "iteration") == "iteration":
                runs.setdefault(b.get("run_name", b["name"]), []).append(b)
        self.by_name = {name: min(rs, key=lambda b: b["real_time"]) for name, rs in runs.items()}
        # Threads must give the same bits in every repetition, not only in the fastest.
        self.same_bits = {name: all(b.get("same bits") == 1 for b in rs) for name, rs in runs.items()}
        self.repetitions = max(len(rs) for rs in runs.values())
        self.context = bench["context"]
        self.peer = "libtorch" if not self.context.get("peer", "").startswith("missing") else None

    def pair(self, prefix):
        """(litgrad's seconds, libtorch's or None) of the workload ``prefix`` names with {}."""
        ours = self.by_name.get(prefix.replace("{}", "litgrad"))
        theirs = self.by_name.get(prefix.replace("{}", "libtorch")) if self.peer else None
        return seconds(ours), seconds(theirs) if theirs else None

    def lengths(self, pattern):
        """The sequence lengths L of the workloads whose litgrad name ``pattern`` matches."""
        found = [int(m.group(1)) for m in (re.match(pattern, name) for name in self.by_name) if m]
        return sorted(found)


def comparison(rows, scale):
    """A comparison's table: label, litgrad's and libtorch's times in the unit, and the ratio."""
    return [[label, ours * scale, theirs * scale if theirs else None, theirs / ours if theirs else None]
            for label, ours, theirs in rows]


def faster_everywhere(table):
    return all(r[2] is None or r[2] >= r[1] for r in table)


# Each workload: measured from the run, and held to the numbers of its entry in
# docs/performance.toml, whose words the page shows. Each returns (fields, values for the words).

def flag_step(run, goal):
    table = comparison([["one step", *run.pair("FlagStep/{}")]], 1e6)
    return {"kind": "comparison", "unit": "µs", "rows": table,
            "met": (table[0][3] or 0) >= goal["at_least"]}, {}


def attention(run, goal):
    table = comparison([["forward + backward", *run.pair("Attention/{}/128/16/128/8")]], 1e3)
    return {"kind": "comparison", "unit": "ms", "rows": table, "met": (table[0][3] or 0) >= goal["at_least"]}, {}


def attention_rate(run, goal):
    ours, gemm = run.by_name["Attention/litgrad/128/16/128/8"], run.by_name["EigenGemm/1024"]
    rate = ours["FLOP/s"] / gemm["FLOP/s"]
    return {"kind": "table", "unit": "GFLOP/s", "columns": ["", "GFLOP/s"],
            "rows": [["the attention layer in litgrad", ours["FLOP/s"] / 1e9],
                     ["Eigen's 1024 × 1024 product", gemm["FLOP/s"] / 1e9],
                     ["the layer's share of Eigen's rate", f"{rate:.0%}"]],
            "met": rate >= goal["at_least"]}, {}


def sweep(run, goal):
    rows = [[f"L = {n}", *run.pair(f"Sweep/{{}}/{n}/4/64/4")] for n in run.lengths(r"Sweep/litgrad/(\d+)/4/64/4$")]
    table = comparison(rows, 1e3)
    return {"kind": "comparison", "unit": "ms", "rows": table, "met": faster_everywhere(table)}, {}


def block(run, goal):
    rows = [[f"L = {n}", *run.pair(f"Block/{{}}/{n}/16/64/4/256")]
            for n in run.lengths(r"Block/litgrad/(\d+)/16/64/4/256$")]
    if not rows:
        return None, {}
    table = comparison(rows, 1e3)
    at_64 = next((r for r in table if r[0] == "L = 64"), None)
    return {"kind": "comparison", "unit": "ms", "rows": table,
            "met": faster_everywhere(table) and at_64 is not None and at_64[2] is not None
            and at_64[2] / at_64[1] >= goal["at_least_at_64"]}, {}


def gpt(run, goal, width):
    """Chapter 12's GPT against libtorch in double (width 64) or float32 (32)."""
    rows = []
    for title, prefix in (("training step", "GPTStep"), ("decoding step", "Decode")):
        ours, theirs = run.by_name.get(f"{prefix}/litgrad"), run.by_name.get(f"{prefix}/libtorch/{width}")
        if ours:
            rows.append([title, seconds(ours), seconds(theirs) if theirs else None])
    if not rows:
        return None, {}
    table = comparison(rows, 1e3)
    return {"kind": "comparison", "unit": "ms", "rows": table,
            "met": all(r[2] is not None and r[2] >= r[1] for r in table)}, {}


def threads(run, goal):
    rows = []
    for label, one_name, two_name in (("the block at L = 64", "Block/litgrad/64/16/64/4/256",
                                       "BlockThreads/litgrad/64/16/64/4/256"),
                                      ("the block at L = 256", "Block/litgrad/256/16/64/4/256",
                                       "BlockThreads/litgrad/256/16/64/4/256"),
                                      ("chapter 12's GPT step", "GPTStep/litgrad", "GPTStepThreads/litgrad")):
        one, two = run.by_name.get(one_name), run.by_name.get(two_name)
        if one and two:
            rows.append([label, seconds(one) * 1e3, seconds(two) * 1e3, seconds(one) / seconds(two),
                         "yes" if run.same_bits[two_name] else "NO"])
    if not rows:
        return None, {}
    return {"kind": "table", "unit": "ms",
            "columns": ["", "one thread (ms)", "two threads (ms)", "speed-up", "same bits"], "rows": rows,
            "met": all(r[4] == "yes" for r in rows)
            and all(r[3] >= goal["at_least"] for r in rows if r[0] != "the block at L = 64")}, {}


def book(run, goal):
    runs = {}  # chapter -> its runs' seconds
    with open(os.path.join(run.folder, "book_seconds.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                chapter, seconds_taken = line.split()
                runs.setdefault(chapter, []).append(float(seconds_taken))
    # The models a chapter's claims share are trained once and kept (book::train_once); the
    # runs above load them, so the seconds their training took are added back.
    programs = {c: os.path.join(run.folder, os.pardir, "chapters", c) for c in runs}
    kept = {c: runner.trained_earlier_seconds(p) if os.path.exists(p) else 0.0 for c, p in programs.items()}
    seconds_of = {c: min(times) + kept[c] for c, times in runs.items()}
    total = sum(seconds_of.values())
    slowest = max(runs, key=lambda c: seconds_of[c])
    budget = {c: reader.budget_seconds(reader.read(os.path.join(ROOT, "chapters", c + ".cpp")))[0] for c in runs}
    return {"kind": "table", "unit": "s", "columns": ["", "seconds", "of which training kept earlier"],
            "rows": [[f"chapter {int(c[:2])}", seconds_of[c], kept[c]] for c in sorted(runs)]
            + [["all chapters", total, sum(kept.values())]],
            "met": all(seconds_of[c] < budget[c] for c in runs) and total < goal["total_under"]}, \
        {"slowest": int(slowest[:2]), "slowest_seconds": seconds_of[slowest], "total": total, "kept": kept[slowest]}


def memory(run, goal):
    flag, layer = load(run.folder, "memory_flag.json"), load(run.folder, "memory_sweep.json")
    samples = flag["resident_kb_every_1000_steps"]
    growth = (max(samples) - samples[0]) / 1024
    return {"kind": "table", "unit": "MB", "columns": ["", "MB"],
            "rows": [["training: peak", flag["peak_kb"] / 1024],
                     ["training: after 1,000 steps", samples[0] / 1024],
                     ["training: after 100,000 steps", samples[-1] / 1024],
                     ["training: growth after the first 1,000 steps", growth],
                     ["the layer at L = 1024: peak", layer["peak_kb"] / 1024],
                     ["one attention-weight tensor at L = 1024", layer["attention_weights_kb"] / 1024]],
            "met": flag["peak_kb"] < goal["peak_mb_under"] * 1024 and growth < goal["growth_mb_under"]}, {}


def building(run, goal):
    build = load(run.folder, "build_times.json")
    return {"kind": "table", "unit": "s", "columns": ["", "seconds"],
            "rows": [["clean build", build["clean_seconds"]],
                     ["after touching chapter 8", build["chapter_rebuild_seconds"]]],
            "met": build["clean_seconds"] < goal["clean_under"]
            and build["chapter_rebuild_seconds"] < goal["chapter_under"]}, {"cores": build["cores"]}


MEASURES = {"flag_step": flag_step, "attention": attention, "attention_rate": attention_rate, "sweep": sweep,
            "block": block, "gpt_double": lambda run, goal: gpt(run, goal, 64),
            "gpt_float32": lambda run, goal: gpt(run, goal, 32), "threads": threads,
            "book": book, "memory": memory, "building": building}


def workloads(run, goals):
    """Every workload of ``goals`` (docs/performance.toml, in its order) that the run measured:
    its words, with the measured numbers put in, and its table and verdict."""
    found = []
    for name, goal in goals.items():
        fields, values = MEASURES[name](run, goal)
        if fields is None:
            continue
        words = {k: goal[k].format(**values) for k in ("title", "about", "goal", "why", "bound")}
        found.append({"title": words["title"], "about": words["about"], "unit": fields["unit"],
                      "kind": fields["kind"], **({"columns": fields["columns"]} if "columns" in fields else {}),
                      "rows": fields["rows"], "goal": words["goal"], "why": words["why"], "met": fields["met"],
                      "bound": words["bound"]})
    return found


def write_report(folder, keep=False):
    """Reads the run in ``folder``, writes ``folder/results.json`` and prints the ratios; with
    ``keep``, copies the report to ``KEPT`` as well."""
    run = Run(folder)
    with open(GOALS, "rb") as f:
        goals = tomllib.load(f)
    machine = [["machine", platform.node()], ["processor", cpu_model()],
               ["cores used", "1 (one thread in both libraries), but 2 for the two-thread table"],
               ["compiler", compiler()], ["litgrad's build", "Release (-O3), -march=native, Eigen without threads"],
               ["libtorch", run.context.get("peer")], ["libtorch's BLAS", run.context.get("blas", "n/a")],
               ["OpenBLAS's settings", blas_environment(folder, run.context.get("blas_kernel", "n/a"))],
               ["timing", f"the fastest of {run.repetitions} repetitions, shuffled among all workloads"],
               ["date", run.context.get("date", "unknown")], ["commit", commit()]]
    results = {"machine": machine, "workloads": workloads(run, goals)}
    text = json.dumps(results, indent=1)
    with open(os.path.join(folder, "results.json"), "w", encoding="utf-8") as f:
        f.write(text)
    if keep:
        with open(KEPT, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    about = dict(machine)
    blas = about["libtorch's BLAS"]
    print(f"machine: {about['machine']}, {about['processor']}; {about['libtorch']}; BLAS: {blas}")
    for w in results["workloads"]:
        print(f"{w['title']} ({w['unit']}):")
        for row in w["rows"]:
            print("  " + "   ".join(str(v) if not isinstance(v, float) else f"{v:.4g}" for v in row if v is not None))
        print(f"  goal ({w['goal']}): {'met' if w['met'] else 'NOT met'}")
    print(f"results: {os.path.join(folder, 'results.json')}" + (f", kept in {KEPT}" if keep else ""))


# ------------------------------------------------------------------------------------------
# The Performance page


def number(v, unit=""):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    return f"{v:.3g}" if abs(v) < 100 else f"{v:,.0f}"


def comparison_table(w):
    unit = w["unit"]
    lines = [".. list-table::", "   :header-rows: 1", "   :class: litgrad-numbers", "",
             "   * - ", f"     - litgrad ({unit})", f"     - libtorch ({unit})", "     - litgrad's speed-up"]
    for label, ours, theirs, ratio in w["rows"]:
        lines += [f"   * - {label}", f"     - {number(ours)}", f"     - {number(theirs)}",
                  f"     - {number(ratio)}×" if ratio else "     - —"]
    return lines


def plain_table(w):
    lines = [".. list-table::", "   :header-rows: 1", "   :class: litgrad-numbers", "",
             f"   * - {w['columns'][0] or ' '}"] + [f"     - {c}" for c in w["columns"][1:]]
    for row in w["rows"]:
        lines += [f"   * - {row[0]}"] + [f"     - {number(v)}" for v in row[1:]]
    return lines


def sweep_description(w):
    """The figure of the length sweep, as a figure description ``figures`` draws."""
    lengths = [int(r[0].split("=")[1]) for r in w["rows"]]
    series = [{"label": "litgrad", "x": lengths, "y": [r[1] for r in w["rows"]]}]
    if all(r[2] is not None for r in w["rows"]):
        series.append({"label": "libtorch", "x": lengths, "y": [r[2] for r in w["rows"]]})
    return {"kind": "lines", "xlabel": "sequence length L", "ylabel": "forward + backward (ms)",
            "log_y": True, "log_x": True, "series": series}


SWEEP_CAPTION = ["Time of one forward and backward pass against sequence length, both axes logarithmic. The",
                 "curves bend upward as the part that grows like L² takes over from the part that grows like L."]


def page_lines(results, sweep_figure, kept=False):
    """The Performance page's reST for ``results`` (results.json as read, or None when no
    benchmark ran); ``sweep_figure(workload)`` returns the reST of the sweep's figure. ``kept``:
    the results are the report kept in the repository, not this build's run."""
    if results is None:
        return [".. note::", "", "   No benchmark has been run in this build. Run ``tools/bench``, then rebuild",
                "   the book (``tools/book``); this page then shows that run's numbers.", ""]
    if isinstance(results.get("workloads"), dict):
        return [".. note::", "", "   The last ``tools/bench`` ran before this page's format changed;",
                "   run it again to show its numbers here.", ""]
    lines = []
    if kept:
        about = dict(results["machine"])
        lines += [".. note::", "",
                  "   ``tools/bench`` has not run in this build, so these are the numbers of the last full run",
                  f"   kept in the repository (``bench/last_report.json``): on {about.get('machine', 'an unnamed machine')}, "
                  f"{about.get('date', 'on an unknown date')},",
                  f"   at commit ``{about.get('commit', 'unknown')}``. To measure this machine, run ``tools/bench``, "
                  "then ``tools/book``.", ""]
    lines += ["The machine of the last ``tools/bench``:", ""]
    lines += [f"* **{k}**: ``{v}``" if k in ("compiler", "libtorch's BLAS") else f"* **{k}**: {v}"
              for k, v in results["machine"]] + [""]
    for w in results["workloads"]:
        verdict = "**met**" if w["met"] else "**not met**"
        lines += [w["title"], "-" * (len(w["title"]) + 4), "", w["about"], ""]
        lines += comparison_table(w) if w["kind"] == "comparison" else plain_table(w)
        lines += ["", f"**Goal:** {w['goal']} ({verdict}). {w['why']}", ""]
        if not w["met"] and w.get("bound"):
            lines += [f"**What bounds it:** {w['bound']}", ""]
        if w["title"].startswith("The same layer at every"):
            lines += sweep_figure(w)
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python3 -m litgrad_book.performance", description=__doc__.strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help=f"also keep the report in the repository ({KEPT})")
    parser.add_argument("bench_dir", help="the folder tools/bench wrote")
    arguments = parser.parse_args()
    write_report(arguments.bench_dir, keep=arguments.keep)
