#!/usr/bin/python3
"""Turns one run of tools/bench into build/bench/results.json and a printed table of ratios.

usage: report.py BENCH_DIR     (the folder tools/bench wrote: benchmark.json, memory_*.json,
                                book_seconds.txt, build_times.json)

results.json is what the book's Performance page shows; nothing on that page is typed by hand.
"""
import json
import os
import platform
import re
import subprocess
import sys


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


def main():
    folder = sys.argv[1]
    bench = load(folder, "benchmark.json")
    # Each workload ran several times, its repetitions shuffled among all the others' (so that
    # drifts of the machine's speed hit both libraries alike); each is represented by its
    # median repetition.
    runs = {}
    for b in bench["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            runs.setdefault(b.get("run_name", b["name"]), []).append(b)
    by_name = {name: sorted(rs, key=lambda b: b["real_time"])[len(rs) // 2] for name, rs in runs.items()}
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

    results = {"machine": {"cpu": cpu_model(), "cores used": 1, "compiler": compiler(),
                           "flags": "Release (-O3), -march=native, Eigen without threads",
                           "peer": context.get("peer"), "peer BLAS": context.get("blas", "n/a"),
                           "timing": f"median of {repetitions} repetitions, shuffled among all workloads"},
               "workloads": {}}
    w = results["workloads"]

    flag, _, _ = pair("FlagStep/{}")
    flag["goal"] = "at least 10x faster than libtorch"
    flag["goal met"] = flag.get("speedup", 0) >= 10
    w["flag training step"] = flag

    gemm = by_name["EigenGemm/1024"]
    attention, ours, _ = pair("Attention/{}/128/16/128/8")
    attention["litgrad GFLOP/s"] = ours["FLOP/s"] / 1e9
    attention["Eigen GEMM GFLOP/s (1024 x 1024)"] = gemm["FLOP/s"] / 1e9
    attention["fraction of Eigen's GEMM rate"] = ours["FLOP/s"] / gemm["FLOP/s"]
    attention["FLOPs counted"] = "3 x (4 projections x 2LNE^2 + 2 products x 2NL^2E), L=128 N=16 E=128"
    attention["about the rate"] = ("the dense layer's count, credited alike to both libraries: under the causal mask "
                                   "litgrad leaves out products that the mask makes zero, so its rate is the dense "
                                   "layer's work per second, more than the arithmetic it does")
    attention["goal"] = "at most half of libtorch's time, and at least 50% of Eigen's GEMM rate"
    attention["goal met"] = attention.get("speedup", 0) >= 2 and attention["fraction of Eigen's GEMM rate"] >= 0.5
    w["MultiheadAttention forward + backward"] = attention

    sweep = []
    for name, b in by_name.items():
        m = re.match(r"Sweep/litgrad/(\d+)/4/64/4$", name)
        if m:
            row, _, _ = pair(f"Sweep/{{}}/{m.group(1)}/4/64/4")
            row["L"] = int(m.group(1))
            sweep.append(row)
    sweep.sort(key=lambda r: r["L"])
    w["length sweep"] = {"rows": sweep, "goal": "litgrad no slower than libtorch at any L",
                         "goal met": all(r.get("speedup", 0) >= 1 for r in sweep)}

    with open(os.path.join(folder, "book_seconds.txt"), encoding="utf-8") as f:
        book = [float(line) for line in f if line.strip()]
    w["the book (chapter 8's claims, one core)"] = {"seconds": min(book), "runs": book, "goal": "under 3 seconds",
                                                   "goal met": min(book) < 3}

    flag_memory, sweep_memory = load(folder, "memory_flag.json"), load(folder, "memory_sweep.json")
    samples = flag_memory["resident_kb_every_1000_steps"]
    w["memory"] = {"flag training peak MB": flag_memory["peak_kb"] / 1024,
                   "resident MB after 1,000 steps": samples[0] / 1024,
                   "resident MB after 100,000 steps": samples[-1] / 1024,
                   "growth after the first 1,000 steps, MB": (max(samples) - samples[0]) / 1024,
                   "L=1024 sweep point peak MB": sweep_memory["peak_kb"] / 1024,
                   "one attention-weight tensor at L=1024, MB": sweep_memory["attention_weights_kb"] / 1024,
                   "goal": "flat and under 50 MB while training",
                   "goal met": flag_memory["peak_kb"] < 50 * 1024 and max(samples) - samples[0] < 1024}

    build = load(folder, "build_times.json")
    w["build"] = {"clean build seconds": build["clean_seconds"], "rebuild after touching the chapter, seconds":
                  build["chapter_rebuild_seconds"], "cores": build["cores"],
                  "goal": "clean build under 3 minutes, chapter rebuild under 20 seconds",
                  "goal met": build["clean_seconds"] < 180 and build["chapter_rebuild_seconds"] < 20}

    with open(os.path.join(folder, "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)

    print(f"machine: {results['machine']['cpu']}; peer: {results['machine']['peer']}; BLAS: {results['machine']['peer BLAS']}")
    for name, row in w.items():
        if name == "length sweep":
            for r in row["rows"]:
                print(f"  sweep L={r['L']:5d}: litgrad {r['litgrad_seconds'] * 1e3:9.3f} ms   libtorch "
                      f"{r.get('libtorch_seconds', float('nan')) * 1e3:9.3f} ms   speedup {r.get('speedup', float('nan')):6.2f}x")
            print(f"  length sweep: goal {'met' if row['goal met'] else 'NOT met'}")
            continue
        shown = {k: v for k, v in row.items() if k not in ("goal", "goal met", "runs")}
        print(f"{name}: " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in shown.items()))
        print(f"  goal ({row['goal']}): {'met' if row['goal met'] else 'NOT met'}")
    print(f"results: {os.path.join(folder, 'results.json')}")


if __name__ == "__main__":
    main()
