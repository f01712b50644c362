#!/usr/bin/env python3
"""Tables of bench/cavity_benchmark.sh from its JSON results (quilt-flow --results).

Usage: cavity_report.py OUT REF LEVELS TABLE_LEVELS RANK_LEVEL RE1000_LEVEL, with REF the folder
of the published reference values (docs/reference: ghia_*.csv, botella_re1000_*.csv,
cavity_scalars.csv; '#' lines are comments naming the source). Runs re400_L<level>.json in OUT,
if any, are compared with Ghia et al.'s Re = 400 columns.
"""
import csv
import json
import os
import sys

out, ref, levels, table_levels, rank_level, re1000_level = sys.argv[1:7]
levels = [int(l) for l in levels.split()]
table_levels = [int(l) for l in table_levels.split()]


def load(name):
    with open(os.path.join(out, name + ".json")) as f:
        r = json.load(f)
    if r.get("status", "ok") != "ok":  # a failed run's file: {"status": "failed", "error": ...}
        sys.exit(f"cavity_report.py: run {name} failed: {r.get('error')}")
    return r


def read_csv(name):
    """Rows of a reference CSV as dicts; lines starting with '#' are comments."""
    with open(os.path.join(ref, name)) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def reference(name, column):
    rows = read_csv(name)
    key = list(rows[0].keys())[0]
    return {round(float(r[key]), 4): float(r[column]) for r in rows}


def scalar(re, quantity):
    for r in read_csv("cavity_scalars.csv"):
        if int(r["re"]) == re and r["quantity"] == quantity:
            return float(r["value"])
    raise KeyError(f"cavity_scalars.csv has no {quantity} at Re = {re}")


def deviation(profile, table):
    return ranked(profile, table)[0][0]


def ranked(profile, table):
    """[(|value - table|, coordinate), ...] over the profile's points in the table, largest first."""
    return sorted(((abs(v - table[round(c, 4)]), round(c, 4))
                   for c, v in profile if round(c, 4) in table), reverse=True)


def largest_two(profile, table):
    """'d1 at c1 (next d2 at c2)': one misprinted table entry (docs/reference/README.md) shows as a
    maximum far above the next."""
    (d1, c1), (d2, c2) = ranked(profile, table)[:2]
    return f"{d1:.4f} at {c1:.4f} (next {d2:.4f} at {c2:.4f})"


def lin_stats(r):
    per_step = r["linear_iterations"]["per_step"]
    return sum(per_step) / max(1, len(per_step)), max(per_step, default=0)


ghia_u, ghia_v = reference("ghia_u.csv", "u_re100"), reference("ghia_v.csv", "v_re100")
print("## Re = 100: convergence in L and agreement with Ghia, Ghia & Shin (1982)\n")
print("| L | DOFs | kinetic energy | change | max dev u(0.5,y) | max dev v(x,0.5) | NL steps | lin/step (mean, max) | time [s] |")
print("|---|---|---|---|---|---|---|---|---|")
previous = None
mean_lin = {}
for L in levels:
    r = load(f"re100_L{L}")
    mean, most = lin_stats(r)
    mean_lin[L] = mean
    ke = r["kinetic_energy"]
    change = f"{ke - previous:+.2e}" if previous is not None else "-"
    previous = ke
    print(f"| {L} | {r['dofs']} | {ke:.8f} | {change} | {deviation(r['centerline_u'], ghia_u):.4f} | "
          f"{deviation(r['centerline_v'], ghia_v):.4f} | {r['nonlinear_iterations']} | {mean:.1f}, {most} | "
          f"{r['timings']['total']:.1f} |")
lo, hi = min(l for l in levels if l >= 5), max(levels)
print(f"\nlinear iterations per nonlinear step, L={hi} / L={lo}: {mean_lin[hi] / mean_lin[lo]:.2f} (target <= 1.5)\n")

print(f"## Rank counts (Re = 100, L = {rank_level})\n")
print("| ranks | kinetic energy | rel. dev. from 1 rank | max |u - u_1rank| on centreline | NL steps | lin total |")
print("|---|---|---|---|---|---|")
one = load(f"ranks1_L{rank_level}")
for np in (1, 2, 4, 8):
    r = load(f"ranks{np}_L{rank_level}")
    du = max(abs(a[1] - b[1]) for a, b in zip(r["centerline_u"], one["centerline_u"]))
    print(f"| {np} | {r['kinetic_energy']:.10f} | {abs(r['kinetic_energy'] / one['kinetic_energy'] - 1):.1e} | "
          f"{du:.1e} | {r['nonlinear_iterations']} | {r['linear_iterations']['total']} |")
f = load(f"float_L{rank_level}")
d = load(f"ranks2_L{rank_level}")
print(f"\nfloat vs double local solves (L = {rank_level}, 2 ranks): kinetic energy {f['kinetic_energy']:.10f} vs "
      f"{d['kinetic_energy']:.10f}, rel. diff {abs(f['kinetic_energy'] / d['kinetic_energy'] - 1):.1e}; "
      f"linear iterations {f['linear_iterations']['total']} vs {d['linear_iterations']['total']}\n")

print("## FEAST NS paper, Tables 2/3 layout (1 rank, cpu target, double local solves)\n")
print("| problem | L | DOFs | NL | lin | T_total [s] | R_ass | R_lin | T_lin [s] | T_loc [s] | R_acc | S_max |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for problem in ("stokes", "re100"):
    for L in table_levels:
        r = load(f"table_{problem}_L{L}")
        t = r["timings"]
        print(f"| {'Stokes' if problem == 'stokes' else 'Re=100'} | {L} | {r['dofs']} | {r['nonlinear_iterations']} | "
              f"{r['linear_iterations']['total']} | {t['total']:.2f} | {r['r_ass']:.2f} | {r['r_lin']:.2f} | "
              f"{t['linear']:.2f} | {t['local_solve']:.2f} | {r['r_acc']:.2f} | {r['s_max']:.2f} |")

re400_levels = sorted(int(n[len("re400_L"):-len(".json")]) for n in os.listdir(out)
                      if n.startswith("re400_L") and n.endswith(".json"))
if re400_levels:
    ghia_u400, ghia_v400 = reference("ghia_u.csv", "u_re400"), reference("ghia_v.csv", "v_re400")
    print("\n## Re = 400: agreement with Ghia, Ghia & Shin (1982) (target 0.015)\n")
    print("| L | DOFs | ranks | kinetic energy | max dev u(0.5,y) at y | max dev v(x,0.5) at x | NL steps | lin total | lin/step (mean, max) | time [s] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for L in re400_levels:
        r = load(f"re400_L{L}")
        mean, most = lin_stats(r)
        print(f"| {L} | {r['dofs']} | {r['ranks']} | {r['kinetic_energy']:.8f} | "
              f"{largest_two(r['centerline_u'], ghia_u400)} | {largest_two(r['centerline_v'], ghia_v400)} | "
              f"{r['nonlinear_iterations']} | {r['linear_iterations']['total']} | {mean:.1f}, {most} | "
              f"{r['timings']['total']:.1f} |")

r = load(f"re1000_L{re1000_level}")
bu = reference("botella_re1000_u.csv", "u")
bv = reference("botella_re1000_v.csv", "v")
ke = r["kinetic_energy"]
ke_ref = scalar(1000, "kinetic_energy")
print(f"\n## Re = 1000, L = {re1000_level} ({r['dofs']} DOFs, {r['ranks']} ranks)\n")
print(f"max |u - Botella| = {deviation(r['centerline_u'], bu):.4f}, max |v - Botella| = {deviation(r['centerline_v'], bv):.4f} (target 0.01)")
print(f"kinetic energy {ke:.6f} vs Bruneau & Saad {ke_ref}: {100 * (ke / ke_ref - 1):+.2f}% (target 1%)")
print(f"{r['nonlinear_iterations']} nonlinear steps (continuation 100, 400), {r['linear_iterations']['total']} linear iterations, {r['timings']['total']:.0f} s")
