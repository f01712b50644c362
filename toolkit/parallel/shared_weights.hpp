#pragma once
// A diagonal weight on a level vector that is 1 except at the nodes stored more than once (macro
// edges and corners, O(n) of a macro's n^2 nodes), and stored there only. The weights of the
// global layer are of this kind (1/multiplicity for the inner product and the restriction, its
// square root for the symmetric Schwarz step, design.md §2): a weighted sweep then runs
// unweighted over the whole vector and scales these few entries, one stream of doubles less.
// Since 1 * a = a exactly, scaling the few entries before or after the sweep gives bitwise what
// the dense weight gave, where the weight multiplies one factor of the sweep's formula.

#include <cstddef>
#include <vector>

namespace quilt {

struct SharedWeights {
  std::vector<std::size_t> rows;  ///< ascending indices of the nodes whose weight is not 1
  std::vector<double> values;     ///< the weight of rows[k]

  /// v_i *= w_i at the weighted nodes.
  void scale(double* v) const {
    for (std::size_t k = 0; k < rows.size(); ++k) v[rows[k]] *= values[k];
  }
};

}  // namespace quilt
