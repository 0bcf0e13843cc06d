"""Performance: one run of ``tools/bench`` made into ``build/bench/results.json`` and a printed
table of ratios, and the tables the book's Performance page shows of it.

usage: python3 -m litgrad_book.performance BENCH_DIR
       (tools/bench runs it so, on the folder it wrote: benchmark.json, memory_*.json,
       book_seconds.txt, build_times.json)

``results.json`` holds the machine, then workloads, each with a title, a sentence of what it
is, one table in one unit, and its goal with the reason for it. The Performance page
(``.. litgrad-performance::``, in ``sphinx_extension``) shows them as they are, through
``page_lines``; nothing on that page is typed by hand. A comparison's ratio is libtorch's time
divided by litgrad's.
"""
import argparse
import json
import os
import platform
import re
import subprocess

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


def write_report(folder):
    """Reads the run in ``folder``, writes ``folder/results.json`` and prints the ratios."""
    bench = load(folder, "benchmark.json")
    # Each workload ran several times, its repetitions shuffled among all the others' (so that
    # drifts of the machine's speed hit both libraries alike); each is represented by its
    # fastest repetition. On a shared machine a disturbed repetition is only ever slower (one
    # run here: the block at L = 256 took 74, 75, 161, 261 and 380 ms), so the fastest is the
    # closest to the workload's own time, and the median can be a disturbed one.
    runs = {}
    for b in bench["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            runs.setdefault(b.get("run_name", b["name"]), []).append(b)
    by_name = {name: min(rs, key=lambda b: b["real_time"]) for name, rs in runs.items()}
    # Threads must give the same bits in every repetition, not only in the fastest.
    same_bits = {name: all(b.get("same bits") == 1 for b in rs) for name, rs in runs.items()}
    repetitions = max(len(rs) for rs in runs.values())
    context = bench["context"]
    peer = "libtorch" if not context.get("peer", "").startswith("missing") else None

    def pair(prefix):
        ours = by_name.get(prefix.replace("{}", "litgrad"))
        theirs = by_name.get(prefix.replace("{}", "libtorch")) if peer else None
        row = {"litgrad_seconds": seconds(ours)}
        if theirs:
            row["libtorch_seconds"] = seconds(theirs)
            row["speedup"] = seconds(theirs) / seconds(ours)  # > 1: litgrad faster
        return row, ours, theirs

    # results.json: what the Performance page shows, in the words a learner needs. Each workload
    # has a title, a sentence of what it is, one table in one unit, and its goal with why.
    machine = [["processor", cpu_model()], ["cores used", "1 (one thread in both libraries), but 2 for the two-thread table"],
               ["compiler", compiler()], ["litgrad's build", "Release (-O3), -march=native, Eigen without threads"],
               ["libtorch", context.get("peer")], ["libtorch's BLAS", context.get("blas", "n/a")],
               ["timing", f"the fastest of {repetitions} repetitions, shuffled among all workloads"]]
    workloads = []

    # bound: what limits the workload when its goal is not met, which the page then says; every
    # goal has one, so that a goal this machine misses is never left unexplained.
    def compare(title, about, unit, scale, rows, goal, why, met, bound):
        table = [[label, ours * scale, theirs * scale if theirs else None, theirs / ours if theirs else None]
                 for label, ours, theirs in rows]
        workloads.append({"title": title, "about": about, "unit": unit, "kind": "comparison", "rows": table,
                          "goal": goal, "why": why, "met": met, "bound": bound})

    flag, _, _ = pair("FlagStep/{}")
    compare("One training step of the flag model",
            "The learned-query model of :doc:`chapter 8 </chapters/08_attention>`, section 2, taking one "
            "step on the flag task: the forward pass on a batch of 64 examples of eight tokens, the mean "
            "squared error, the backward pass and one Adam update.",
            "µs", 1e6, [["one step", flag["litgrad_seconds"], flag.get("libtorch_seconds")]],
            "at least 10 times faster than libtorch",
            "A model this small costs a general framework more in bookkeeping than in arithmetic. "
            "litgrad keeps its bookkeeping small so that every chapter can retrain its models on every "
            "build; a factor of ten is the difference that makes that cheap.",
            flag.get("speedup", 0) >= 10,
            "The step's arithmetic is some tens of thousands of multiply-adds, microseconds of a core; most "
            "of its time is making tensors and recording each operation for the backward pass, which is "
            "what would have to shrink.")

    gemm = by_name["EigenGemm/1024"]
    attention, ours, _ = pair("Attention/{}/128/16/128/8")
    rate = ours["FLOP/s"] / gemm["FLOP/s"]
    compare("A multi-head attention layer, forward and backward",
            "One ``nn::MultiheadAttention`` layer (the layer of :doc:`chapter 8 </chapters/08_attention>`, "
            "section 3) on 16 sequences of 128 tokens of width 128, with 8 heads and the causal mask: the "
            "forward pass, then the backward pass of a loss that sums the output.",
            "ms", 1e3, [["forward + backward", attention["litgrad_seconds"], attention.get("libtorch_seconds")]],
            "at most half of libtorch's time",
            "At this size the work is matrix products, which both libraries hand to fast kernels; what "
            "remains is how little each adds around them.",
            attention.get("speedup", 0) >= 2,
            "Both libraries run the products at rates near the machine's (the next table), so the "
            "ratio is bounded by how much of libtorch's time is spent outside them.")
    workloads.append({"title": "How much of the machine's arithmetic that layer uses", "kind": "table",
                      "about": "Billions of floating-point operations per second: the layer's (counting the "
                               "dense layer's work, 3 × (4 projections × 2LNE² + 2 products × 2NL²E), "
                               "although litgrad skips the products the causal mask makes zero) against "
                               "Eigen's own product of two 1024 × 1024 matrices, the fastest this machine "
                               "multiplies.",
                      "unit": "GFLOP/s", "columns": ["", "GFLOP/s"],
                      "rows": [["the attention layer in litgrad", ours["FLOP/s"] / 1e9],
                               ["Eigen's 1024 × 1024 product", gemm["FLOP/s"] / 1e9],
                               ["the layer's share of Eigen's rate", f"{rate:.0%}"]],
                      "goal": "at least 50% of Eigen's rate",
                      "why": "A layer made of products cannot beat the product it is made of; half of it "
                             "means little time is lost between the products.",
                      "met": rate >= 0.5,
                      "bound": "The layer's time outside its products (the softmax forward and backward over "
                               "every row of scores, the mask, the copies that split and join the heads, "
                               "autograd's records), which moves far fewer numbers per second than a product."})

    sweep = []
    for name, b in by_name.items():
        m = re.match(r"Sweep/litgrad/(\d+)/4/64/4$", name)
        if m:
            row, _, _ = pair(f"Sweep/{{}}/{m.group(1)}/4/64/4")
            sweep.append([f"L = {m.group(1)}", row["litgrad_seconds"], row.get("libtorch_seconds")])
    sweep.sort(key=lambda r: int(r[0][4:]))
    compare("The same layer at every sequence length",
            "The attention layer on 4 sequences of width 64 with 4 heads, for sequence lengths L from 16 to "
            "1024: the projections grow like L, the attention itself like L².",
            "ms", 1e3, sweep, "litgrad no slower than libtorch at any length",
            "A reader should never be better off switching libraries because a sequence got longer.",
            all(r[2] is None or r[2] >= r[1] for r in sweep),
            "Where the two are closest, the products (which both libraries run near the machine's rate) are "
            "not most of litgrad's time; the rest is the work on the L × L attention weights, which "
            "grows like L² (the softmax forward and backward over every row, the mask, clearing the "
            "weights' buffers), done by litgrad's own loops.")

    book = {}  # chapter -> its runs' seconds
    block_rows = []
    for name, b in by_name.items():
        m = re.match(r"Block/litgrad/(\d+)/16/64/4/256$", name)
        if m:
            row, _, _ = pair(f"Block/{{}}/{m.group(1)}/16/64/4/256")
            block_rows.append([f"L = {m.group(1)}", row["litgrad_seconds"], row.get("libtorch_seconds")])
    block_rows.sort(key=lambda r: int(r[0][4:]))
    if block_rows:
        at_64 = next((r for r in block_rows if r[0] == "L = 64"), None)
        compare("A Transformer block, forward and backward",
                "One pre-norm ``nn::TransformerEncoderLayer`` (the block of chapter 9) on 16 sequences of width 64 "
                "with 4 heads, a feed-forward network of width 256 and the causal mask, for sequence lengths L from "
                "16 to 256; libtorch's side is the same block built from its modules, since its C++ "
                "TransformerEncoderLayer has no pre-norm option.",
                "ms", 1e3, block_rows, "no slower than libtorch at any length, and at least twice as fast at L = 64",
                "The block is what chapters 9 and 10 train: a reader's experiments with it should not be faster in "
                "the framework they would use next.",
                all(r[2] is None or r[2] >= r[1] for r in block_rows) and at_64 is not None
                and at_64[2] is not None and at_64[2] / at_64[1] >= 2,
                "At L = 64 the block's products are small (1,024 rows of width 64 or 256), so the work "
                "around them (layer norm, softmax, the copies that transposes and reshapes make, "
                "autograd's records) takes as long as the arithmetic; litgrad's share of that is what "
                "bounds the ratio there.")

    gpt_rows, float_rows = [], []
    for title, prefix in (("training step", "GPTStep"), ("decoding step", "Decode")):
        ours = by_name.get(f"{prefix}/litgrad")
        double, single = by_name.get(f"{prefix}/libtorch/64"), by_name.get(f"{prefix}/libtorch/32")
        if ours:
            gpt_rows.append([title, seconds(ours), seconds(double) if double else None])
            float_rows.append([title, seconds(ours), seconds(single) if single else None])
    if gpt_rows:
        about = ("Chapter 12's GPT (V = 1,024 tokens, width 64, 4 heads, 2 pre-norm blocks, the read-out tied "
                 "to the embedding): a training step on 16 windows of 32 tokens (forward, cross-entropy, "
                 "backward, one AdamW step), and one step of writing with a KV cache (one token after 31 "
                 "cached, through both blocks to its 1,024 scores). libtorch's side is the same model built "
                 "from its modules, with the keys and values cached by its own operations")
        compare("Chapter 12's GPT, against libtorch in double", about + ".", "ms", 1e3, gpt_rows,
                "faster than libtorch in double",
                "The chapter trains this model on every build; the same arithmetic in the framework a reader "
                "would move to should not be cheaper.",
                all(r[2] is not None and r[2] >= r[1] for r in gpt_rows),
                "Exponentials: the cross-entropy over the 1,024 scores of every token, the softmax and "
                "the GELU, each number's exp (or erf) computed on its own by the C library (the same "
                "bits wherever that library is), and the cross-entropy's log-softmax by the plain "
                "room's loop; libtorch computes them several to an instruction. In litgrad's training step "
                "they take a large share of the time, beside products that both libraries run near the "
                "machine's rate.")
        compare("Chapter 12's GPT, against libtorch in float32",
                about + ", in float32: libtorch's default, what a torch user runs; litgrad stays in double.",
                "ms", 1e3, float_rows, "at least as fast as libtorch in float32, on one thread",
                "Single precision halves the bytes and doubles the numbers a SIMD instruction holds; matching "
                "it in double means litgrad loses nothing by keeping every bit a learner can check.",
                all(r[2] is not None and r[2] >= r[1] for r in float_rows),
                "A core multiplies float32 numbers at twice the rate of doubles (twice as many to a SIMD "
                "register), and libtorch's float32 cross-entropy, softmax and optimiser are vectorised "
                "at that width too. litgrad stays in double, the book's decision, so to match float32 it "
                "must win back the products' factor of two in the work around them. The decoding step, "
                "whose time is bookkeeping more than arithmetic, can meet it.")

    thread_rows = []
    for label, one_name, two_name in (("the block at L = 64", "Block/litgrad/64/16/64/4/256",
                                       "BlockThreads/litgrad/64/16/64/4/256"),
                                      ("the block at L = 256", "Block/litgrad/256/16/64/4/256",
                                       "BlockThreads/litgrad/256/16/64/4/256"),
                                      ("chapter 12's GPT step", "GPTStep/litgrad", "GPTStepThreads/litgrad")):
        one, two = by_name.get(one_name), by_name.get(two_name)
        if one and two:
            thread_rows.append([label, seconds(one) * 1e3, seconds(two) * 1e3, seconds(one) / seconds(two),
                                "yes" if same_bits[two_name] else "NO"])
    if thread_rows:
        workloads.append({"title": "Two threads", "kind": "table",
                          "about": "The block and the GPT step on two threads (lib/litgrad/core/threads.hpp) against one, "
                                   "with whether a step on two threads gave the bits of a step on one (the block: "
                                   "the input's gradient; the GPT: three steps' losses and every parameter after "
                                   "them). Threads split the outputs of products, attention, softmax and "
                                   "elementwise loops, never a sum.",
                          "unit": "ms", "columns": ["", "one thread (ms)", "two threads (ms)", "speed-up",
                                                    "same bits"],
                          "rows": thread_rows,
                          "goal": "at least 1.7 times the speed of one thread for the block at L = 256 and the GPT "
                                  "step, with the same bits",
                          "why": "A reader's machine has several cores; using them must not cost the book its "
                                 "promise that every run gives the same bits.",
                          "bound": "What stays on one thread bounds the speed-up (Amdahl's law: with a share s "
                                   "of the step on one thread, two threads give at most 1/(s + (1 − s)/2)): "
                                   "layer norm, the copies that transposes make, the cross-entropy, the "
                                   "optimiser's step and autograd's records, and the hand-offs between "
                                   "threads, which cost most where the products are small (the GPT's are a "
                                   "few million multiply-adds each).",
                          "met": all(r[4] == "yes" for r in thread_rows)
                          and all(r[3] >= 1.7 for r in thread_rows if r[0] != "the block at L = 64")})

    with open(os.path.join(folder, "book_seconds.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                chapter, seconds_taken = line.split()
                book.setdefault(chapter, []).append(float(seconds_taken))
    # The models a chapter's claims share are trained once and kept (book::train_once); the
    # runs above load them, so the seconds their training took are added back.
    programs = {c: os.path.join(folder, os.pardir, "chapters", c) for c in book}
    kept = {c: runner.trained_earlier_seconds(p) if os.path.exists(p) else 0.0 for c, p in programs.items()}
    seconds_of = {c: min(runs) + kept[c] for c, runs in book.items()}
    total = sum(seconds_of.values())
    slowest = max(book, key=lambda c: seconds_of[c])
    budget = {c: reader.budget_seconds(reader.read(os.path.join(ROOT, "chapters", c + ".cpp")))[0]
              for c in book}
    workloads.append({"title": "The book's claims", "kind": "table",
                      "about": "Every chapter's claims run in one process on one core, three times each; "
                               "the fastest run of each is shown, with the processor time of the models "
                               "its claims share and trained once, earlier, for every run after "
                               "(``book::train_once``).",
                      "unit": "s", "columns": ["", "seconds", "of which training kept earlier"],
                      "rows": [[f"chapter {int(c[:2])}", seconds_of[c], kept[c]] for c in sorted(book)]
                              + [["all chapters", total, sum(kept.values())]],
                      "goal": "every chapter within its budget (10 seconds, or more for a chapter that "
                              "says why: up to 60 a seed for chapter 12's GPT), and the whole "
                              "book under five minutes",
                      "why": "The claims run on every build and in every test run; a book that proves "
                             "itself in seconds gets proved often.",
                      "met": all(seconds_of[c] < budget[c] for c in book) and total < 300,
                      "bound": f"The slowest chapter, chapter {int(slowest[:2])}, took "
                               f"{seconds_of[slowest]:.0f} of the book's {total:.0f} seconds in this run, "
                               f"{kept[slowest]:.0f} of them training on one core the models its claims "
                               "share, trained once and kept. A budget is seconds of the machine the "
                               "book is proved on: the chapter runner lets it grow by how much slower "
                               "than that machine this one runs a fixed piece of work "
                               "(tools/litgrad_book/calibration.cpp), and this table does not."})

    flag_memory, sweep_memory = load(folder, "memory_flag.json"), load(folder, "memory_sweep.json")
    samples = flag_memory["resident_kb_every_1000_steps"]
    growth = (max(samples) - samples[0]) / 1024
    workloads.append({"title": "Memory", "kind": "table",
                      "about": "The flag model trained for 100,000 steps, its resident memory read every "
                               "1,000 steps; and one forward and backward pass of the sweep's layer at "
                               "L = 1024, whose attention weights alone are L² numbers per head and sequence.",
                      "unit": "MB", "columns": ["", "MB"],
                      "rows": [["training: peak", flag_memory["peak_kb"] / 1024],
                               ["training: after 1,000 steps", samples[0] / 1024],
                               ["training: after 100,000 steps", samples[-1] / 1024],
                               ["training: growth after the first 1,000 steps", growth],
                               ["the layer at L = 1024: peak", sweep_memory["peak_kb"] / 1024],
                               ["one attention-weight tensor at L = 1024", sweep_memory["attention_weights_kb"] / 1024]],
                      "goal": "flat, and under 50 MB while training",
                      "why": "Memory that grows with the number of steps is a leak: a longer run would "
                             "eventually fail.",
                      "met": flag_memory["peak_kb"] < 50 * 1024 and growth < 1,
                      "bound": "Not a bound but a fault: memory that grows with the steps is something "
                               "each step leaves held (a graph, a saved tensor, a block the kernels' "
                               "allocator never hands back); bench/memory.cpp is where to look for it."})

    build = load(folder, "build_times.json")
    workloads.append({"title": "Building", "kind": "table",
                      "about": f"A clean build of the library, the tests and the chapters on {build['cores']} "
                               f"cores, and the rebuild after touching chapter 8.",
                      "unit": "s", "columns": ["", "seconds"],
                      "rows": [["clean build", build["clean_seconds"]],
                               ["after touching chapter 8", build["chapter_rebuild_seconds"]]],
                      "goal": "a clean build under 3 minutes, a chapter rebuilt in under 20 seconds",
                      "why": "An author changes a sentence or a test and wants the claim checked again "
                             "while the thought is fresh.",
                      "met": build["clean_seconds"] < 180 and build["chapter_rebuild_seconds"] < 20,
                      "bound": "Most of the programs a clean build compiles are the exercises': each "
                               "exercise's starter, solution and tests, and one program for every mistake "
                               "its tests must catch, each compiled on its own against the library."})
    results = {"machine": machine, "workloads": workloads}

    with open(os.path.join(folder, "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)

    print(f"machine: {machine[0][1]}; {machine[4][1]}; BLAS: {machine[5][1]}")
    for w in workloads:
        print(f"{w['title']} ({w['unit']}):")
        for row in w["rows"]:
            print("  " + "   ".join(str(v) if not isinstance(v, float) else f"{v:.4g}" for v in row if v is not None))
        print(f"  goal ({w['goal']}): {'met' if w['met'] else 'NOT met'}")
    print(f"results: {os.path.join(folder, 'results.json')}")


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


def page_lines(results, sweep_figure):
    """The Performance page's reST for ``results`` (results.json as read, or None when no
    benchmark ran); ``sweep_figure(workload)`` returns the reST of the sweep's figure."""
    if results is None:
        return [".. note::", "", "   No benchmark has been run in this build. Run ``tools/bench``, then rebuild",
                "   the book (``tools/book``); this page then shows that run's numbers.", ""]
    if isinstance(results.get("workloads"), dict):
        return [".. note::", "", "   The last ``tools/bench`` ran before this page's format changed;",
                "   run it again to show its numbers here.", ""]
    lines = ["The machine of the last ``tools/bench``:", ""]
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
    parser.add_argument("bench_dir", help="the folder tools/bench wrote")
    write_report(parser.parse_args().bench_dir)
