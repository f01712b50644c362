#!/usr/bin/env bash
# An interrupted run (apps/common/mpi_main): SIGTERM or SIGINT ends quilt-flow with status
# 128 + signal and one line saying what became of --results; an existing results file stays
# byte for byte as it was and no temporary is left beside it. Run alone and under mpirun (which
# passes SIGINT and SIGTERM on to the ranks as SIGTERM and exits with status 1 itself).
# Usage: test_interrupted_run.sh QUILT_FLOW MPIRUN (from the repository root)
set -euo pipefail
FLOW=$1
MPIRUN=$2
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

# A run that goes on until it is stopped: no tolerance is ever met, the nonlinear steps go on.
ENDLESS=(--config apps/configs/cavity.ini --mesh.level=3 --nonlinear.rel_tol=1e-300
         --nonlinear.abs_tol=0 --nonlinear.max_iter=1000000000)

# interrupt NAME SIGNAL STATUS SHOWN [LAUNCHER...]: starts quilt-flow (under LAUNCHER) with an
# existing results file, sends SIGNAL once a nonlinear step was logged, and checks the exit
# status, the line naming SIGSHOWN (the signal the ranks got) and what is left.
interrupt() {
  local name=$1 signal=$2 status=$3 shown=$4
  shift 4
  local out="$DIR/$name"
  mkdir "$out"
  printf '{"previous": "results"}\n' > "$out/results.json"
  cp "$out/results.json" "$DIR/$name.expected"
  : > "$DIR/$name.stdout"
  # Started with the signal's default action: a background job of a script ignores SIGINT.
  env --default-signal=INT "$@" "$FLOW" "${ENDLESS[@]}" --results "$out/results.json" \
    > "$DIR/$name.stdout" 2> "$DIR/$name.stderr" &
  local pid=$!
  # The log is line-buffered: its step lines show that the handlers are in place.
  local waited=0
  until grep -qE '^ +1 ' "$DIR/$name.stdout"; do
    sleep 0.2
    waited=$((waited + 1))
    if [ $waited -gt 600 ] || ! kill -0 $pid 2> /dev/null; then
      kill -KILL $pid 2> /dev/null || true
      fail "$name: no nonlinear step logged"
      cat "$DIR/$name.stdout" "$DIR/$name.stderr" >&2
      return
    fi
  done
  kill "-$signal" $pid
  local rc=0
  wait $pid || rc=$?
  [ "$rc" = "$status" ] || fail "$name: exit status $rc, expected $status"
  local message="quilt-flow: interrupted (SIG$shown); the results file was not written (an existing one is unchanged)"
  [ "$(grep -c "interrupted" "$DIR/$name.stderr")" = 1 ] || fail "$name: not one interruption line"
  grep -qF "$message" "$DIR/$name.stderr" ||
    { fail "$name: no line '$message'"; cat "$DIR/$name.stderr" >&2; }
  cmp -s "$out/results.json" "$DIR/$name.expected" || fail "$name: the results file changed"
  [ "$(ls "$out")" = "results.json" ] || fail "$name: left behind: $(ls "$out")"
}

interrupt alone_term TERM 143 TERM
interrupt alone_int INT 130 INT
interrupt mpirun_term TERM 1 TERM "$MPIRUN" -np 2 --oversubscribe
interrupt mpirun_int INT 1 TERM "$MPIRUN" -np 2 --oversubscribe

[ $failures = 0 ] && echo "all interrupted runs ended cleanly"
exit $((failures > 0))
