#!/usr/bin/env python3
"""Tables of bench/dfg_order.sh: DFG 2D-1 functionals, errors and observed orders per level.

Usage: dfg_order.py OUT LEVELS VARIANTS [REF]. OUT holds VARIANT_L<L>.json (quilt-flow --results);
REF the folder of dfg_cylinder.csv (default: docs/reference of this repository).
Orders: against the reference value e_L = q_L - q_ref, order_L = log2(|e_(L-1)| / |e_L|), and a
least-squares fit of log|e| over log h on the levels >= 3; for the point pressures p(0.15, 0.2)
and p(0.25, 0.2), which have no published values, from the successive differences
d_L = q_L - q_(L-1): order_L = log2(|d_(L-1)| / |d_L|).
"""
import csv
import math
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_files import load_result  # noqa: E402

out, levels, variants = sys.argv[1:4]
ref_dir = sys.argv[4] if len(sys.argv) > 4 else \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reference")
levels = [int(l) for l in levels.split()]
variants = variants.split()
with open(os.path.join(ref_dir, "dfg_cylinder.csv")) as f:
    rows = {r["quantity"]: r for r in csv.DictReader(l for l in f if not l.startswith("#"))
            if r["case"] == "2D-1"}
REF = {"drag": float(rows["c_D"]["value"]), "lift": float(rows["c_L"]["value"]),
       "pressure_difference": float(rows["dp"]["value"])}
REF["pressure_difference_nodal"] = REF["pressure_difference"]


def load(name):
    return load_result(out, name)


def order(a, b):
    return math.log2(abs(a) / abs(b)) if a and b else float("nan")


def fit(pairs):
    """Least-squares slope of log|e| over -log2 h = L."""
    pts = [(L, math.log2(abs(e))) for L, e in pairs if e]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    return -sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def fmt_order(o):
    return "" if math.isnan(o) else f"{o:.2f}"


for v in variants:
    runs = [(L, load(f"{v}_L{L}")) for L in levels]
    runs = [(L, r) for L, r in runs if r is not None]
    print(f"\n## stabilisation (pressure_viscous) = {v}\n")
    print("| L | DOFs | c_D | err | ord | c_L | err | ord | dp (wall traction) | err | ord | "
          "dp (Q1 p) | err | ord | p_front | diff | ord | p_back | diff | ord | NL | lin | "
          "time [s] |")
    print("|" + "---|" * 23)
    prev = {}
    errs = {k: [] for k in REF}
    for L, r in runs:
        cells = [str(L), str(r["dofs"])]
        for key in ("drag", "lift", "pressure_difference", "pressure_difference_nodal"):
            e = r[key] - REF[key]
            errs[key].append((L, e))
            cells += [f"{r[key]:.6f}", f"{100 * e / REF[key]:+.3f}%",
                      fmt_order(order(prev[key + "_e"], e)) if key + "_e" in prev else ""]
            prev[key + "_e"] = e
        for key in ("pressure_front", "pressure_back"):
            d = r[key] - prev[key] if key in prev else None
            o = order(prev[key + "_d"], d) if d is not None and key + "_d" in prev else float("nan")
            cells += [f"{r[key]:.6f}", "" if d is None else f"{d:+.2e}", fmt_order(o)]
            prev[key] = r[key]
            if d is not None:
                prev[key + "_d"] = d
        cells += [str(r["nonlinear_iterations"]), str(r["linear_iterations"]["total"]),
                  f"{r['timings']['total']:.1f}"]
        print("| " + " | ".join(cells) + " |")
    print("\nleast-squares orders over L >= 3:",
          ", ".join(f"{name} {fit([(L, e) for L, e in errs[key] if L >= 3]):.2f}"
                    for key, name in (("drag", "c_D"), ("lift", "c_L"),
                                      ("pressure_difference", "dp"),
                                      ("pressure_difference_nodal", "dp of the Q1 p"))))
