#!/usr/bin/env bash
# Set-up, build and run on a fresh Debian machine (see README.md):
#   ./quilt.sh demo   installs what is missing, builds, runs the main job
#   ./quilt.sh test   installs what is missing, builds, runs the whole test suite
#   ./quilt.sh build  installs what is missing and builds (build/bin/)
set -euo pipefail
cd "$(dirname "$0")"

# OpenMPI refuses to run as root (CI containers) and to place more ranks than cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
JOBS=$(nproc)

install_dependencies() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  command -v mpicxx >/dev/null || missing+=(libopenmpi-dev)
  command -v mpirun >/dev/null || missing+=(openmpi-bin)
  [ -e /usr/include/suitesparse/umfpack.h ] || missing+=(libsuitesparse-dev)
  # UMFPACK's BLAS: OpenBLAS (serial: one thread per MPI rank) in place of the reference BLAS
  # that libsuitesparse-dev brings; the coarse factorisations of the flows 1.7 times faster, the
  # flows 1.1 times (docs/benchmarks.md, 2026-11-28 16:20 UTC). Any OpenBLAS already there does.
  compgen -G '/usr/lib/*/openblas*/libblas.so.3' >/dev/null || missing+=(libopenblas0-serial)
  [ -e /usr/include/metis.h ] || missing+=(libmetis-dev)
  [ -e /usr/include/boost/program_options.hpp ] || missing+=(libboost-program-options-dev)
  [ -e /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  [ -e /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "quilt.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {
  # nvcc is used when present at /usr/local/cuda (CMakeLists.txt); warnings are errors.
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQUILT_WERROR=ON
  cmake --build build -j "$JOBS"
}

case "${1:-}" in
  build)
    install_dependencies
    build
    ;;
  demo)
    install_dependencies
    build
    # The main job: the lid-driven cavity, Re = 100, 4x2 macros, level 5, on 4 ranks.
    mpirun -np 4 build/bin/quilt-flow --config apps/configs/cavity.ini --mesh.level=5 \
      --results results_cavity.json
    echo "results written to results_cavity.json"
    ;;
  test)
    install_dependencies
    build
    # Label fuzz: libFuzzer runs, only in a clang build with QUILT_FUZZ=ON (fuzz/CMakeLists.txt).
    ctest --test-dir build --output-on-failure -j "$JOBS" -LE fuzz
    ;;
  *)
    echo "usage: ./quilt.sh demo | test | build" >&2
    exit 2
    ;;
esac
