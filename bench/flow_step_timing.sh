#!/usr/bin/env bash
# Time per nonlinear step, split into set-up, assembly and linear solve, of this build against
# an earlier revision's, side by side: the driven cavity (apps/configs/cavity.ini, Re = 100) at
# each level, the two binaries alternated PAIRS times; the median of each quantity is printed.
# Set-up is the structure built once (mesh, hierarchies, plans, symbolic factorisation, solver
# buffers); assembly the numbers of every step (element loops, local coarse levels, numeric
# refactorisation). A revision whose JSON has no timings.setup rebuilt everything per step; its
# set-up column is then total - assembly - linear (the mesh and the solver's first set-up).
# Usage: bench/flow_step_timing.sh REV [build-dir]    e.g. bench/flow_step_timing.sh b94f3f7
#   LEVELS="6 7 8" PAIRS=2 NP=2 by default. REV is built once in build-rev-REV/ (a worktree).
#   CONFIG=apps/configs/dfg_2d1.ini MESH=meshes/dfg_channel.msh times another flow (default: the
#   cavity); the totals and the answers (kinetic energy, drag) of both builds are printed.
#   ARGS_OLD / ARGS_NEW: extra keys for one build only, e.g. ARGS_OLD=--solver.local.precision=double
#   to time REV with the settings it shipped with. A transient config (apps/configs/dfg_2d3.ini,
#   with ARGS_OLD=--time.end=0.5 ARGS_NEW=--time.end=0.5) is timed per time step.
#   REV = this: this build against itself, ARGS_OLD against ARGS_NEW (a key's two settings).
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:?usage: bench/flow_step_timing.sh REV [build-dir]}
NEW=${2:-build}/bin/quilt-flow
LEVELS=${LEVELS:-6 7 8}; PAIRS=${PAIRS:-2}; NP=${NP:-2}
CONFIG=${CONFIG:-apps/configs/cavity.ini}; MESH=${MESH:-meshes/unit_square_4x2.msh}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$REV" = this ]; then
  OLD=$NEW
else
  TREE=build-rev-$REV
  if [ ! -x "$TREE/build/bin/quilt-flow" ]; then
    [ -d "$TREE" ] || git worktree add --detach "$TREE" "$REV" > /dev/null
    cmake -S "$TREE" -B "$TREE/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$TREE/build" -j2 --target quilt-flow > /dev/null
  fi
  OLD=$TREE/build/bin/quilt-flow
fi
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
for L in $LEVELS; do
  for k in $(seq "$PAIRS"); do
    for who in old new; do
      bin=$OLD; args=${ARGS_OLD:-}
      [ "$who" = new ] && { bin=$NEW; args=${ARGS_NEW:-}; }
      # The mesh on the command line: revisions before the config's folder was the base of its
      # paths read the config's mesh.file relative to the working directory.
      # shellcheck disable=SC2086 # args: a list of keys, split on purpose
      mpirun -np "$NP" "$bin" --config "$CONFIG" --mesh.level="$L" --mesh.file="$MESH" $args \
        --results "$OUT/${who}_L${L}_$k.json" > "$OUT/${who}_L${L}_$k.log" 2>&1
    done
  done
done
[ "$REV" = this ] && REV="this ${ARGS_OLD:-}"
python3 - "$OUT" "$LEVELS" "$PAIRS" "$REV" "$CONFIG" <<'PY'
import json, statistics, sys
out, levels, pairs, rev, config = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4], sys.argv[5]
def row(who, L):
    runs = [json.load(open(f"{out}/{who}_L{L}_{k}.json")) for k in range(1, pairs + 1)]
    def med(f): return statistics.median(f(r) for r in runs)
    # A transient run: per time step (nonlinear_iterations is its last step's count).
    steps = runs[0].get("time_steps", runs[0]["nonlinear_iterations"])
    t = lambda r: r["timings"]
    setup = med(lambda r: t(r).get("setup", t(r)["total"] - t(r)["assembly"] - t(r)["linear"]))
    return steps, setup, med(lambda r: t(r)["assembly"]) / steps, \
        med(lambda r: t(r)["linear"]) / steps, med(lambda r: t(r)["total"])
def answer(who, L):
    r = json.load(open(f"{out}/{who}_L{L}_1.json"))
    value = f"c_D {r['drag']:.6f}" if "drag" in r else f"KE {r['kinetic_energy']:.8e}"
    if "time_steps" in r:  # linear_iterations: the last time step's
        its = round(r["linear_iterations_per_time_step"] * r["time_steps"])
        setups = f", {r['preconditioner_setups']} set-ups" if "preconditioner_setups" in r else ""
        return f"{value} at the end, {its} lin. it. in {r['time_steps']} time steps{setups}"
    return f"{value}, {r['linear_iterations']['total']} lin. it."
print(f"{config}, {pairs} alternated pairs, median; per step = per nonlinear step "
      "(per time step for a transient run)")
print("| L | build | steps | set-up [s] | assembly/step [s] | linear/step [s] | total [s] | answer |")
print("|---|---|---|---|---|---|---|---|")
for L in levels:
    rows = {w: row(w, L) for w in ("old", "new")}
    for w, name in (("old", rev), ("new", "this")):
        s, su, a, l, tot = rows[w]
        print(f"| {L} | {name} | {s} | {su:.3f} | {a:.3f} | {l:.3f} | {tot:.2f} | {answer(w, L)} |")
    print(f"| {L} | ratio {rev}/this | | | {rows['old'][2] / rows['new'][2]:.2f} | "
          f"{rows['old'][3] / rows['new'][3]:.2f} | {rows['old'][4] / rows['new'][4]:.2f} | |")
PY
echo "(JSON results and logs in $OUT)"
