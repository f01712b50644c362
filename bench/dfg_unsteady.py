#!/usr/bin/env python3
"""Errors of DFG 2D-3 and 2D-2 runs against the published values, and c_D(t), c_L(t) with the
reference peaks.

Usage: dfg_unsteady.py [--png FILE] [--ref DIR] RESULTS.json ...

RESULTS are quilt-flow results files (--results) of apps/configs/dfg_2d3.ini or dfg_2d2.ini.
2D-3 (a time series over t in [0, 8]): max c_D, max c_L and the time of each, dp(t = 8), against
John (2004). 2D-2 (periodic): the Strouhal number and max c_D, max c_L over the full periods of the
second half of the run (the results' `periodic`), against the FEATFLOW reference. REF is the
folder of dfg_cylinder.csv (default: docs/reference of this repository). The figure needs
matplotlib; the table does not.
"""
import argparse
import csv
import json
import os
import sys

DEFAULT_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reference")


def references(ref_dir):
    """{(case, quantity): row} of dfg_cylinder.csv ('#' lines are comments)."""
    with open(os.path.join(ref_dir, "dfg_cylinder.csv")) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(r["case"], r["quantity"]): r for r in rows}


def case_of(run):
    """2D-3 when the inflow is modulated by sin(pi t / 8), else 2D-2 (a periodic run)."""
    conditions = run.get("config", {}).get("boundary.condition", [])
    if isinstance(conditions, str):
        conditions = [conditions]
    return "2D-3" if any(" sin " in c for c in conditions) else "2D-2"


def describe(run):
    config = run.get("config", {})
    tolerance = float(config.get("time.tolerance", 0))
    steps = (f"adaptive, tolerance {tolerance:g} from dt = {config.get('time.step', '?')}: "
             f"{run.get('time_steps', '?')} steps, {run.get('rejected_time_steps', 0)} rejected"
             if tolerance > 0 else f"dt = {config.get('time.step', '?')}")
    return (f"L = {run['level']}, {steps}, {config.get('time.scheme', '?')}, time_scale = "
            f"{config.get('stabilisation.time_scale', 'none')}")


def peak(series, key):
    k = max(range(len(series["t"])), key=lambda i: series[key][i])
    return series[key][k], series["t"][k]


def rows_2d3(run, ref):
    series = run["time_series"]
    cd, t_cd = peak(series, "drag")
    cl, t_cl = peak(series, "lift")
    dp8 = series["pressure_difference"][-1]
    out = []
    for name, value, t, quantity in (("max c_D", cd, t_cd, "max_c_D"),
                                     ("max c_L", cl, t_cl, "max_c_L"), ("dp(8)", dp8, None, "dp")):
        r = ref[("2D-3", quantity)]
        reference = float(r["value"])
        when = f" at t = {t:.4f} (ref {float(r['t']):.4f})" if t is not None else \
            f" at t = {series['t'][-1]:g}"
        out.append(f"  {name:8s} {value:10.5f}{when:32s} ref {reference:9.5f}  "
                   f"error {100 * (value / reference - 1):+7.2f} %")
    return out


def rows_2d2(run, ref):
    periodic = run.get("periodic")
    if not periodic or not periodic.get("periods"):
        return ["  no full period in the second half of the run (no shedding?)"]
    out = []
    for name, value, quantity in (("St", periodic["strouhal"], "St"),
                                  ("max c_D", periodic["drag_max"], "max_c_D"),
                                  ("max c_L", periodic["lift_max"], "max_c_L")):
        reference = float(ref[("2D-2", quantity)]["value"])
        out.append(f"  {name:8s} {value:10.5f} ref {reference:9.5f}  "
                   f"error {100 * (value / reference - 1):+7.2f} %")
    out.append(f"  over {periodic['periods']} periods")
    return out


def cost(run):
    """Per time step; the time per unknown is rank-seconds (wall time times ranks) per dof."""
    seconds = run["seconds_per_time_step"]
    per_unknown = 1e6 * seconds * run["ranks"] / run["dofs"]
    acc = f", R_acc {run['r_acc']:.2f}" if "r_acc" in run else ""
    return (f"  per time step: {run['nonlinear_steps_per_time_step']:.1f} nonlinear steps, "
            f"{run['linear_iterations_per_time_step']:.1f} linear iterations, "
            f"{seconds:.3f} s ({per_unknown:.1f} rank-us per unknown); {run['dofs']} dofs, "
            f"{run['ranks']} ranks{acc}")


def plot(runs, ref, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key, name, quantity in ((axes[0], "drag", "c_D", "max_c_D"),
                                    (axes[1], "lift", "c_L", "max_c_L")):
        for run in runs:
            s = run["time_series"]
            ax.plot(s["t"], s[key], "-", linewidth=1, label=describe(run))
        for case in sorted({case_of(r) for r in runs}):
            r = ref[(case, quantity)]
            if r["t"]:
                ax.plot([float(r["t"])], [float(r["value"])], "k*", markersize=10,
                        label=f"{case} reference peak ({r['source']})")
            else:
                ax.axhline(float(r["value"]), color="k", lw=0.8,
                           label=f"{case} reference max ({r['source']})")
        ax.set_xlabel("t")
        ax.set_title(name)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--ref", default=DEFAULT_REF)
    parser.add_argument("--png", help="draw c_D(t) and c_L(t) into this file")
    args = parser.parse_args()
    if args.png:  # before any output: it may re-execute this script under /usr/bin/python3
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from plot_python import require_matplotlib
        require_matplotlib(__file__, missing_is_error=True)
    ref = references(args.ref)
    runs = []
    for name in args.results:
        if not os.path.exists(name):
            print(f"{name}: no such file, skipped", file=sys.stderr)
            continue
        with open(name) as f:
            run = json.load(f)
        if run.get("status", "ok") != "ok" or "time_series" not in run:
            print(f"{name}: no time series (failed or stationary run), skipped", file=sys.stderr)
            continue
        runs.append(run)
        case = case_of(run)
        print(f"{case}, {describe(run)} ({os.path.basename(name)})")
        for line in (rows_2d3 if case == "2D-3" else rows_2d2)(run, ref) + [cost(run)]:
            print(line)
    if args.png and runs:
        plot(runs, ref, args.png)
    return 0 if runs else 1


if __name__ == "__main__":
    sys.exit(main())
