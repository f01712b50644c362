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

void LocalProjectionTerm::linearise(const Linearisation& at) {
  at_ = at;
  const int L = velocity_->finest();
  const std::size_t nn = velocity_->level(L).matrix.rows_per_macro();
  const std::size_t per_macro = static_cast<std::size_t>(per_side_) * per_side_;
  for (std::size_t m = 0; m * per_macro < patches_.size(); ++m)
    assemble_local_projection(velocity_->geometry(L, static_cast<int>(m)), at.macro(m * nn), at.nu,
                              at.convection, at.stab, patches_.data() + m * per_macro);
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

void LocalProjectionTerm::linearise_jacobian(const double* p) {
  if (!at_.convection) return;
  const int L = velocity_->finest();
  const std::size_t nn = velocity_->level(L).matrix.rows_per_macro();
  const std::size_t per_macro = static_cast<std::size_t>(per_side_) * per_side_;
  elements_.resize(4 * patches_.size());
  for (std::size_t m = 0; m * per_macro < patches_.size(); ++m)
    assemble_local_projection_jacobian(
        velocity_->geometry(L, static_cast<int>(m)), at_.macro(m * nn), p + m * nn, at_.nu,
        at_.stab, patches_.data() + m * per_macro, elements_.data() + 4 * m * per_macro);
}

void LocalProjectionTerm::add_jacobian(const double* u1, const double* u2, double* yp) const {
  if (elements_.empty()) return;
  const int n = 2 * per_side_ + 1;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t per_macro = static_cast<std::size_t>(per_side_) * per_side_;
  for (std::size_t m = 0; m * per_macro < patches_.size(); ++m)
    for (int pj = 0; pj < per_side_; ++pj)
      for (int pi = 0; pi < per_side_; ++pi) {
        const std::size_t corner = m * nn + static_cast<std::size_t>(2 * pi) + 2 * pj * n;
        const LocalProjectionElement* E = &elements_[4 * (m * per_macro + pj * per_side_ + pi)];
        for (int e = 0; e < 4; ++e) {
          // d tau_K = dtau . (the mean of u over K's vertices).
          const std::size_t v = corner + static_cast<std::size_t>(e & 1) + (e >> 1) * n;
          const double w1 = 0.25 * (u1[v] + u1[v + 1] + u1[v + n] + u1[v + n + 1]);
          const double w2 = 0.25 * (u2[v] + u2[v + 1] + u2[v + n] + u2[v + n + 1]);
          const double c = E[e].dtau[0] * w1 + E[e].dtau[1] * w2;
          for (int k = 0; k < 9; ++k) yp[corner + k % 3 + (k / 3) * n] += c * E[e].moment[k];
        }
      }
}

}  // namespace quilt
