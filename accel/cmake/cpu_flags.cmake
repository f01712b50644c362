# Code generation for the CPU, shared by the whole build and the standalone accel build.
#
# QUILT_NATIVE: -march=native, the vector width and instructions of the building machine's CPU
# (AVX2 / AVX-512, FMA) instead of the x86-64 baseline (SSE2). Measured on a 2-core EPYC VM,
# 1 rank: the driven cavity at L = 7 7-10 % faster, Poisson at L = 9 6 %, with bitwise the same
# results. Turn it off for binaries that must run on other CPUs than the build machine's (a
# login node unlike the compute nodes). The instructions it enables are also new code paths of the
# compiler: GCC 12.2 with AVX-512 miscompiled the Navier-Stokes element pass (element_pass in
# toolkit/flow/navier_stokes_operators.cpp), which the test suite caught on such a host only.
#
# -ffp-contract=off, always: every multiply and add is rounded as written, FMA hardware or not.
# The bitwise equalities between kernel variants (constant-stencil and band kernels, one and two
# right-hand sides, the cpu and the emulated cuda target) rely on it.
option(QUILT_NATIVE "Optimise for the CPU of the building machine (-march=native)" ON)
if(QUILT_NATIVE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)

# -mno-mmx on x86: Quilt has no MMX code, but GCC 12 moved 8-byte pieces of vectors through an
# MMX register in x86-64 (SSE2) builds: the x87 registers the MMX ones alias were then left in
# MMX state (no EMMS), and the next long double arithmetic gave NaN (the tests' extended-precision
# references in test_linear_recurrence did, 2026-12-02).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-mno-mmx>)
endif()
