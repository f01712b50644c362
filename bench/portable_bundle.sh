#!/usr/bin/env bash
# A self-contained copy of Quilt's programs for a machine that has a GPU but no MPI, UMFPACK,
# METIS or Boost (a lent GPU node, a container): the binaries, every shared library they load
# (the C library and its loader included, so the target's own glibc does not matter), and Open
# MPI's plugins. The GPU driver (libcuda.so.1) is the one thing taken from the target.
#
#   bench/portable_bundle.sh pack DIR [BUILD]   copy BUILD/bin's quilt-* programs (default: build)
#   bench/portable_bundle.sh run DIR PROGRAM [ARGS...]
#                                               run DIR/bin/PROGRAM, 1 rank (MPI singleton)
#   bench/portable_bundle.sh mpirun DIR NP PROGRAM [ARGS...]
#                                               run it on NP ranks through the bundled mpirun
#
# Run from the repository root, so that configs and meshes resolve as usual.
set -euo pipefail

die() { echo "portable_bundle.sh: $*" >&2; exit 2; }

# The shared libraries that FILE loads, as resolved here (libcuda excepted: the driver's own).
libraries_of() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' |
    grep -v -E '/libcuda\.so'
}

pack() {
  local dir=$1 build=${2:-build}
  [[ -d $build/bin ]] || die "no $build/bin: build first"
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/lib" "$dir/openmpi"
  cp -L "$build"/bin/quilt-* "$dir/bin/"
  local mpi_plugins
  mpi_plugins=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
  cp -L "$mpi_plugins"/*.so "$dir/openmpi/"
  local orterun
  orterun=$(readlink -f "$(command -v mpirun)")
  cp -L "$orterun" "$dir/bin/mpirun"
  {
    for f in "$dir"/bin/* "$dir"/openmpi/*.so; do libraries_of "$f"; done
  } | sort -u | while read -r lib; do cp -L -n "$lib" "$dir/lib/"; done
  # Open MPI's help texts: without them an error names the text it could not open instead.
  cp -r "$(ompi_info --path pkgdatadir --parsable | cut -d: -f3)" "$dir/share-openmpi"
  # mpirun's PMIx server loads plugins and help texts of its own, under its install prefix.
  local pmix
  pmix=$(strings "$dir/lib/libpmix.so.2" 2>/dev/null | awk '!found && /^\/.*\/pmix[0-9]*\/lib$/ {print; found = 1}')
  pmix=${pmix%/lib}
  if [[ -n $pmix && -d $pmix ]]; then
    mkdir -p "$dir/pmix/lib" "$dir/pmix/share"
    cp -r "$pmix/lib/pmix" "$dir/pmix/lib/"
    cp -r "$pmix/share/pmix" "$dir/pmix/share/"
  fi
  du -sh "$dir"
}

# The environment of a bundled process: its libraries first, then the target's (for libcuda).
bundle_env() {
  local dir=$1
  export OMPI_MCA_mca_base_component_path=$dir/openmpi
  export OMPI_MCA_mca_base_component_show_load_errors=0
  export OPAL_PKGDATADIR=$dir/share-openmpi
  export PMIX_INSTALL_PREFIX=$dir/pmix PMIX_MCA_mca_base_component_path=$dir/pmix/lib/pmix
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # One node: mpirun starts the ranks itself (no ssh); one rank without mpirun: no orted to fork.
  export OMPI_MCA_plm=isolated OMPI_MCA_ess_singleton_isolated=1
  # PMIx looks for per-user files under HOME, and fails without one.
  export HOME=${HOME:-/tmp}
}

loader_of() { find "$1/lib" -name "ld-linux-x86-64.so.*" | head -n1; }

run() {
  local dir=$1 program=$2
  shift 2
  dir=$(realpath "$dir")
  bundle_env "$dir"
  exec "$(loader_of "$dir")" --library-path "$dir/lib:$(target_driver_path)" \
    "$dir/bin/$program" "$@"
}

mpirun_bundled() {
  local dir=$1 np=$2 program=$3
  shift 3
  dir=$(realpath "$dir")
  bundle_env "$dir"
  unset OMPI_MCA_ess_singleton_isolated
  local loader path
  loader=$(loader_of "$dir")
  path="$dir/lib:$(target_driver_path)"
  exec "$loader" --library-path "$path" "$dir/bin/mpirun" --oversubscribe -np "$np" \
    -x OMPI_MCA_mca_base_component_path -x OMPI_MCA_mca_base_component_show_load_errors \
    -x OPAL_PKGDATADIR -x PMIX_INSTALL_PREFIX -x PMIX_MCA_mca_base_component_path "$loader" --library-path "$path" "$dir/bin/$program" "$@"
}

# Where the target keeps libcuda.so.1 (the bundled loader does not read the target's cache).
target_driver_path() {
  local lib
  lib=$(/sbin/ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF; exit}')
  [[ -n $lib ]] && dirname "$lib" && return
  for d in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/compat; do
    [[ -e $d/libcuda.so.1 ]] && echo "$d" && return
  done
  echo /usr/lib/x86_64-linux-gnu
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  mpirun) shift; mpirun_bundled "$@" ;;
  *) die "usage: pack DIR [BUILD] | run DIR PROGRAM [ARGS...] | mpirun DIR NP PROGRAM [ARGS...]" ;;
esac
