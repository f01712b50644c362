#!/usr/bin/env bash
# Per-phase profile of the Poisson solve (issue 13): the unit square as 2x2 macros at L = 9
# (1.05M unknowns; L = 10 with LEVELS="9 10"), CG + one ScaRC V-cycle, rtol 1e-8, 1 rank.
# Prints the solver's own timers (set-up, solve, local solves, coarse solve) and a perf profile
# grouped into the phases of set-up and solve: the inclusive share of the functions that make
# each phase (perf record --call-graph dwarf), times the measured wall time.
# Usage: bench/poisson_profile.sh [build-dir]   (LEVELS="9 10", PRECISION=float, EXTRA="--key=v")
# Timing runs of several engineers share the machine: wrap the call in flock, e.g.
#   flock /tmp/quilt-timing.lock bench/poisson_profile.sh build
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BIN=$BUILD/bin/quilt-poisson
LEVELS=${LEVELS:-9}
PRECISION=${PRECISION:-double}
EXTRA=${EXTRA:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT


run() {  # run LEVEL [extra args]: the solver's summary
  local L=$1; shift
  "$BIN" --config apps/configs/poisson.ini --mesh.file=meshes/unit_square_2x2.msh \
    --mesh.level="$L" --solver.local.precision="$PRECISION" $EXTRA "$@"
}

# Phases as the functions that make them; a sample counts for the first pattern of its phase
# list that one of its frames matches (inclusive), so nested phases are listed before outer ones.
PHASES='
setup:assembly|LevelHierarchy::assemble
setup:hierarchy|LevelHierarchy::LevelHierarchy
setup:galerkin|LocalCoarseLevels::update
setup:coarse factorisation|CoarseGridSolver::CoarseGridSolver
setup:local solver set-up|CpuLocalMultigrid<.*>::setup
setup:right-hand side|assemble_load
solve:local solves|CpuLocalMultigrid<.*>::solve
solve:coarse solve|CoarseGridSolver::solve
solve:shared-node sums|SharedNodes::sum
solve:global defects (products with their sweep)|LevelOperator::apply|LevelOperator::weighted_defect
solve:transfers|restrict_transpose|prolongate
solve:dot products and CG updates|SharedNodes::dot|LevelOperator::update_dot|LevelOperator::filter_dot
solve:vector work (Schwarz updates, xpby)|solve_krylov|GlobalMultigrid::cycle|GlobalMultigrid::smooth
post:errors and checksum|q1_squared_errors|fnv1a
'

for L in $LEVELS; do
  echo "## quilt-poisson, unit square 2x2 macros, L = $L, $PRECISION local solves, 1 rank"
  echo
  run "$L" | sed 's/^/    /'
  echo
  if ! command -v perf > /dev/null; then echo "(perf not installed: no phase breakdown)"; continue; fi
  wall=$( { /usr/bin/time -f '%e' perf record -q -F 499 --call-graph dwarf,16384 -o "$TMP/perf.data" \
             "$BIN" --config apps/configs/poisson.ini --mesh.file=meshes/unit_square_2x2.msh \
             --mesh.level="$L" --solver.local.precision="$PRECISION" $EXTRA > /dev/null; } 2>&1 | tail -1)
  perf script -i "$TMP/perf.data" -F comm,ip,sym --no-inline 2> /dev/null |
    awk -v phases="$PHASES" -v wall="$wall" '
      BEGIN {
        n = split(phases, lines, "\n"); np = 0
        for (i = 1; i <= n; ++i) if (lines[i] != "") {
          c = index(lines[i], "|"); np++; name[np] = substr(lines[i], 1, c - 1)
          pat[np] = substr(lines[i], c + 1)
        }
      }
      function flush() {
        if (!have) return
        total++; hit = 0
        for (p = 1; p <= np && !hit; ++p) if (stack ~ pat[p]) { count[p]++; hit = 1 }
        if (!hit) other++
        stack = ""; have = 0
      }
      /^[^ \t]/ { flush(); have = 1; next }
      /^[ \t]*$/ { flush(); next }
      { stack = stack " " $0 }
      END {
        flush()
        printf "| phase | share | seconds (of %.2f s under perf) |\n|---|---|---|\n", wall
        for (p = 1; p <= np; ++p)
          printf "| %s | %.1f%% | %.3f |\n", name[p], 100 * count[p] / total, wall * count[p] / total
        printf "| other (mesh, MPI start-up, output) | %.1f%% | %.3f |\n", 100 * other / total, wall * other / total
      }'
  echo
  echo "Hottest functions (self):"
  perf report -i "$TMP/perf.data" --no-children --stdio --sort symbol -g none 2> /dev/null |
    grep -E '^ +[0-9]' | head -15
  echo
done
