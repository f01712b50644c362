#pragma once
// The width of the target's vector registers, as the compiler was told it (-march): what the
// cpu kernels' GCC / clang generic vectors are sized against.

namespace quilt::accel::cpu {

/// The bytes of one vector register: 64 with AVX-512, 32 with AVX, 16 (SSE, NEON) without.
#if defined(__AVX512F__)
inline constexpr int kRegisterBytes = 64;
#elif defined(__AVX__)
inline constexpr int kRegisterBytes = 32;
#else
inline constexpr int kRegisterBytes = 16;
#endif

}  // namespace quilt::accel::cpu
