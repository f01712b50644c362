quilt_serial_test(test_krylov solvers/test_krylov.cpp)
quilt_mpi_test(test_scarc solvers/test_scarc.cpp)
quilt_mpi_test(test_cuda_target solvers/test_cuda_target.cpp)
quilt_mpi_test(test_local_levels solvers/test_local_levels.cpp)
quilt_mpi_test(test_constant_stencil solvers/test_constant_stencil.cpp)
# --export-matrix: the exported system against the solver (residuals, symmetry, rank count).
quilt_mpi_test(test_matrix_export solvers/test_matrix_export.cpp)
