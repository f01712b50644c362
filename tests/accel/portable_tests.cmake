# accel_portable: the local layer built for the x86-64 baseline (QUILT_NATIVE=OFF: SSE2), as on
# a login node unlike the compute nodes, and its kernel suite run. The recurrence blocks of the
# line smoothers have another register layout there (accel/recurrence_blocks.hpp), and GCC's
# code for it differed: two faults of such builds went unseen until a session built one by hand
# (docs/benchmarks.md, 2026-12-02). Included from tests/CMakeLists.txt where the main build is
# native; the standalone accel build is configured in the build tree (run_portable_test.cmake).
if(QUILT_NATIVE)
  add_test(NAME accel_portable
           COMMAND ${CMAKE_COMMAND}
                   -DACCEL_SOURCE=${PROJECT_SOURCE_DIR}/accel
                   -DWORK_DIR=${PROJECT_BINARY_DIR}/accel_portable
                   -DGENERATOR=${CMAKE_GENERATOR}
                   -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                   -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                   -DWERROR=${QUILT_WERROR}
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_portable_test.cmake)
  # 2-3 min on 2 cores (the accel library and its cpu suite); the limit allows for a loaded machine.
  set_tests_properties(accel_portable PROPERTIES LABELS "serial;accel;portable" TIMEOUT 900)
endif()
