#include "flow/local_projection_term.hpp"

#include "io/config.hpp"

namespace quilt {

LocalProjectionTerm::LocalProjectionTerm(const LevelHierarchy& velocity)
    : velocity_(&velocity), per_side_((velocity.level(velocity.finest()).matrix.n - 1) / 2) {
  if (velocity.finest() < 1)
    throw ConfigError(
        "stabilisation.pressure = local_projection needs mesh.level >= 1 (patches "
        "of 2x2 elements)");
  const auto macros = velocity.level(velocity.finest()).matrix.macros;
  patches_.resize(static_cast<std::size_t>(macros) * per_side_ * per_side_);
}

void LocalProjectionTerm::linearise(const double* w1, const double* w2, double nu, bool convection,
                                    const Stabilisation& stab) {
  const int L = velocity_->finest();
  const std::size_t nn = velocity_->level(L).matrix.rows_per_macro();
  const std::size_t per_macro = static_cast<std::size_t>(per_side_) * per_side_;
  for (std::size_t m = 0; m * per_macro < patches_.size(); ++m)
    assemble_local_projection(velocity_->geometry(L, static_cast<int>(m)),
                              {w1 + m * nn, w2 + m * nn}, nu, convection, stab,
                              patches_.data() + m * per_macro);
}

void LocalProjectionTerm::subtract_patch_means(const double* p, double* yp) const {
  const int n = 2 * per_side_ + 1;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t per_macro = static_cast<std::size_t>(per_side_) * per_side_;
  for (std::size_t m = 0; m * per_macro < patches_.size(); ++m) {
    const double* pm = p + m * nn;
    double* ym = yp + m * nn;
    for (int pj = 0; pj < per_side_; ++pj)
      for (int pi = 0; pi < per_side_; ++pi) {
        const LocalProjectionPatch& P = patches_[m * per_macro + pj * per_side_ + pi];
        const std::size_t corner = static_cast<std::size_t>(2 * pi) + 2 * pj * n;
        // g = mean . p (the patch mean of grad p) and a = weighted . p.
        double g1 = 0.0, g2 = 0.0, a1 = 0.0, a2 = 0.0;
        for (int k = 0; k < 9; ++k) {
          const double pk = pm[corner + k % 3 + (k / 3) * n];
          g1 += P.mean[2 * k] * pk;
          g2 += P.mean[2 * k + 1] * pk;
          a1 += P.weighted[2 * k] * pk;
          a2 += P.weighted[2 * k + 1] * pk;
        }
        // (LocalProjectionPatch): mean_k . a + weighted_k . g - weighted_area mean_k . g.
        const double c1 = a1 - P.weighted_area * g1, c2 = a2 - P.weighted_area * g2;
        for (int k = 0; k < 9; ++k)
          ym[corner + k % 3 + (k / 3) * n] -= P.mean[2 * k] * c1 + P.mean[2 * k + 1] * c2 +
                                              P.weighted[2 * k] * g1 + P.weighted[2 * k + 1] * g2;
      }
  }
}

}  // namespace quilt
