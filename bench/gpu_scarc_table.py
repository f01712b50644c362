#!/usr/bin/env python3
"""The table of bench/gpu_scarc.sh: each case's cpu and cuda runs side by side, and the checks.

    gpu_scarc_table.py DIR CASE...      (reads DIR/CASE-cpu.json and DIR/CASE-cuda.json)

A case fails when a run is missing or did not converge, when the cuda run needs more (linear)
iterations than the cpu run's plus one or plus 10 %, whichever is more, or when its error (Poisson: L2 error; flow: kinetic
energy) differs from the cpu run's by more than 1e-3 relative. Exit status 1 on any failure.
"""
import json
import sys
from pathlib import Path


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        print(f"{path}: {e}")
        return None


def figures(r):
    """(iterations, accuracy figure, total s, set-up s, solve s, local s) of one run."""
    t = r["timings"]
    if r["problem"] == "poisson":
        return r["iterations"], r["l2_error"], t["total"], t["setup"], t["solve"], t["local_solve"]
    return (r["linear_iterations"]["total"], r["kinetic_energy"], t["total"], t["setup"], t["linear"],
            t["local_solve"])


def main(argv):
    out = Path(argv[1])
    failed = False
    print("| case | target | dofs | ranks | its | L2 error / E_kin | total s | set-up s | "
          "solve s | local s | cpu/cuda total | cpu/cuda local | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for case in argv[2:]:
        runs = {t: load(out / f"{case}-{t}.json") for t in ("cpu", "cuda")}
        bad = {t: ("no results" if r is None else r.get("error", "")) for t, r in runs.items()
               if r is None or r.get("status") != "ok"}
        if bad:
            why = "; ".join(f"{t}: {e}" for t, e in bad.items())
            print(f"| {case} | | | | | | | | | | | | FAIL: {why} |")
            failed = True
            continue
        f = {t: figures(r) for t, r in runs.items()}
        problems = []
        for t, r in runs.items():
            if not r.get("converged", False):
                problems.append(f"{t} did not converge")
        if f["cuda"][0] > max(f["cpu"][0] + 1, 1.1 * f["cpu"][0]):
            problems.append("cuda needs more iterations")
        if abs(f["cuda"][1] - f["cpu"][1]) > 1e-3 * abs(f["cpu"][1]):
            problems.append("accuracy differs")
        failed |= bool(problems)
        check = "; ".join(problems) if problems else "ok"
        for t in ("cpu", "cuda"):
            its, acc, total, setup, solve, local = f[t]
            r = runs[t]
            ratio = (f"{f['cpu'][2] / total:.2f} | {f['cpu'][5] / local:.2f}"
                     if t == "cuda" else " | ")
            print(f"| {case} | {t} | {r['dofs']} | {r['ranks']} | {its} | {acc:.6e} | "
                  f"{total:.3f} | {setup:.3f} | {solve:.3f} | {local:.3f} | {ratio} | "
                  f"{check if t == 'cuda' else ''} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
