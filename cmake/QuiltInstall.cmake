# Install rules of the CMake package Quilt (included from the top-level CMakeLists.txt):
#
#   <prefix>/lib/libquilt.a, libquilt_accel.a
#   <prefix>/include/quilt/{mesh,fem,la,parallel,solvers,flow,io}/*.hpp   (toolkit/)
#   <prefix>/include/quilt/accel/...                                      (accel/)
#   <prefix>/lib/cmake/Quilt/QuiltConfig.cmake, QuiltConfigVersion.cmake, QuiltTargets*.cmake,
#                            FindUMFPACK.cmake, FindMETIS.cmake
#
# A user writes find_package(Quilt) and links Quilt::quilt (Quilt::accel comes with it).
include(CMakePackageConfigHelpers)

set(QUILT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Quilt)

# Both libraries are in one export set: Quilt::quilt links Quilt::accel by that name.
install(TARGETS quilt_toolkit quilt_accel EXPORT QuiltTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers keep their source layout under include/quilt, so the installed headers' own includes
# ("mesh/...", "accel/...") resolve through the include/quilt entry of the targets' include path,
# and users write <quilt/mesh/...> through include/. The accel cuda/*.cuh are installed too:
# device_probe.cuh is plain C++ (bench/quilt-bench-cuda uses it); the others are only ever
# included from .cu files.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/toolkit/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/quilt
        FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/accel/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/quilt/accel
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")

install(EXPORT QuiltTargets NAMESPACE Quilt:: DESTINATION ${QUILT_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/QuiltConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/QuiltConfig.cmake
                              INSTALL_DESTINATION ${QUILT_INSTALL_CMAKEDIR})
# 0.x: a minor release may break the interface, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/QuiltConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/QuiltConfig.cmake ${PROJECT_BINARY_DIR}/QuiltConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/FindUMFPACK.cmake ${CMAKE_CURRENT_LIST_DIR}/FindMETIS.cmake
        DESTINATION ${QUILT_INSTALL_CMAKEDIR})
