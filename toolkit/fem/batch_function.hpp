#pragma once
// Functions of the plane evaluated at a batch of points in one call: the quadrature loops that
// evaluate closed forms (load vectors, error norms) collect a row of elements' points first, so
// that sin, cos and exp run as vectorised loops (glibc's libmvec: 2 or 4 doubles at a time)
// instead of one indirect call per point.

#include <functional>
#include <span>

namespace quilt {

/// value[k] = f(x[k], y[k]) for every k; the spans have one length.
using BatchFunction = std::function<void(std::span<const double> x, std::span<const double> y,
                                         std::span<double> value)>;

/// The same with the gradient: d_dx[k] = df/dx (x[k], y[k]), d_dy[k] = df/dy (x[k], y[k]).
using BatchFunctionWithGradient =
    std::function<void(std::span<const double> x, std::span<const double> y,
                       std::span<double> value, std::span<double> d_dx, std::span<double> d_dy)>;

}  // namespace quilt
