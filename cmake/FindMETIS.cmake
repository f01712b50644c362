# FindMETIS: METIS 5 as the imported target METIS::METIS.
#
# METIS 5.1 ships no CMake package. Installed next to QuiltConfig.cmake for the same reason as
# FindUMFPACK.cmake: a private dependency of the static libquilt that the consumer links.
#
# Hints: METIS_ROOT, or the cache entries METIS_INCLUDE_DIR / METIS_LIBRARY.
include(FindPackageHandleStandardArgs)

find_path(METIS_INCLUDE_DIR metis.h)
find_library(METIS_LIBRARY metis)
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR)

if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
