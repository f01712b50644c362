quilt_serial_test(test_krylov solvers/test_krylov.cpp)
quilt_mpi_test(test_scarc solvers/test_scarc.cpp)
quilt_mpi_test(test_cuda_target solvers/test_cuda_target.cpp)
# The same suite with the toolkit linked against the host emulation of the CUDA runtime
# (quilt_toolkit_emul): the global solver's cuda target runs in CI, where no GPU is; nothing may
# skip (QUILT_REQUIRE_CUDA=1) except the no-device test.
if(TARGET quilt_toolkit_emul)
  add_executable(test_cuda_target_emul solvers/test_cuda_target.cpp
                 ${CMAKE_CURRENT_SOURCE_DIR}/mpi_main.cpp)
  target_link_libraries(test_cuda_target_emul PRIVATE quilt_toolkit_emul GTest::gtest)
  target_compile_definitions(test_cuda_target_emul PRIVATE
                             QUILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_include_directories(test_cuda_target_emul PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(np 1 2)
    add_test(NAME test_cuda_target_emul_np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${QUILT_MPIEXEC_FLAGS}
                     $<TARGET_FILE:test_cuda_target_emul> --gtest_filter=-*WithoutDevice*)
    set_tests_properties(test_cuda_target_emul_np${np} PROPERTIES
                         ENVIRONMENT "${QUILT_MPI_ENV};QUILT_REQUIRE_CUDA=1"
                         PROCESSORS ${np} LABELS "mpi;cuda;emul" TIMEOUT 600)
  endforeach()
endif()
quilt_mpi_test(test_local_levels solvers/test_local_levels.cpp)
quilt_mpi_test(test_constant_stencil solvers/test_constant_stencil.cpp)
quilt_mpi_test(test_level_operator solvers/test_level_operator.cpp)
# --export-matrix: the exported system against the solver (residuals, symmetry, rank count).
quilt_mpi_test(test_matrix_export solvers/test_matrix_export.cpp)
