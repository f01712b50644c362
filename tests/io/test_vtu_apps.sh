#!/usr/bin/env bash
# What a ParaView user opens: quilt-flow (cavity) and quilt-poisson at 2 ranks write --vtu DIR,
# and vtu_check reads the PVTU and every piece back (format, arrays, ranks, macros, finite values).
# Where VTK's Python module is installed (optional), VTK's own reader reads the files too and
# must see the same counts and value ranges, to the last bit.
# Usage: test_vtu_apps.sh QUILT_FLOW QUILT_POISSON VTU_CHECK MPIRUN (from the repository root)
set -euo pipefail
FLOW=$1
POISSON=$2
CHECK=$3
MPIRUN=$4
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
RUN=("$MPIRUN" --oversubscribe -np 2)

# A Python with VTK: pyenv's python3 may lack the Debian package that the system one has.
VTK_PYTHON=
for python in python3 /usr/bin/python3; do
  if "$python" -c "import vtkmodules.vtkIOXML" 2> /dev/null; then
    VTK_PYTHON=$python
    break
  fi
done

# check PVTU NAME:COMPONENTS...: vtu_check, then (if there is one) VTK's reader.
check() {
  local pvtu=$1
  "$CHECK" "$@" | tee "$DIR/ours"
  if [ -n "$VTK_PYTHON" ]; then
    "$VTK_PYTHON" tests/io/vtu_vtk_read.py "$pvtu" > "$DIR/vtk"
    diff <(sed 's/^.* macros, //' "$DIR/ours") "$DIR/vtk"
    echo "VTK reads the same"
  fi
}

"${RUN[@]}" "$FLOW" --config apps/configs/cavity.ini --mesh.level=3 --vtu "$DIR/flow" \
  > "$DIR/flow.log"
check "$DIR/flow/flow.pvtu" velocity:3 pressure:1 vorticity:1

"${RUN[@]}" "$POISSON" --config apps/configs/poisson.ini --mesh.level=3 --vtu "$DIR/poisson" \
  > "$DIR/poisson.log"
check "$DIR/poisson/poisson.pvtu" u:1 error:1
