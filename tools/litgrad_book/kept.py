"""Models one build's chapters kept, adopted by another build of the same sources.

usage: python3 -m litgrad_book.kept adopt FROM_BUILD TO_BUILD
       (tools/test runs it when LITGRAD_ADOPT_KEPT_FROM names FROM_BUILD, as .ci/run does for
       the plain room, after building TO_BUILD and before its tests)

``book::train_once`` keeps what a chapter trained beside the chapter's program, in files named
``<program>.trained-<key>-<name>-seed<k>.<kind>`` (lib/litgrad/book/trained.hpp), where the key
is the program's bytes hashed (``runner.program_key``): the state, the record (written last),
the processor seconds it took and a lock. Another build of the same chapter is another program
with another key, and trains everything again.

For every chapter program in ``TO_BUILD/chapters`` whose namesake in ``FROM_BUILD/chapters`` has
kept models under its present key, ``adopt`` copies their state and record under the key of
TO's program, so that TO's program loads them, for every seed but the first of each model (the
least k for its name), which TO's program trains itself. Why: the plain room (tools/test
--plain) runs every chapter for the book on the plain kernels, and CI compares its book with the
fast room's byte for byte. Training chapter 12's three GPTs and chapter 10's three Transformers
on the plain kernels took 785 of the room's 1,142 s of tests in CI; with the others adopted, the
first seed of each is still trained there from its start to its last step, and the book it
writes still has to match the fast room's, so each model's training is held to one set of bits
across the two rooms on one seed, and each chapter's every other claim on all of them.

Chapter 12's GPTs are adopted whole, the first seed too (``WHOLE``): training its first seed
took 212 s of the plain room's 362 s of tests in CI, and the kept long run's test
(tests/test_payoff.cpp), which the plain room runs, already holds the same model's training
there to the fast kernels' bits: book::train_payoff trains a GPT of the same blocks,
embeddings, tied read-out, clipping and AdamW for its first steps and must give the checksum
the fast kernels kept. Chapter 10's Transformer has no such test, and trains its first seed in
both rooms.

The seconds are not copied: they are the other build's processor time, and TO's run records
(``.run.json``, which holds no budget in the plain room) count only the training TO did.

Both builds must be of the same sources: the models are copied as they are, and a model trained
by other code would be loaded as if this code had trained it. So nothing is adopted unless asked
for, and CI asks only for two rooms it built from one clone.
"""
import os
import re
import shutil
import sys

from litgrad_book.runner import program_key

# Chapters whose every kept model the plain room adopts, first seeds too (the docstring says why).
WHOLE = {"12_gpt"}

KEPT = re.compile(r"(?P<program>.+)\.trained-(?P<key>[0-9a-f]{16})-(?P<name>.+)-seed(?P<seed>\d+)\.record$")


def kept_models(program, key=None):
    """``{name: [seed, ...]}`` for the models this build of ``program`` (whose key is ``key``,
    computed when not given) has kept whole (a ``.record``, written last, beside its
    ``.state``)."""
    folder, stem = os.path.split(os.path.abspath(program))
    key = key or program_key(program)
    models = {}
    for file in sorted(os.listdir(folder)):
        m = KEPT.fullmatch(file)
        if m and m["program"] == stem and m["key"] == key:
            if os.path.exists(os.path.join(folder, file[:-len(".record")] + ".state")):
                models.setdefault(m["name"], []).append(int(m["seed"]))
    return {name: sorted(seeds) for name, seeds in models.items()}


def adopt(source_program, target_program, whole=False):
    """Copies the models ``source_program`` kept, all but the first seed of each (every seed
    when ``whole``), to where ``target_program``'s train_once looks for them; returns
    ``{name: [seed, ...]}`` of those copied. A file the target already has is left as it is."""
    source_key, target_key = program_key(source_program), program_key(target_program)
    source_folder = os.path.dirname(os.path.abspath(source_program))
    target_folder = os.path.dirname(os.path.abspath(target_program))
    stem = os.path.basename(target_program)
    adopted = {}
    for name, seeds in kept_models(source_program, source_key).items():
        for seed in seeds if whole else seeds[1:]:
            for kind in (".state", ".record"):  # the record last: train_once reads it first
                tail = f"-{name}-seed{seed}{kind}"
                target = os.path.join(target_folder, f"{stem}.trained-{target_key}{tail}")
                if not os.path.exists(target):
                    shutil.copyfile(os.path.join(source_folder, f"{stem}.trained-{source_key}{tail}"), target)
            adopted.setdefault(name, []).append(seed)
    return adopted


def main(argv):
    if len(argv) != 3 or argv[0] != "adopt":
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    source_build, target_build = argv[1], argv[2]
    target_chapters = os.path.join(target_build, "chapters")
    if not os.path.isdir(os.path.join(source_build, "chapters")) or not os.path.isdir(target_chapters):
        print(f"litgrad_book.kept: {source_build}/chapters and {target_build}/chapters must both be built folders",
              file=sys.stderr)
        return 1
    for file in sorted(os.listdir(target_chapters)):
        target = os.path.join(target_chapters, file)
        source = os.path.join(source_build, "chapters", file)
        if not re.fullmatch(r"\d\d_\w+", file) or not os.path.isfile(source) or not os.access(target, os.X_OK):
            continue
        whole = file in WHOLE
        for name, seeds in adopt(source, target, whole).items():
            print(f"{file}: model {name}, seeds {', '.join(map(str, seeds))} adopted from {source_build}"
                  + ("" if whole else "; the first seed it trains itself"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
