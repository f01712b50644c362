#!/usr/bin/env bash
# Shows that the cuda suite on the host emulation (test_accel_cuda_emul) catches defects a
# missing GPU would otherwise hide. A copy of accel/ (with tests/accel and bench/) is built once
# as a standalone accel build without nvcc; then each defect is applied to the copy, the suite
# rebuilt and run, and the defect reported as caught if the suite fails. The unmodified copy
# must pass first.
#
#   tests/accel/emulation_defects.sh [work-dir]      (default: a fresh temporary directory)
#
# Exit status 0 when the unmodified suite passes and every defect is caught.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:-$(mktemp -d /tmp/quilt-emulation-defects.XXXXXX)}
jobs=${QUILT_JOBS:-2}
src=$work/src
pristine=$work/pristine
build=$work/build
# A snapshot: edits to the working tree while this runs do not reach the copy.
rm -rf "$src" "$pristine"
mkdir -p "$pristine/tests"
cp -r "$root/accel" "$pristine/accel"
cp -r "$root/tests/accel" "$pristine/tests/accel"
cp -r "$root/bench" "$pristine/bench"
cp -r "$pristine" "$src"

echo "== configure and build the copy in $work"
cmake -S "$src/accel" -B "$build" -DCMAKE_BUILD_TYPE=Release -DQUILT_CUDA=OFF >"$work/configure.log"

suite() {  # build and run the emulated suite; its log goes to $1
  if ! nice cmake --build "$build" -j"$jobs" --target test_accel_cuda_emul >"$1" 2>&1; then
    echo "build failed"
    return 2
  fi
  QUILT_REQUIRE_CUDA=1 "$build/bin/test_accel_cuda_emul" --gtest_filter=-*WithoutDevice* \
    >>"$1" 2>&1
}

# replace FILE OCCURRENCE OLD NEW: the OCCURRENCE-th (1-based) OLD in FILE becomes NEW.
replace() {
  python3 - "$@" <<'PY'
import sys
path, nth, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
text = open(path).read()
at = -1
for _ in range(nth):
    at = text.find(old, at + 1)
    if at < 0:
        sys.exit(f"{path}: occurrence {nth} of {old!r} not found")
open(path, "w").write(text[:at] + new + text[at + len(old):])
PY
}

summary() {  # the failed tests of a log, or its last lines
  local failed
  failed=$(grep -E '^\[  FAILED  \] [A-Za-z]' "$1" | sed 's/^\[  FAILED  \] //; s/ (.*//' | sort -u |
    tr '\n' ' ')
  if [[ -n $failed ]]; then echo "failed: $failed"; else tail -n 3 "$1" | tr '\n' ' '; fi
  grep -m2 'quilt cuda emulation:' "$1" || true
}

kernels=accel/cuda/band_kernels.cuh
smoothers=accel/cuda/smoother_kernels.cuh
multigrid=accel/cuda/cuda_local_multigrid.cu
pcr=accel/cuda/pcr.cuh
# name | file | occurrence | text | replacement
defects=(
  "band index off by one (interior rows of band_row read band k-1)|$kernels|1|A.band[k] + g|A.band[k - 1] + g"
  "band index off by one (colour Gauss-Seidel couples the node below through band 1, not 2)|$smoothers|1|A.band[first + 2]|A.band[first + 1]"
  "barrier removed: norm reduction, after the per-thread sums|$kernels|1|__syncthreads();|"
  "barrier removed: norm reduction, inside the tree|$kernels|2|__syncthreads();|"
  "barrier removed: coarse LU, after loading the right-hand side|$kernels|3|__syncthreads();|"
  "barrier removed: coarse LU, forward substitution|$kernels|4|__syncthreads();|"
  "barrier removed: coarse LU, column-oriented back substitution|$kernels|5|__syncthreads();|"
  "barrier removed: coarse LU, before the result is written|$kernels|6|__syncthreads();|"
  "barrier removed: line PCR, between a step's neighbour reads and its writes|$pcr|2|__syncthreads();|"
  "barrier removed: line PCR, between a step's writes and the next step's reads|$pcr|3|__syncthreads();|"
  "line PCR reads the upper neighbour's lower entry at distance 1, not d|$pcr|1|s.lo[q + d]|s.lo[q + 1]"
  "stream synchronisation removed: solve(), before the correction is read|$multigrid|1|  stream_.synchronize();
  if (!direct)|  if (!direct)"
  "graph replay: the host loses track of the iterate buffers|$multigrid|1|levels_[k].current = g.current_after[k];|(void)k;"
  "stream synchronisation removed: finest_defect_norms(), before the norms are read|$multigrid|1|                                   cudaMemcpyDeviceToHost, s));
  stream_.synchronize();|                                   cudaMemcpyDeviceToHost, s));"
)

status=0
echo "== unmodified"
if suite "$work/unmodified.log"; then
  echo "passes"
else
  echo "FAILS unmodified: $(summary "$work/unmodified.log")"
  exit 1
fi

i=0
for d in "${defects[@]}"; do
  i=$((i + 1))
  IFS='|' read -r name file nth old new <<<"$d"
  # The multi-line texts are read up to the first newline by read; take them from the entry.
  old=$(printf '%s' "$d" | python3 -c 'import sys; print(sys.stdin.read().split("|")[3], end="")')
  new=$(printf '%s' "$d" | python3 -c 'import sys; print(sys.stdin.read().split("|")[4], end="")')
  echo "== defect $i: $name"
  cp "$pristine/$file" "$src/$file"
  replace "$src/$file" "$nth" "$old" "$new"
  diff -u "$pristine/$file" "$src/$file" | sed -n '3,$p' | grep '^[-+]' | sed 's/^/   /' || true
  log=$work/defect$i.log
  set +e
  suite "$log"
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then
    echo "MISSED: the suite passes"
    status=1
  elif [[ $rc -eq 2 ]]; then
    echo "INVALID: the defect does not build ($log)"
    status=1
  else
    echo "caught (exit $rc): $(summary "$log")"
  fi
  cp "$pristine/$file" "$src/$file"
done
exit $status
