#!/usr/bin/env bash
# The coarse system of the two-level flow preconditioner (toolkit/flow/coarse_navier_stokes_system.hpp)
# on and off, side by side: FGMRES iterations per nonlinear step, nonlinear steps, solve time and
# the answers of each stationary flow below, the two alternated PAIRS times (median time). "on"
# is the build's default; "off" the same binary with --solver.coarse_system.nodes=0, or with
# OFF_BIN=path/to/quilt-flow OFF_KEYS="" another build as it shipped (an earlier revision, e.g.
# from a git worktree).
# Usage: bench/coarse_system_correction.sh [build-dir]     PAIRS=1 NP=1 by default;
#   CASES="dfg:4 cavity100:7 ..." to choose (default: all below).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin/quilt-flow
OFF_BIN=${OFF_BIN:-$BIN}; OFF_KEYS=${OFF_KEYS---solver.coarse_system.nodes=0}
PAIRS=${PAIRS:-1}; NP=${NP:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
CASES=${CASES:-dfg:4 dfg:5 dfg:6 dfgstokes:4 dfg100:4 cavity100:6 cavity100:7 cavity400:7 cavity1000:7 cavity1000:8}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
args_of() {  # case name -> config and keys
  case $1 in
    dfg) echo "--config apps/configs/dfg_2d1.ini" ;;
    dfgstokes) echo "--config apps/configs/dfg_2d1.ini --flow.stokes=true --nonlinear.rel_tol=1e-8" ;;
    dfg100) echo "--config apps/configs/dfg_re100_steady.ini" ;;
    cavity*) echo "--config apps/configs/cavity.ini --flow.re=${1#cavity}" ;;
    *) echo "unknown case $1" >&2; exit 2 ;;
  esac
}
for c in $CASES; do
  name=${c%%:*}; L=${c##*:}
  for k in $(seq "$PAIRS"); do
    for who in off on; do
      bin=$BIN keys=""; [ "$who" = off ] && { bin=$OFF_BIN; keys=$OFF_KEYS; }
      # shellcheck disable=SC2046,SC2086 # the keys: a list, split on purpose
      mpirun -np "$NP" "$bin" $(args_of "$name") --mesh.level="$L" $keys \
        --results "$OUT/${name}_L${L}_${who}_$k.json" > "$OUT/${name}_L${L}_${who}_$k.log" 2>&1 ||
        echo "$name L=$L $who: failed (see $OUT/${name}_L${L}_${who}_$k.log)" >&2
    done
  done
done
python3 - "$OUT" "$CASES" "$PAIRS" "$NP" <<'PY'
import json, os, statistics, sys
out, cases, pairs, np_ = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
def runs(name, L, who):
    files = [f"{out}/{name}_L{L}_{who}_{k}.json" for k in range(1, pairs + 1)]
    return [json.load(open(f)) for f in files if os.path.exists(f)]
def answer(r):
    if "drag" in r and r["drag"] is not None:
        return f"c_D {r['drag']:.6f} Δp {r['pressure_difference']:.6f}"
    return f"KE {r['kinetic_energy']:.8e}"
print(f"{np_} rank(s), {pairs} alternated pair(s), median time; its/step = FGMRES iterations per nonlinear step")
print("| case | L | steps off / on | its off / on | its/step off / on | time off / on [s] | off/on | answer off ; on |")
print("|---|---|---|---|---|---|---|---|")
for c in cases:
    name, L = c.split(":")
    off, on = runs(name, L, "off"), runs(name, L, "on")
    if not off or not on or not off[0].get("converged") or not on[0].get("converged"):
        print(f"| {name} | {L} | (a run failed or did not converge) |"); continue
    st = lambda r: r["nonlinear_iterations"]
    it = lambda r: r["linear_iterations"]["total"]
    per = lambda r: it(r) / max(1, len([x for x in r["linear_iterations"]["per_step"] if x > 0]))
    t = lambda rs: statistics.median(r["timings"]["total"] for r in rs)
    print(f"| {name} | {L} | {st(off[0])} / {st(on[0])} | {it(off[0])} / {it(on[0])} | "
          f"{per(off[0]):.1f} / {per(on[0]):.1f} | {t(off):.2f} / {t(on):.2f} | "
          f"{t(off) / t(on):.2f} | {answer(off[0])} ; {answer(on[0])} |")
PY
