#!/usr/bin/env python3
"""The table of bench/gpu_scarc.sh: each case's runs side by side, medians over rounds, checks.

    gpu_scarc_table.py DIR CASE...      (reads DIR/CASE-RUN-ROUND.json)

The runs of a case are cpu-default (the cpu target as shipped), cpu (the cpu target in the cuda
target's colour order: the same algorithm) and cuda. A case fails when a run is missing, failed
or did not converge, when the cuda run needs more (linear) iterations than the cpu run's plus one
or plus 10 %, whichever is more, or when its error (Poisson: L2 error; flow: kinetic energy)
differs from the cpu run's by more than 1e-3 relative. Exit status 1 on any failure.
"""
import json
import statistics
import sys
from pathlib import Path

RUNS = ("cpu-default", "cpu", "cuda")


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return {"status": "failed", "error": str(e)}


def figures(r):
    """(iterations, accuracy figure, total s, set-up s, solve s, local s) of one run."""
    t = r["timings"]
    if r["problem"] == "poisson":
        return r["iterations"], r["l2_error"], t["total"], t["setup"], t["solve"], t["local_solve"]
    return (r["linear_iterations"]["total"], r["kinetic_energy"], t["total"], t["setup"],
            t["linear"], t["local_solve"])


def summary(results):
    """Iterations and accuracy of the first round, median times over the rounds."""
    f = [figures(r) for r in results]
    return f[0][:2] + tuple(statistics.median(x[k] for x in f) for k in range(2, 6))


def run_failures(runs):
    """What kept a run from giving figures: an error, or no convergence."""
    failures = []
    for name, results in runs.items():
        for r in results:
            if r.get("status") != "ok":
                failures.append(f"{name}: {r.get('error', 'failed')}")
            elif not r.get("converged", False):
                failures.append(f"{name} did not converge")
    return failures


def check_failures(runs):
    """The cuda run against the cpu run in the same order: iterations and accuracy."""
    cpu, cuda = summary(runs["cpu"]), summary(runs["cuda"])
    failures = []
    if cuda[0] > max(cpu[0] + 1, 1.1 * cpu[0]):
        failures.append("cuda needs more iterations")
    if abs(cuda[1] - cpu[1]) > 1e-3 * abs(cpu[1]):
        failures.append("accuracy differs")
    return failures


def main(argv):
    out = Path(argv[1])
    failed = False
    print("| case | run | dofs | ranks | rounds | its | L2 error / E_kin | total s | set-up s | "
          "solve s | local s | cpu-default/cuda total | cpu-default/cuda local | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for case in argv[2:]:
        runs = {name: [load(p) for p in sorted(out.glob(f"{case}-{name}-[0-9]*.json"))]
                for name in RUNS}
        if any(not results for results in runs.values()):
            print(f"| {case} | | | | | | | | | | | | | FAIL: a run has no results |")
            failed = True
            continue
        failures = run_failures(runs)
        if failures:
            print(f"| {case} | | | | | | | | | | | | | FAIL: {'; '.join(failures)} |")
            failed = True
            continue
        problems = check_failures(runs)
        failed |= bool(problems)
        base = summary(runs["cpu-default"])
        for name in RUNS:
            its, acc, total, setup, solve, local = summary(runs[name])
            r = runs[name][0]
            ratios = (f"{base[2] / total:.2f} | {base[5] / local:.2f}" if name == "cuda"
                      else " | ")
            check = ("; ".join(problems) or "ok") if name == "cuda" else ""
            print(f"| {case} | {name} | {r['dofs']} | {r['ranks']} | {len(runs[name])} | {its} | "
                  f"{acc:.6e} | {total:.3f} | {setup:.3f} | {solve:.3f} | {local:.3f} | {ratios} | "
                  f"{check} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
