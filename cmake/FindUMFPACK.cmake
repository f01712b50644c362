# FindUMFPACK: SuiteSparse's UMFPACK as the imported target UMFPACK::UMFPACK.
#
# SuiteSparse before 7 ships no CMake package, so Quilt finds the header and the library itself.
# This module is installed next to QuiltConfig.cmake: Quilt links UMFPACK privately, but a
# static libquilt still needs it on the consumer's link line, and an imported target (instead of
# the absolute path of the build machine) keeps the installed package relocatable.
#
# Hints: UMFPACK_ROOT, or the cache entries UMFPACK_INCLUDE_DIR / UMFPACK_LIBRARY.
include(FindPackageHandleStandardArgs)

find_path(UMFPACK_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
find_library(UMFPACK_LIBRARY umfpack)
mark_as_advanced(UMFPACK_INCLUDE_DIR UMFPACK_LIBRARY)
find_package_handle_standard_args(UMFPACK REQUIRED_VARS UMFPACK_LIBRARY UMFPACK_INCLUDE_DIR)

# The shared libumfpack records its own dependencies (AMD, CHOLMOD, SuiteSparse_config); a
# static one would need them listed here.
if(UMFPACK_FOUND AND NOT TARGET UMFPACK::UMFPACK)
  add_library(UMFPACK::UMFPACK UNKNOWN IMPORTED)
  set_target_properties(UMFPACK::UMFPACK PROPERTIES IMPORTED_LOCATION "${UMFPACK_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${UMFPACK_INCLUDE_DIR}")
endif()
