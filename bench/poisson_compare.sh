#!/usr/bin/env bash
# Two builds of quilt-poisson side by side on the unit square as 2x2 macros (issue 13): PAIRS
# alternated runs (A, B, A, B, ...) per level, the median setup, solve and setup + solve of each,
# and B / A. Usage: bench/poisson_compare.sh BUILD_A BUILD_B
#   (LEVELS="9 10", PAIRS=3, EXTRA="--solver.local.precision=float")
# Wrap in flock when others time on the machine: flock /tmp/quilt-timing.lock bench/...
set -euo pipefail
cd "$(dirname "$0")/.."
A=$1/bin/quilt-poisson
B=$2/bin/quilt-poisson
LEVELS=${LEVELS:-9}
PAIRS=${PAIRS:-3}
EXTRA=${EXTRA:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# "setup solve iterations" of one run
run() {
  "$1" --config apps/configs/poisson.ini --mesh.file=meshes/unit_square_2x2.msh --mesh.level="$2" \
    $EXTRA | awk '/iterations/ {it = $2; sub(",", "", it)}
                  /time:/ {for (i = 1; i < NF; ++i) {if ($i == "setup") s = $(i + 1)
                                                     if ($i == "solve") v = $(i + 1)}}
                  END {print s, v, it}'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "| L | build | iterations | setup (s) | solve (s) | setup + solve (s) |"
echo "|---|---|---|---|---|---|"
for L in $LEVELS; do
  : > "$TMP/a"; : > "$TMP/b"
  for _ in $(seq "$PAIRS"); do
    run "$A" "$L" >> "$TMP/a"
    run "$B" "$L" >> "$TMP/b"
  done
  for x in a b; do
    f=$TMP/$x
    s=$(awk '{print $1}' "$f" | median); v=$(awk '{print $2}' "$f" | median)
    t=$(awk '{print $1 + $2}' "$f" | median); it=$(awk '{print $3}' "$f" | sort -u | tr '\n' ' ')
    echo "$s $v $t" > "$f.median"
    echo "| $L | $x | $it| $s | $v | $t |"
  done
  read -r sa va ta < "$TMP/a.median"; read -r sb vb tb < "$TMP/b.median"
  awk -v sa="$sa" -v va="$va" -v ta="$ta" -v sb="$sb" -v vb="$vb" -v tb="$tb" -v L="$L" \
    'BEGIN {printf "| %s | b / a | | %.2f | %.2f | %.2f |\n", L, sb / sa, vb / va, tb / ta}'
done
