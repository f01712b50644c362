# install_consumer: the installed package works for a project outside this build
# (run_install_test.cmake). Included from tests/CMakeLists.txt; this folder itself is that
# outside project and is never added with add_subdirectory.
add_test(NAME install_consumer
         COMMAND ${CMAKE_COMMAND}
                 -DQUILT_BUILD_DIR=${PROJECT_BINARY_DIR}
                 -DWORK_DIR=${PROJECT_BINARY_DIR}/install_consumer
                 -DCONSUMER_SOURCE=${CMAKE_CURRENT_LIST_DIR}
                 -DMESH=${PROJECT_SOURCE_DIR}/meshes/unit_square_4x2.msh
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                 -DBUILD_TYPE=$<CONFIG>
                 -DWERROR=${QUILT_WERROR}
                 -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                 -DMPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
                 -P ${CMAKE_CURRENT_LIST_DIR}/run_install_test.cmake)
# 10-20 s (a CMake configure, one compile, a small solve); the limit allows for a loaded machine.
set_tests_properties(install_consumer PROPERTIES LABELS "install" TIMEOUT 300
                     ENVIRONMENT "${QUILT_MPI_ENV}")
