#!/usr/bin/env python3
"""Figures (PNG) of quilt-flow results JSON files (quilt-flow --results), against the published
reference values in docs/reference.

Usage: plot_results.py [--ref DIR] [--out DIR] RESULT.json...

The runs are grouped by flow (Stokes, or the Reynolds number); per group:
  centerlines_<group>.png  u(0.5, y) and v(x, 0.5) of every run with centreline profiles, with
                           Ghia, Ghia & Shin (1982) at Re 100, 400 and 1000 and Botella & Peyret
                           (1998) at Re 1000 (ghia_*.csv, botella_re1000_*.csv);
  convergence_<group>.png  nonlinear residual per step (log scale) and linear iterations per step;
  forces_<group>.png       runs with drag and lift (DFG): c_D, c_L and dp over the level, volume and
                           surface forms, against dfg_cylinder.csv (case 2D-1 at Re 20);
  time_series_<group>.png  instationary runs (time.scheme): c_D, c_L and dp over t.
--out defaults to the folder of the first file (the PNGs lie next to their JSON); --ref to
docs/reference of this repository. Needs matplotlib (Debian: python3-matplotlib; without it the
script prints a note and exits 0, so that a benchmark run does not fail for want of figures);
draws with the Agg backend, so no display is needed.
"""
import argparse
import csv
import json
import os
import sys

from plot_python import require_matplotlib

require_matplotlib(__file__, missing_is_error=False)
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # files only: benchmark machines have no display
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import MaxNLocator  # noqa: E402

DEFAULT_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reference")


def read_csv(ref, name):
    """Rows of a reference CSV as dicts; lines starting with '#' are comments (docs/reference)."""
    path = os.path.join(ref, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def integer_re(run):
    """The run's Reynolds number if it is (close to) an integer, else None: the reference tables
    are per integer Re (u_re100, u_re400, u_re1000)."""
    re = run.get("re")
    if re is None or run.get("stokes"):
        return None
    return int(round(re)) if abs(re - round(re)) < 1e-6 * max(1.0, abs(re)) else None


def group_of(run):
    if run.get("stokes"):
        return "stokes"
    re = integer_re(run)
    return f"re{re}" if re is not None else f"re{run.get('re', 0):g}"


def label(run):
    parts = [f"L{run.get('level', '?')}"]
    if run.get("ranks", 1) != 1:
        parts.append(f"{run['ranks']} ranks")
    if run.get("precision", "double") != "double":
        parts.append(run["precision"])
    return ", ".join(parts)


def cavity_references(ref, re):
    """[(name, [(coordinate, value)]), ...] per centreline ('u', 'v') for Reynolds number re."""
    refs = {"u": [], "v": []}
    if re is None:
        return refs
    for axis, coordinate in (("u", "y"), ("v", "x")):
        column = f"{axis}_re{re}"
        rows = read_csv(ref, f"ghia_{axis}.csv")
        if rows and column in rows[0]:
            refs[axis].append(("Ghia et al. (1982)",
                               [(float(r[coordinate]), float(r[column])) for r in rows]))
        if re == 1000:
            rows = read_csv(ref, f"botella_re1000_{axis}.csv")
            if rows:
                refs[axis].append(("Botella & Peyret (1998)",
                                   [(float(r[coordinate]), float(r[axis])) for r in rows]))
    return refs


def plot_centerlines(runs, ref, path, title):
    runs = [r for r in runs if r.get("centerline_u") and r.get("centerline_v")]
    if not runs:
        return None
    refs = cavity_references(ref, integer_re(runs[0]))
    fig, (au, av) = plt.subplots(1, 2, figsize=(11, 5))
    # u(0.5, y) is drawn with y upwards and v(x, 0.5) with x to the right, as in the cavity
    # itself (and in Ghia et al.'s figures).
    for run in runs:
        y, u = zip(*sorted(run["centerline_u"]))
        au.plot(u, y, "-", marker=".", label=label(run))
        x, v = zip(*sorted(run["centerline_v"]))
        av.plot(x, v, "-", marker=".", label=label(run))
    markers = ["o", "s"]
    for k, (name, points) in enumerate(refs["u"]):
        y, u = zip(*sorted(points))
        au.plot(u, y, markers[k % 2], mfc="none", color="k", label=name)
    for k, (name, points) in enumerate(refs["v"]):
        x, v = zip(*sorted(points))
        av.plot(x, v, markers[k % 2], mfc="none", color="k", label=name)
    au.set_xlabel("u(0.5, y)")
    au.set_ylabel("y")
    au.set_title("vertical centreline x = 0.5")
    av.set_xlabel("x")
    av.set_ylabel("v(x, 0.5)")
    av.set_title("horizontal centreline y = 0.5")
    for ax in (au, av):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title if refs["u"] else f"{title}\n(no reference table for this Reynolds number)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_convergence(runs, path, title):
    runs = [r for r in runs if r.get("nonlinear_residuals")]
    if not runs:
        return None
    fig, (ar, al) = plt.subplots(1, 2, figsize=(11, 4.5))
    for run in runs:
        residuals = run["nonlinear_residuals"]
        ar.semilogy(range(len(residuals)), residuals, "-", marker=".", label=label(run))
        # per_step lists the steps that solved a linear system, the first nonlinear step on.
        per_step = run.get("linear_iterations", {}).get("per_step", [])
        if per_step:
            al.plot(range(1, len(per_step) + 1), per_step, "-", marker=".", label=label(run))
    ar.set_xlabel("nonlinear step")
    ar.set_ylabel("nonlinear residual")
    ar.set_title("nonlinear residual")
    al.set_xlabel("nonlinear step")
    al.set_ylabel("linear iterations")
    al.set_title("linear iterations per nonlinear step")
    al.set_ylim(bottom=0)
    for ax in (ar, al):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def dfg_reference(ref, re):
    """{'c_D': row, 'c_L': row, 'dp': row} of dfg_cylinder.csv for the steady case 2D-1 (Re 20);
    empty for other Reynolds numbers (2D-2 and 2D-3 are unsteady: their values are maxima over
    time, not comparable with a steady solution)."""
    if re != 20:
        return {}
    return {r["quantity"]: r for r in read_csv(ref, "dfg_cylinder.csv") if r["case"] == "2D-1"}


def plot_forces(runs, ref, path, title):
    by_level = {}
    for run in runs:
        if "drag" in run and "lift" in run:
            by_level.setdefault(run["level"], run)  # the first run of a level (see usage)
    if not by_level:
        return None
    levels = sorted(by_level)
    reference = dfg_reference(ref, integer_re(by_level[levels[0]]))
    # (key, key of the surface form, quantity in dfg_cylinder.csv, title)
    panels = [("drag", "drag_surface", "c_D", "drag coefficient c_D"),
              ("lift", "lift_surface", "c_L", "lift coefficient c_L"),
              ("pressure_difference", None, "dp", "pressure difference dp"),
              ("recirculation_length", None, "L_a", "recirculation length L_a")]
    panels = [p for p in panels if any(p[0] in by_level[L] for L in levels)]
    # A second row with the relative error on a log scale where there are reference values: the
    # first row's scale is set by the coarse levels, which hides how the fine ones converge.
    rows = 2 if reference else 1
    fig, axes = plt.subplots(rows, len(panels), figsize=(4.5 * len(panels), 4 * rows + 0.5),
                             squeeze=False)
    for k, (key, surface_key, quantity, name) in enumerate(panels):
        ax = axes[0][k]
        forms = [(key, "-o", "Quilt (volume form)" if surface_key else "Quilt")]
        if surface_key:
            forms.append((surface_key, "--s", "Quilt (surface form)"))
        row = reference.get(quantity)
        value = float(row["value"]) if row and row["value"] else None
        for form, style, form_label in forms:
            at = [L for L in levels if form in by_level[L]]
            ax.plot(at, [by_level[L][form] for L in at], style, mfc="none", label=form_label)
            if value is not None:
                err = [(L, abs(by_level[L][form] / value - 1)) for L in at]
                err = [(L, e) for L, e in err if e > 0]
                if err:
                    axes[1][k].semilogy(*zip(*err), style, mfc="none", label=form_label)
        if row and row["interval_min"] and row["interval_max"]:
            ax.axhspan(float(row["interval_min"]), float(row["interval_max"]), color="0.85",
                       label="1996 benchmark interval")
        if value is not None:
            ax.axhline(value, color="k", lw=1, label=f"reference {value:.6g} ({row['source']})")
        ax.set_title(name)
        if rows == 2 and value is not None:
            axes[1][k].set_title(f"|{quantity} / reference - 1|")
        elif rows == 2:
            axes[1][k].axis("off")
            axes[1][k].text(0.5, 0.5, f"{quantity}: no reference value\n(only an interval)",
                            ha="center", va="center", transform=axes[1][k].transAxes)
    for ax in (a for line in axes for a in line if a.axison):
        ax.set_xlabel("level L")
        ax.set_xticks(levels)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(title if reference else
                 f"{title}\n(no steady reference values for this Reynolds number)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_time_series(runs, path, title):
    """c_D, c_L and dp over t of the instationary runs (DFG 2D-2, 2D-3), one line per run."""
    runs = [r for r in runs if "time_series" in r and "drag" in r["time_series"]]
    if not runs:
        return None
    panels = [("drag", "c_D"), ("lift", "c_L"), ("pressure_difference", "dp")]
    panels = [p for p in panels if any(p[0] in r["time_series"] for r in runs)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (key, name) in zip(axes[0], panels):
        for run in runs:
            series = run["time_series"]
            if key in series:
                ax.plot(series["t"], series[key], "-", linewidth=1, label=label(run))
        ax.set_xlabel("t")
        ax.set_title(name)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+", help="quilt-flow results JSON files")
    parser.add_argument("--ref", default=DEFAULT_REF, help="folder of the reference CSV files")
    parser.add_argument("--out", help="folder of the PNGs (default: that of the first file)")
    args = parser.parse_args()
    out = args.out or os.path.dirname(os.path.abspath(args.results[0]))
    os.makedirs(out, exist_ok=True)

    groups = {}
    for name in args.results:
        with open(name) as f:
            run = json.load(f)
        if run.get("problem") != "navier-stokes":
            print(f"plot_results.py: {name} is not a quilt-flow result, skipped", file=sys.stderr)
            continue
        groups.setdefault(group_of(run), []).append(run)

    written = []
    for group, runs in groups.items():
        runs.sort(key=lambda r: (r.get("level", 0), r.get("ranks", 1)))
        flow = "Stokes" if group == "stokes" else f"Re = {runs[0]['re']:g}"
        mesh = os.path.basename(runs[0].get("mesh", ""))
        for kind, draw in (("centerlines", lambda p: plot_centerlines(
                               runs, args.ref, p, f"Centrelines, {flow} ({mesh})")),
                           ("convergence", lambda p: plot_convergence(
                               runs, p, f"Nonlinear convergence, {flow} ({mesh})")),
                           ("forces", lambda p: plot_forces(
                               runs, args.ref, p, f"Cylinder forces over levels, {flow}")),
                           ("time_series", lambda p: plot_time_series(
                               runs, p, f"Forces over time, {flow}"))):
            path = draw(os.path.join(out, f"{kind}_{group}.png"))
            if path:
                written.append(path)
    for path in written:
        print(f"wrote {path}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
