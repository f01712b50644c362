#!/usr/bin/env bash
# The first run on a machine with a GPU and nvcc (no MPI needed), in one command: builds accel/
# standalone, runs the cuda tests on the device (QUILT_REQUIRE_CUDA=1, so nothing passes by
# skipping), runs quilt-bench-cuda, the whole ScaRC solver on the cuda target where a portable
# bundle is given (bench/gpu_scarc.sh), Nsight Compute on the smoother kernels that miss the
# performance model (docs/gpu_h200.md: the zebra line solves and the ILU wavefronts; report in
# <build-dir>/gpu-check/ncu-*.log), compute-sanitizer's memcheck, synccheck and racecheck over the
# device suite, and the cuda suite on the host emulation; prints one table of the steps.
#
#   bench/gpu_check.sh [--build-only] [build-dir]        (default build-dir: build-gpu-check)
#
# Environment: CUDA_HOME (default /usr/local/cuda), QUILT_JOBS (build jobs, default nproc),
# QUILT_CUDA_ARCHITECTURES (passed as CMAKE_CUDA_ARCHITECTURES; default: the build's own list),
# QUILT_BENCH_ARGS (default --quick; empty for the full benchmark), QUILT_BUNDLE (a folder made
# by bench/portable_bundle.sh pack: adds the step scarc), QUILT_STEP_TIMEOUT (seconds per step,
# default 900), QUILT_TIME_LIMIT (seconds for the whole check: a step gets at most what is left,
# and none starts with under 10 s left; for a lease of fixed length), QUILT_SKIP (step names to
# leave out, e.g. "racecheck ctest-emulation", or "ncu-aditrigs ncu-ilu" without Nsight Compute).
# Logs: <build-dir>/gpu-check/. --build-only configures and builds, and stops (for machines
# without a GPU). Exit status 0 when every step that ran passed.
set -uo pipefail

build_only=0
if [[ ${1:-} == --build-only ]]; then
  build_only=1
  shift
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath -m "${1:-$root/build-gpu-check}")
cuda=${CUDA_HOME:-/usr/local/cuda}
jobs=${QUILT_JOBS:-$(nproc)}
bench_args=${QUILT_BENCH_ARGS---quick}
logs=$build/gpu-check
step_timeout=${QUILT_STEP_TIMEOUT:-900}
deadline=$(($(date +%s) + ${QUILT_TIME_LIMIT:-86400}))
skip=" ${QUILT_SKIP:-} "
mkdir -p "$logs"

rows=()
failed=0
# step NAME COMMAND...: runs COMMAND (at most step_timeout seconds) with its output in
# $logs/NAME.log and adds a table row; a step named in QUILT_SKIP only adds its row.
step() {
  local name=$1
  shift
  local log=$logs/$name.log start end rc status
  local limit=$((deadline - $(date +%s)))
  ((limit > step_timeout)) && limit=$step_timeout
  if [[ $skip == *" $name "* ]]; then
    rows+=("$(printf '| %-22s | %-9s | %8s | %s |' "$name" skipped - QUILT_SKIP)")
    return 0
  fi
  if ((limit < 10)); then
    rows+=("$(printf '| %-22s | %-9s | %8s | %s |' "$name" "not run" - "QUILT_TIME_LIMIT reached")")
    failed=1
    return 1
  fi
  start=$(date +%s%N)
  timeout "$limit" "$@" >"$log" 2>&1
  rc=$?
  end=$(date +%s%N)
  if [[ $rc -eq 0 ]]; then status=pass
  elif [[ $rc -eq 124 ]]; then status="TIMEOUT"; failed=1
  else status="FAIL ($rc)"; failed=1; fi
  rows+=("$(printf '| %-22s | %-9s | %8.1f | %s |' "$name" "$status" "$(((end - start) / 1000000))e-3" \
    "$(summary "$name" "$log")")")
  return $rc
}

# One line per step for the table, from its log.
summary() {
  case $1 in
    device)
      grep -m1 -E '^GPU 0' "$2" || tail -n1 "$2" ;;
    ctest-*)
      grep -m1 -E 'tests passed|tests failed' "$2" || tail -n1 "$2" ;;
    ncu-*)
      grep -m1 -E 'ERR|rror|No such file|not found' "$2" || echo "report in $2" ;;
    memcheck | racecheck | synccheck)
      grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY|not found' "$2" || tail -n1 "$2" ;;
    bench)
      grep -m1 -E 'no CUDA device|error' "$2" || echo "tables in $2" ;;
    scarc)
      grep -m1 -E 'FAIL|rror' "$2" || echo "table below" ;;
    *)
      tail -n1 "$2" ;;
  esac
}

# first_executable PATH...: the first of the paths that is an executable file, or nothing.
first_executable() {
  local s
  for s in "$@"; do
    if [[ -n $s && -x $s ]]; then echo "$s"; return; fi
  done
}
ncu=$(first_executable "$cuda/bin/ncu" "$(command -v ncu 2>/dev/null)")
sanitizer=$(first_executable "$cuda/bin/compute-sanitizer" \
  "$cuda/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)")

configure=(cmake -S "$root/accel" -B "$build" -DCMAKE_BUILD_TYPE=Release
           -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc")
[[ -n ${QUILT_CUDA_ARCHITECTURES:-} ]] &&
  configure+=(-DCMAKE_CUDA_ARCHITECTURES="$QUILT_CUDA_ARCHITECTURES")

if [[ $build_only -eq 0 ]]; then
  step device nvidia-smi -L
fi
step configure "${configure[@]}" &&
  step build cmake --build "$build" -j"$jobs" &&
  step has-cuda-target test -x "$build/bin/test_accel_cuda"
built=$?

if [[ $build_only -eq 0 && $built -eq 0 ]]; then
  # Device tests must run, not skip; test_accel_cuda_no_device skips when a device is visible.
  step ctest-device env QUILT_REQUIRE_CUDA=1 ctest --test-dir "$build" -L cuda -LE emul \
    --output-on-failure
  # shellcheck disable=SC2086 # QUILT_BENCH_ARGS is a list of arguments
  step bench "$build/bin/quilt-bench-cuda" $bench_args
  if [[ -n ${QUILT_BUNDLE:-} ]]; then
    step scarc env QUILT_SCARC_OUT="$logs/scarc" "$root/bench/gpu_scarc.sh" "$QUILT_BUNDLE"
  fi
  # Hardware counters of the line and ILU kernels in one V(1,1) cycle each at L = 10 (clocks as
  # the card runs them: --clock-control none leaves its settings alone).
  for smoother in aditrigs ilu; do
    step "ncu-$smoother" "${ncu:-ncu-not-found}" --clock-control none \
      --kernel-name "regex:zebra_line|transpose_grid|ilu" --launch-count 12 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section LaunchStats --section WarpStateStats \
      "$build/bin/quilt-bench-cuda" --profile "$smoother"
  done
  # The device suite under compute-sanitizer's memcheck, synccheck and racecheck.
  for tool in memcheck synccheck racecheck; do
    extra=()
    [[ $tool == memcheck ]] && extra=(--leak-check full)
    [[ $tool == racecheck ]] && extra=(--racecheck-report all)
    step "$tool" env QUILT_REQUIRE_CUDA=1 "${sanitizer:-compute-sanitizer-not-found}" \
      --tool "$tool" "${extra[@]}" --error-exitcode 1 "$build/bin/test_accel_cuda" \
      "--gtest_filter=-*WithoutDevice*"
  done
  step ctest-emulation ctest --test-dir "$build" -L emul --output-on-failure
fi

echo
echo "quilt gpu check: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
echo "| step                   | result    |  seconds | detail |"
echo "|---|---|---:|---|"
printf '%s\n' "${rows[@]}"
[[ -f $logs/bench.log ]] && { echo; echo "quilt-bench-cuda $bench_args:"; cat "$logs/bench.log"; }
[[ -f $logs/scarc.log ]] && { echo; echo "bench/gpu_scarc.sh:"; grep '^|' "$logs/scarc.log"; }
exit $failed
