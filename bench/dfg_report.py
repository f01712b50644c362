#!/usr/bin/env python3
"""Tables of bench/dfg_benchmark.sh from its JSON results (quilt-flow --results).

Usage: dfg_report.py OUT LEVELS RANK_LEVEL TABLE_LEVELS [REF], with REF the folder of the published
reference values (default: docs/reference of this repository; dfg_cylinder.csv there).
"""
import csv
import math
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_files import load_result  # noqa: E402

out, levels, rank_level, table_levels = sys.argv[1:5]
ref_dir = sys.argv[5] if len(sys.argv) > 5 else \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reference")
levels = [int(l) for l in levels.split()]
table_levels = [int(l) for l in table_levels.split()]

# docs/reference/dfg_cylinder.csv, case 2D-1: c_D, c_L, dp (Nabh 1998; John 2016, Example D.5)
# and the 1996 interval of L_a ('#' lines are comments).
with open(os.path.join(ref_dir, "dfg_cylinder.csv")) as f:
    REF_ROWS = {r["quantity"]: r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                if r["case"] == "2D-1"}
REF = {key: float(REF_ROWS[quantity]["value"])
       for key, quantity in (("drag", "c_D"), ("lift", "c_L"), ("pressure_difference", "dp"))}
LA_INTERVAL = (float(REF_ROWS["L_a"]["interval_min"]), float(REF_ROWS["L_a"]["interval_max"]))


def load(name):
    return load_result(out, name)


def rel(r, key):
    return r[key] / REF[key] - 1


def order_fit(hs, errs):
    """Least-squares slope of log|err| over log h (h ~ 2^-L)."""
    pts = [(math.log(h), math.log(abs(e))) for h, e in zip(hs, errs) if e != 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


print("## 2D-1 (Re = 20): functionals against the reference values\n")
print("| L | DOFs | c_D | err | c_L | err | dp | err | L_a | c_D surf | c_L surf | NL | lin | lin/NL | time [s] |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
rows = []
for L in levels:
    r = load(f"2d1_L{L}")
    if r is None:
        print(f"| {L} | (failed: see log) |")
        continue
    rows.append((L, r))
    print(f"| {L} | {r['dofs']} | {r['drag']:.6f} | {100 * rel(r, 'drag'):+.3f}% | {r['lift']:.6f} | "
          f"{100 * rel(r, 'lift'):+.2f}% | {r['pressure_difference']:.6f} | "
          f"{100 * rel(r, 'pressure_difference'):+.3f}% | {r['recirculation_length']:.4f} | "
          f"{r['drag_surface']:.4f} | {r['lift_surface']:.4f} | {r['nonlinear_iterations']} | "
          f"{r['linear_iterations']['total']} | "
          f"{r['linear_iterations']['total'] / max(1, r['nonlinear_iterations']):.1f} | "
          f"{r['timings']['total']:.1f} |")
if len(rows) >= 2:
    hs = [2.0 ** -L for L, _ in rows]
    print("\nconvergence order (least-squares fit of log|error| over log h, levels "
          f"{rows[0][0]}..{rows[-1][0]}):", end="")
    for key, name in (("drag", "c_D"), ("lift", "c_L"), ("pressure_difference", "dp")):
        print(f" {name} {order_fit(hs, [rel(r, key) for _, r in rows]):.2f}", end="")
    print()
    L, r = rows[-1]
    ok = abs(rel(r, "drag")) <= 0.005 and abs(rel(r, "pressure_difference")) <= 0.005 and \
        abs(rel(r, "lift")) <= 0.05
    la = LA_INTERVAL[0] <= r["recirculation_length"] <= LA_INTERVAL[1]
    print(f"finest level L = {L}: c_D, dp within 0.5 % and c_L within 5 %: {'yes' if ok else 'NO'}; "
          f"L_a in the 1996 interval {LA_INTERVAL}: {'yes' if la else 'no'}")

print(f"\n## Rank counts (2D-1, L = {rank_level})\n")
print("| ranks | c_D | c_L | dp | max rel. dev. from 1 rank | NL | lin |")
print("|---|---|---|---|---|---|---|")
one = load(f"ranks1_L{rank_level}")
for np in (1, 2, 4, 8):
    r = load(f"ranks{np}_L{rank_level}")
    if r is None or one is None:
        print(f"| {np} | (failed) |")
        continue
    dev = max(abs(r[k] / one[k] - 1) for k in REF)
    print(f"| {np} | {r['drag']:.10f} | {r['lift']:.10f} | {r['pressure_difference']:.10f} | {dev:.1e} | "
          f"{r['nonlinear_iterations']} | {r['linear_iterations']['total']} |")

print("\n## FEAST NS paper, Table 4 layout: steady Re = 100 (1 rank, cpu target, double local solves)\n")
print("| L | DOFs | NL | lin | T_total [s] | R_ass | R_lin | T_lin [s] | T_loc [s] | R_acc | S_max | c_D | c_L | dp | L_a |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for L in table_levels:
    r = load(f"re100_L{L}")
    if r is None:
        print(f"| {L} | (no convergence: see re100_L{L}.log) |")
        continue
    t = r["timings"]
    print(f"| {L} | {r['dofs']} | {r['nonlinear_iterations']} | {r['linear_iterations']['total']} | "
          f"{t['total']:.2f} | {r['r_ass']:.2f} | {r['r_lin']:.2f} | {t['linear']:.2f} | "
          f"{t['local_solve']:.2f} | {r['r_acc']:.2f} | {r['s_max']:.2f} | {r['drag']:.4f} | {r['lift']:.4f} | "
          f"{r['pressure_difference']:.4f} | {r['recirculation_length']:.4f} |")
print("\n(no cuda column: S_loc, S_tot need the cuda target on a GPU)")
