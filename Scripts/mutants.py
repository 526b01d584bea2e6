#!/usr/bin/env python3
"""make mutants: every known bug of the engine, the launch code and the stores, put back in a scratch copy of the
package, must be caught by the simulator alone within 300 seeds, by an invariant that should catch it.

The shipped code holds no switch that selects a known-wrong behaviour (issue 25). Each known bug is a source patch in
Mutants/NAME.patch over the clean code, with a header:

    Mutant: NAME
    Caught-by: 3 4          the invariants (numbers, Simulator/SimulationResult.swift) that may catch it
    What: one line on what the bug does and where it came from
    Pinned-by: FILTER       optional: the `swift test --filter` of a scenario test that must fail on the mutant
    Engine: cksyncengine    optional: a bug of the demo app's mirror (Sources/PartitionMirror), hunted by the
                            delegate sweep (`simulate --engine cksyncengine`), each seed under three step mixes (the
                            even one, `--swarm`, then `--swarm --no-outages`), then by the app simulator over the
                            delegate's build (`simulate --build cksyncengine`); its Caught-by then names the sweep's
                            invariants (DelegateSweepFailure.Invariant: noLostWrites, purgedStaysDeleted, ...) and
                            the app simulator's, by number

A mutant with `Pinned-by:` that the simulator does not catch within the seeds is run against that scenario test in
the scratch copy; if the test fails on it, the run goes on and says "PINNED ONLY" (a finding: the simulator no
longer reaches the path); if the test passes too, the mutant fails the run like any other.

`--check` (run by `make test`) proves, in a second, that every patch still applies to the tree as it is, that each
header is whole, and that each patch touches only library sources: a patch that no longer applies fails CI at once.
Without `--check`, for each mutant: the patch is applied to a scratch copy (.build/mutants/tree, kept between runs so
that builds are incremental), the CLI is built there, and seeds 0, 1, 2, ... run one by one until one fails by an
invariant the header names. A seed that fails the clean build too proves nothing and is passed over, as is a seed
where the mutant only turned the path into a failure of another kind (printed). The patch is then reverted. Any
mutant that does not apply, does not build or is not caught fails the run (exit 1).

Why patches, not switches or a build trait: the product's binary, its source and its `--help` then hold no known
bug at all (SQLite proves its tests the same way, by mutating the code outside the source); a patch shows the bug as
a reviewer would read it; and a patch that no longer applies is found by `--check` in every `make test`.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "Mutants")
WORK = os.path.join(ROOT, ".build", "mutants")
TREE = os.path.join(WORK, "tree")
INVARIANTS = range(1, 15)
# The delegate sweep's invariants (Sources/PrivateSyncEngineTesting/DelegateSweepFailure.swift), for a mutant of the
# mirror.
SWEEP_INVARIANTS = ("convergence", "noLostWrites", "purgedStaysDeleted", "privacy", "eventsPaired", "quiescence",
                    "noMisuse", "stateRestored", "honestStatus", "appFailed")
ENGINES = ("app", "cksyncengine")
# Where a mutant may change code: the library modules whose behaviour the simulator checks.
LIBRARY = ("Sources/PrivateSync/", "Sources/DeviceStore/", "Sources/PrivateCloud/", "Sources/SimulatedWorld/",
           "Sources/PrivateSyncSQLite/", "Sources/PrivateSyncFileSystem/", "Sources/PartitionMirror/")


class Mutant:
    def __init__(self, path):
        self.path = path
        self.file = os.path.basename(path)
        text = open(path, encoding="utf-8").read()
        header, _, self.diff = text.partition("\ndiff --git ")
        self.diff = "diff --git " + self.diff
        fields = dict(line.split(": ", 1) for line in header.strip().splitlines() if ": " in line)
        self.name = fields.get("Mutant", "")
        self.what = fields.get("What", "")
        self.engine = fields.get("Engine", "app").strip()
        words = fields.get("Caught-by", "").split()
        if self.engine == "cksyncengine":
            self.caught_by = [w for w in words if w in SWEEP_INVARIANTS]
            self.caught_by += [int(w) for w in words if w.isdigit() and int(w) in INVARIANTS]
            self.caught_by_is_whole = len(self.caught_by) == len(words)
        else:
            self.caught_by = [int(n) for n in words if n.isdigit()]
            self.caught_by_is_whole = len(self.caught_by) == len(words)
        # The scenario test that pins the bug, for one the simulator has stopped reaching: it must fail on the mutant.
        self.pinned_by = fields.get("Pinned-by", "").strip()
        self.files = re.findall(r"^\+\+\+ b/(\S+)$", self.diff, re.M)

    def problems(self):
        found = []
        if self.name + ".patch" != self.file:
            found.append(f"{self.file}: its header names the mutant {self.name!r}, not the file's name")
        if not self.what:
            found.append(f"{self.file}: no 'What:' line")
        if self.engine not in ENGINES:
            found.append(f"{self.file}: 'Engine:' must be one of {', '.join(ENGINES)}")
        elif self.engine == "cksyncengine":
            if not self.caught_by or not self.caught_by_is_whole:
                found.append(f"{self.file}: 'Caught-by:' must list the delegate sweep's invariants "
                             f"({', '.join(SWEEP_INVARIANTS)}) or the app simulator's (1 to {INVARIANTS[-1]})")
        elif not self.caught_by or not self.caught_by_is_whole or any(n not in INVARIANTS for n in self.caught_by):
            found.append(f"{self.file}: 'Caught-by:' must list invariant numbers 1 to {INVARIANTS[-1]}")
        if not self.files:
            found.append(f"{self.file}: changes no file")
        for changed in self.files:
            if not changed.startswith(LIBRARY):
                found.append(f"{self.file}: changes {changed}, outside the library modules")
        return found


def load(names):
    mutants = [Mutant(os.path.join(MUTANTS, f)) for f in sorted(os.listdir(MUTANTS)) if f.endswith(".patch")]
    if names:
        unknown = set(names) - {m.name for m in mutants}
        if unknown:
            sys.exit(f"mutants: no mutant named {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.name in names]
    return mutants


def applies(mutant, directory, reverse=False):
    args = ["git", "apply", "--check"] + (["--reverse"] if reverse else []) + ["-"]
    run = subprocess.run(args, cwd=directory, input=mutant.diff, capture_output=True, text=True)
    return run.returncode == 0, run.stderr.strip()


def check(mutants):
    problems = []
    for mutant in mutants:
        problems += mutant.problems()
        ok, error = applies(mutant, ROOT)
        if not ok:
            problems.append(f"{mutant.file} no longer applies to the tree: {error}")
    if problems:
        print("\n".join(problems))
        print(f"check-mutants: {len(problems)} problem(s); a patch that no longer applies is remade over the clean "
              "code (docs/simulator.md, Mutants)")
        return 1
    print(f"check-mutants: all {len(mutants)} mutants apply to the tree, each naming the invariants that catch it")
    return 0


def sync_tree():
    """Copies the working tree (the files git tracks, and those it does not ignore) into the scratch tree, writing
    only files whose content differs, so that the scratch build stays incremental; removes files no longer there."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    wanted = {path for path in listed if path and os.path.isfile(os.path.join(ROOT, path))}
    for path in wanted:
        source, target = os.path.join(ROOT, path), os.path.join(TREE, path)
        data = open(source, "rb").read()
        if os.path.exists(target) and open(target, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(data)
        shutil.copymode(source, target)
    for directory, folders, files in os.walk(TREE):
        if directory == TREE and ".build" in folders:
            folders.remove(".build")
        for name in files:
            path = os.path.relpath(os.path.join(directory, name), TREE)
            if path not in wanted:
                os.remove(os.path.join(directory, name))


def build(configuration):
    run = subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", configuration, "--product",
                          "privatesync"], cwd=TREE, capture_output=True, text=True)
    if run.returncode != 0:
        return None, (run.stdout + run.stderr)[-3000:]
    return os.path.join(TREE, ".build", configuration, "privatesync"), ""


def with_mutant(mutant, configuration, body):
    """Applies `mutant` to the scratch tree, builds the CLI there, calls `body(binary, log)` (`binary` None when the
    build failed, `log` saying why), and puts the tree back whatever happens. Returns what `body` returns."""
    originals = {path: open(os.path.join(TREE, path), "rb").read() for path in mutant.files}
    # The scratch tree sits inside this repository's .build: without a ceiling, git would find the repository above
    # it and silently skip every path outside the tree's own folder.
    subprocess.run(["git", "apply", "-"], cwd=TREE, input=mutant.diff, text=True, check=True,
                   env=dict(os.environ, GIT_CEILING_DIRECTORIES=WORK))
    try:
        unchanged = [path for path, data in originals.items() if open(os.path.join(TREE, path), "rb").read() == data]
        if unchanged:
            return body(None, f"the patch left {', '.join(unchanged)} unchanged")
        binary, log = build(configuration)
        return body(binary, log)
    finally:
        # Written anew, not with the old times: the next build must see these files changed.
        for path, data in originals.items():
            with open(os.path.join(TREE, path), "wb") as out:
                out.write(data)


# The step mixes a mutant of the mirror is hunted under, seed by seed: the even mix, then the swarm (a run that goes
# deep into a few kinds of step reaches compositions the even mix meets once in thousands of seeds), with its outages
# and without them: each draws runs of its own, and each reaches bugs the other does not within 300 seeds (swarm seed
# 240 catches one only with outages; 63 and 136 each catch one only without). Then the app simulator over the
# delegate's build: its steps, interleavings and oracle are another's, and reach paths the sweep does not.
MIXES = {"app": ("even",), "cksyncengine": ("even", "swarm", "swarm-without-outages", "app-build")}


def failure(binary, seed, steps, engine="app", mix="even"):
    """The invariant seed `seed` fails by (a number for the app engine's simulator, a name for the delegate sweep of
    the mirror), or None when it passes. The delegate sweep runs its own number of steps."""
    arguments = ["simulate", "--seed", str(seed), "--json"]
    if mix == "app-build":
        arguments += ["--steps", str(steps), "--build", "cksyncengine"]
    else:
        arguments += ["--engine", "cksyncengine"] if engine == "cksyncengine" else ["--steps", str(steps)]
    arguments += {"swarm": ["--swarm"], "swarm-without-outages": ["--swarm", "--no-outages"]}.get(mix, [])
    run = subprocess.run([binary] + arguments, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"simulate --seed {seed} exited {run.returncode}: {run.stderr[-500:]}")
    failures = json.loads(run.stdout)["failures"]
    return failures[0]["invariant"] if failures else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only these mutants")
    parser.add_argument("--check", action="store_true", help="only check that every patch applies (make test)")
    parser.add_argument("--seeds", type=int, default=300, help="seeds to try per mutant (default 300)")
    parser.add_argument("--steps", type=int, default=200, help="steps per run (default 200, the sweep's)")
    parser.add_argument("--configuration", default="release", choices=["debug", "release"])
    parser.add_argument("--replay", metavar="NAME", help="build with mutant NAME and run the CLI with the arguments "
                        "after --, e.g. --replay wrong-pause-reason -- simulate --seed 1 --trace")
    arguments = sys.argv[1:]
    cli = arguments[arguments.index("--") + 1:] if "--" in arguments else []
    args = parser.parse_args(arguments[:arguments.index("--")] if "--" in arguments else arguments)
    mutants = load([args.replay] if args.replay else args.names)
    if check(mutants):
        return 1
    if args.check:
        return 0
    if args.replay:
        os.makedirs(TREE, exist_ok=True)
        sync_tree()
        return with_mutant(mutants[0], args.configuration,
                           lambda binary, log: subprocess.run([binary] + cli).returncode if binary else 1)

    started = time.monotonic()
    os.makedirs(TREE, exist_ok=True)
    sync_tree()
    clean, log = build(args.configuration)
    if clean is None:
        print(f"mutants: the clean scratch copy does not build:\n{log}")
        return 1
    baseline = os.path.join(WORK, "privatesync-clean")
    shutil.copy2(clean, baseline)
    print(f"mutants: clean build ready ({time.monotonic() - started:.0f} s); {len(mutants)} mutants, up to "
          f"{args.seeds} seeds each")
    results, failed, pinned = [], 0, []
    for mutant in mutants:
        began = time.monotonic()

        def hunt(binary, log):
            if binary is None:
                return f"does not build:\n{log}"
            for seed in range(args.seeds):
                for mix in MIXES[mutant.engine]:
                    label = f"{seed}" if mix == "even" else f"{seed} ({mix})"
                    invariant = failure(binary, seed, args.steps, mutant.engine, mix)
                    if invariant is None:
                        continue
                    if failure(baseline, seed, args.steps, mutant.engine, mix) is not None:
                        print(f"  {mutant.name}: seed {label} fails the clean build too, passed over")
                        continue
                    if invariant not in mutant.caught_by:
                        print(f"  {mutant.name}: seed {label} failed by invariant {invariant}, not one of "
                              f"{mutant.caught_by}, passed over")
                        continue
                    results.append((mutant.name, label, invariant, time.monotonic() - began))
                    return None
            missed = f"not caught in {args.seeds} seeds by invariant {mutant.caught_by}"
            if not mutant.pinned_by:
                return missed
            # A finding, said so: the simulator no longer reaches the path, and only the scenario test holds it.
            test = subprocess.run([os.environ.get("SWIFT", "swift"), "test", "--filter", mutant.pinned_by], cwd=TREE,
                                  capture_output=True, text=True)
            if test.returncode == 0:
                return f"{missed}, and its scenario test {mutant.pinned_by} passes on it"
            pinned.append(mutant.name)
            print(f"PINNED ONLY {mutant.name}: {missed}; caught by its scenario test {mutant.pinned_by} alone")
            return None

        verdict = with_mutant(mutant, args.configuration, hunt)
        if verdict:
            failed += 1
            print(f"FAIL {mutant.name}: {verdict}")
        elif pinned and pinned[-1] == mutant.name and (not results or results[-1][0] != mutant.name):
            pass
        else:
            name, seed, invariant, seconds = results[-1]
            print(f"caught {name}: seed {seed}, invariant {invariant} ({seconds:.0f} s)")
    print(f"mutants: {len(results)} of {len(mutants)} caught within {args.seeds} seeds, "
          f"{len(pinned)} by their scenario test only ({', '.join(pinned) or 'none'}), {failed} not "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
