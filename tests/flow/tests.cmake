quilt_serial_test(test_flow_operators flow/test_navier_stokes_operators.cpp
                  flow/test_point_evaluation.cpp flow/test_flow_functionals.cpp
                  flow/test_time_series.cpp flow/test_boundary_conditions.cpp
                  flow/test_step_size_control.cpp flow/test_newton_control.cpp
                  flow/test_preconditioner_refresh.cpp)
quilt_mpi_test(test_navier_stokes flow/test_navier_stokes_solver.cpp)
quilt_mpi_test(test_velocity_multigrid flow/test_velocity_multigrid.cpp)
quilt_mpi_test(test_least_squares_commutator flow/test_least_squares_commutator.cpp)
quilt_mpi_test(test_navier_stokes_assembly flow/test_navier_stokes_assembly.cpp
               flow/test_direct_solves.cpp)
# The schemes' arithmetic is the same at every rank count. At 2 and 4 ranks: every scheme's exact
# reproduction (AcceleratingFlow), the driver's reductions (forces, error estimates, the kept
# preconditioner), and the temporal order and adaptive steps of BDF2 and Crank-Nicolson; the
# other orders and adaptive runs (110 of the 163 s at 1 rank) only at 1 rank.
set(order Schemes/TemporalOrder.MatchesTheScheme)
set(adaptive Schemes/AdaptiveSteps.FollowTheTolerance)
string(JOIN ":" one_rank_only ${order}/Stokes* ${order}/*Euler ${order}/*StepTheta*
       ${order}/*Lumped ${adaptive}/NavierStokesEuler ${adaptive}/NavierStokesCrankNicolson)
quilt_mpi_test(test_time_stepping flow/test_time_stepping.cpp MULTI_RANK_FILTER -${one_rank_only})
quilt_mpi_test(test_checkpoint flow/test_checkpoint.cpp)
