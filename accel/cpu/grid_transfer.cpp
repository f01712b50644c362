#include "accel/cpu/grid_transfer.hpp"

#include <cstddef>

namespace quilt::accel::cpu {
namespace {

enum class Store { write, add, add_unfixed };

/// Writes (or adds, or adds where fixed is 0) the fine rows 2j and, below the top coarse row,
/// 2j + 1 of one macro.
template <Store kStore, class T>
void prolongate_macro(std::ptrdiff_t nc, const T* __restrict coarse, T* __restrict fine,
                      const char* __restrict fixed = nullptr) {
  const std::ptrdiff_t nf = 2 * nc - 1;
  const T half = T(0.5);
  const T quarter = T(0.25);
  const auto store = [fine, fixed](T& f, T v) {
    if constexpr (kStore == Store::add_unfixed) {
      if (!fixed[&f - fine]) f += v;
    } else if constexpr (kStore == Store::add) {
      f += v;
    } else {
      f = v;
    }
  };
  for (std::ptrdiff_t j = 0; j < nc; ++j) {
    const T* __restrict c0 = coarse + j * nc;
    T* __restrict f0 = fine + 2 * j * nf;
    for (std::ptrdiff_t i = 0; i + 1 < nc; ++i) {
      store(f0[2 * i], c0[i]);
      store(f0[2 * i + 1], half * (c0[i] + c0[i + 1]));
    }
    store(f0[nf - 1], c0[nc - 1]);
    if (j + 1 == nc) break;
    const T* __restrict c1 = c0 + nc;
    T* __restrict f1 = f0 + nf;
    for (std::ptrdiff_t i = 0; i + 1 < nc; ++i) {
      store(f1[2 * i], half * (c0[i] + c1[i]));
      store(f1[2 * i + 1], quarter * ((c0[i] + c0[i + 1]) + (c1[i] + c1[i + 1])));
    }
    store(f1[nf - 1], half * (c0[nc - 1] + c1[nc - 1]));
  }
}

/// Row-wise part of P^T: the weights 1 at 2i and 1/2 at 2i +- 1 along one fine grid line.
template <class T>
inline T gather_line(const T* line, std::ptrdiff_t i, std::ptrdiff_t nc) {
  T v = line[2 * i];
  if (i > 0) v += T(0.5) * line[2 * i - 1];
  if (i + 1 < nc) v += T(0.5) * line[2 * i + 1];
  return v;
}

template <class T>
void restrict_macro(std::ptrdiff_t nc, const T* __restrict fine, T* __restrict coarse) {
  const std::ptrdiff_t nf = 2 * nc - 1;
  for (std::ptrdiff_t j = 0; j < nc; ++j) {
    const T* mid = fine + 2 * j * nf;
    const T* below = j > 0 ? mid - nf : nullptr;
    const T* above = j + 1 < nc ? mid + nf : nullptr;
    T* __restrict c = coarse + j * nc;
    for (std::ptrdiff_t i = 0; i < nc; ++i) {
      T v = gather_line(mid, i, nc);
      T side = T(0);
      if (below) side += gather_line(below, i, nc);
      if (above) side += gather_line(above, i, nc);
      c[i] = v + T(0.5) * side;
    }
  }
}

}  // namespace

template <class T>
void prolongate(int macros, int n_coarse, const T* coarse, T* fine) {
  const std::ptrdiff_t nc = n_coarse;
  const std::ptrdiff_t nf = 2 * nc - 1;
  for (std::ptrdiff_t m = 0; m < macros; ++m)
    prolongate_macro<Store::write>(nc, coarse + m * nc * nc, fine + m * nf * nf);
}

template <class T>
void prolongate_add(int macros, int n_coarse, const T* coarse, T* fine, const char* fixed) {
  const std::ptrdiff_t nc = n_coarse;
  const std::ptrdiff_t nf = 2 * nc - 1;
  for (std::ptrdiff_t m = 0; m < macros; ++m) {
    if (fixed)
      prolongate_macro<Store::add_unfixed>(nc, coarse + m * nc * nc, fine + m * nf * nf,
                                           fixed + m * nf * nf);
    else
      prolongate_macro<Store::add>(nc, coarse + m * nc * nc, fine + m * nf * nf);
  }
}

template <class T>
void restrict_transpose(int macros, int n_coarse, const T* fine, T* coarse) {
  const std::ptrdiff_t nc = n_coarse;
  const std::ptrdiff_t nf = 2 * nc - 1;
  for (std::ptrdiff_t m = 0; m < macros; ++m)
    restrict_macro(nc, fine + m * nf * nf, coarse + m * nc * nc);
}

template void prolongate(int, int, const float*, float*);
template void prolongate(int, int, const double*, double*);
template void prolongate_add(int, int, const float*, float*, const char*);
template void prolongate_add(int, int, const double*, double*, const char*);
template void restrict_transpose(int, int, const float*, float*);
template void restrict_transpose(int, int, const double*, double*);

}  // namespace quilt::accel::cpu
