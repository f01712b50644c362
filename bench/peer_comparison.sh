#!/usr/bin/env bash
# Quilt against general-purpose peer solvers on the same linear system (docs/benchmarks.md):
# quilt-poisson exports its assembled system (--export-matrix), then Quilt (CG + ScaRC, set-up
# and solve) and the peers (bench/peers/peer_solve: hypre BoomerAMG-PCG, PETSc GAMG-CG) solve it
# alternately to |r|/|r_0| <= 1e-8, PAIRS times at every rank count; the table holds the medians,
# the ratio peer time / Quilt time (set-up + solve each), the iterations, the true residual and
# the peak resident memory (summed over the ranks) per unknown. Quilt's right-hand side (load
# vector and boundary values, timed apart from its set-up) is problem data like the peers' file
# of b, which their times leave out; the table also gives the ratio with it counted for Quilt.
#
#   bench/peer_comparison.sh [build-dir]
# Environment (defaults in brackets):
#   CASES ["unit_square_2x2:9 unit_square_2x2:10 unit_square_unstructured:8"]  MESH:LEVEL
#   RANKS ["1 2"]     PAIRS [3]     PEERS ["hypre gamg"] (gamg only if peer_solve has PETSc)
#   QUILT_ARGS [""]   extra quilt-poisson keys, e.g. --solver.local.precision=float
#   LOCK [""]         a file: every Quilt-and-peers round runs under flock LOCK (a shared machine)
#   KEEP [""]         a folder to keep the exported systems and the raw lines in
# The systems are the Poisson problem with u = sin(pi x) sin(pi y) (zero boundary values, so
# the peers' |b| is Quilt's |r_0|: both stop at the same residual); peer_solve is built by
# bench/peers/build.sh if missing. Needs hypre (libhypre-dev); PETSc (petsc-dev) optional.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
QUILT=$BUILD/bin/quilt-poisson
PEER=$BUILD/peers/peer_solve
CASES=${CASES:-"unit_square_2x2:9 unit_square_2x2:10 unit_square_unstructured:8"}
RANKS=${RANKS:-"1 2"}
PAIRS=${PAIRS:-3}
PEERS=${PEERS:-"hypre gamg"}
QUILT_ARGS=${QUILT_ARGS:-}
LOCK=${LOCK:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS=1 OMPI_MCA_rmaps_base_oversubscribe=1

[ -x "$QUILT" ] || { echo "peer_comparison: $QUILT missing (build the project first)" >&2; exit 2; }
[ -x "$PEER" ] || bench/peers/build.sh "$BUILD/peers"
AVAILABLE=" $("$PEER" -solvers) "
for peer in $PEERS; do
  [[ "$AVAILABLE" == *" $peer "* ]] || { echo "peer_comparison: $PEER has no $peer, left out" >&2; PEERS=${PEERS//$peer/}; }
done
[ -x /usr/bin/time ] || { echo "peer_comparison: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }

WORK=${KEEP:-$(mktemp -d)}
mkdir -p "$WORK"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
RAW=$WORK/raw.txt
: > "$RAW"

# measured NP RSSFILE CMD...: runs CMD on NP ranks, every rank under /usr/bin/time; the peak
# resident sets of all ranks (KiB) summed into RSSFILE. Ranks are not bound to cores: on a
# machine shared with other work a bound rank cannot move away from a busy core.
measured() {
  local np=$1 rss=$2; shift 2
  rm -f "$rss".*
  mpirun -np "$np" --bind-to none sh -c 'exec /usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
    "$rss" "$@"
  cat "$rss".* | awk '{s += $1} END {print s}' > "$rss"
}

quilt_keys() {  # MESH LEVEL
  echo --config apps/configs/poisson.ini --mesh.file=meshes/$1.msh --mesh.level=$2 \
    --problem.solution=sin_sin --solver.rel_tol=1e-8 --solver.max_iter=100 $QUILT_ARGS
}

# One round: Quilt, then every peer, on NP ranks; one RESULT line each into RAW.
round() {  # MESH LEVEL NP SYSTEM
  local mesh=$1 level=$2 np=$3 system=$4
  measured "$np" "$WORK/rss" "$QUILT" $(quilt_keys "$mesh" "$level") --results "$WORK/q.json" > /dev/null
  python3 - "$WORK/q.json" "$(cat "$WORK/rss")" "$mesh" "$level" "$np" >> "$RAW" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["timings"]
print(f"RESULT mesh={sys.argv[3]} level={sys.argv[4]} ranks={sys.argv[5]} solver=quilt "
      f"unknowns={r['dofs']} time={t['setup'] + t['solve']:.4f} setup={t['setup']:.4f} "
      f"solve={t['solve']:.4f} rhs={t.get('rhs', 0.0):.4f} iterations={r['iterations']} "
      f"residual={r['final_relative_residual']:.3e} r0={r['residual_history'][0]:.17g} "
      f"rss_kib={sys.argv[2]}")
PY
  for peer in $PEERS; do
    measured "$np" "$WORK/rss" "$PEER" -A "$system" -b "$system.rhs" -solver "$peer" -rtol 1e-8 \
      > "$WORK/peer.txt"
    grep '^PEER' "$WORK/peer.txt" | awk -v mesh="$mesh" -v level="$level" -v rss="$(cat "$WORK/rss")" '{
      for (i = 2; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "RESULT mesh=%s level=%s ranks=%s solver=%s unknowns=%s time=%.4f setup=%s solve=%s iterations=%s residual=%s r0=%s rss_kib=%s\n",
        mesh, level, v["ranks"], v["solver"], v["unknowns"], v["setup"] + v["solve"], v["setup"],
        v["solve"], v["iterations"], v["true_residual"], v["rhs_norm"], rss }' >> "$RAW"
  done
}

for entry in $CASES; do
  mesh=${entry%%:*}; level=${entry##*:}
  system=$WORK/${mesh}_L$level.mtx
  echo "[$(date +%T)] $mesh L=$level: exporting the system" >&2
  "$QUILT" $(quilt_keys "$mesh" "$level") --export-matrix="$system" > /dev/null
  for np in $RANKS; do
    for pair in $(seq 1 "$PAIRS"); do
      echo "[$(date +%T)] $mesh L=$level, $np rank(s), round $pair of $PAIRS" >&2
      if [ -n "$LOCK" ]; then
        export -f round measured quilt_keys
        export QUILT PEER PEERS WORK RAW QUILT_ARGS
        flock "$LOCK" bash -c 'round "$@"' round "$mesh" "$level" "$np" "$system"
      else
        round "$mesh" "$level" "$np" "$system"
      fi
    done
  done
  [ -n "${KEEP:-}" ] || rm -f "$system" "$system.rhs"
done

python3 - "$RAW" "$PEERS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith("RESULT"):
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    rows.setdefault((f["mesh"], int(f["level"]), int(f["ranks"])), {}).setdefault(
        f["solver"], []).append(f)
peers = sys.argv[2].split()
def med(runs, key):
    return statistics.median(float(r[key]) for r in runs)
head = "| mesh | L | unknowns | ranks | Quilt s (setup+solve) | its |"
line = "|---|---|---|---|---|---|"
for p in peers:
    head += f" {p} s | its | {p}/Quilt |"
    line += "---|---|---|"
head += " Quilt rhs s |" + "".join(f" {p}/(Quilt+rhs) |" for p in peers)
line += "---|" + "---|" * len(peers)
head += " RSS B/unknown: Quilt |" + "".join(f" {p} |" for p in peers) + " same system |"
line += "---|" + "---|" * len(peers) + "---|"
print(head)
print(line)
for (mesh, level, ranks), by in sorted(rows.items()):
    q = by["quilt"]
    n = int(q[0]["unknowns"])
    tq = med(q, "time")
    out = (f"| {mesh} | {level} | {n} | {ranks} | {tq:.3f} ({med(q, 'setup'):.3f}+"
           f"{med(q, 'solve'):.3f}) | {q[0]['iterations']} |")
    same = []
    for p in peers:
        runs = by.get(p, [])
        if not runs:
            out += " - | - | - |"
            continue
        tp = med(runs, "time")
        out += f" {tp:.3f} ({med(runs, 'setup'):.3f}+{med(runs, 'solve'):.3f}) | {runs[0]['iterations']} | {tp / tq:.2f} |"
        r0q, r0p = float(q[0]["r0"]), float(runs[0]["r0"])
        same.append(abs(r0q - r0p) <= 1e-12 * r0q)
    rhs = med(q, "rhs") if "rhs" in q[0] else 0.0
    out += f" {rhs:.3f} |"
    for p in peers:
        runs = by.get(p, [])
        out += f" {med(runs, 'time') / (tq + rhs):.2f} |" if runs else " - |"
    out += f" {med(q, 'rss_kib') * 1024 / n:.0f} |"
    for p in peers:
        runs = by.get(p, [])
        out += f" {med(runs, 'rss_kib') * 1024 / n:.0f} |" if runs else " - |"
    out += (" yes |" if same and all(same) else " NO |")
    print(out)
print()
print(f"Medians of {len(q)} alternated rounds. Final |r|/|r_0| (Quilt: the CG's own, updated "
      "recursively, which test_matrix_export checks against the exported system; peers: "
      "|b - A x|/|b| recomputed): " + ", ".join(
    f"{mesh} L={level} np={ranks}: " + " ".join(
        f"{s}={by[s][0]['residual']}" for s in ['quilt'] + [p for p in peers if p in by])
    for (mesh, level, ranks), by in sorted(rows.items())))
PY
