#pragma once
// Type-0 -> type-1 summation and averaging over shared nodes, and the global inner product,
// on one level (design.md §2, §5).
//
// A node on a macro edge or corner is stored once per macro holding it. sum() replaces every
// copy by the sum over all copies; the copies are added in ascending global macro id, starting
// from the first, so every copy ends bit-identical and the result does not depend on which
// rank holds which macro or on message arrival order. Copies on this rank are read from memory;
// copies on other ranks arrive in one nonblocking message per neighbour rank.

#include <cstddef>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "parallel/communicator.hpp"
#include "parallel/distributed_mesh.hpp"
#include "parallel/shared_weights.hpp"

namespace quilt {

class SharedNodes {
 public:
  SharedNodes(const DistributedMesh& dm, const Communicator& comm, int level);

  int level() const { return level_; }
  const Communicator& comm() const { return *comm_; }
  int n() const { return n_; }
  /// Values per level vector on this rank: macros * n * n.
  std::size_t size() const { return static_cast<std::size_t>(dm_->num_local()) * n_ * n_; }

  /// type-0 -> type-1: every copy of a shared node becomes the sum over all copies.
  void sum(double* v) const;
  /// sum() of two vectors with one message per neighbour rank for both; each bitwise what sum()
  /// makes of it.
  void sum_pair(double* v0, double* v1) const;
  /// sum(), then every shared node divided by its multiplicity (design.md §2 `average`).
  void average(double* v) const;
  /// Global x . y of type-1 vectors, every global node counted once (weights 1/multiplicity):
  /// the unweighted sum over all nodes plus (1/multiplicity - 1) x y over the shared ones, so
  /// that the sweep reads x and y only; partial sums in a fixed order, ranks in rank order:
  /// bitwise reproducible for a rank count.
  double dot(const double* x, const double* y) const;
  /// This rank's part of dot() (no reduction), for inner products of several fields at once.
  double local_dot(const double* x, const double* y) const;
  /// The sum over 1 to kMaxDotFields fields of local_dot, field f at x + f * stride and
  /// y + f * stride, in one pass: bitwise (local_dot_0 + local_dot_1) + ...
  /// (std::invalid_argument for another field count).
  double local_dot_fields(const double* x, const double* y, int fields, std::size_t stride) const;
  static constexpr int kMaxDotFields = 4;
  /// What local_dot(x, y) adds to the unweighted sum of x_i y_i over the rank's nodes, so that
  /// every global node counts once: (1/multiplicity - 1) x y summed over the shared nodes. A sweep
  /// that forms the plain sum itself (sum4 of x_i y_i) gets local_dot bitwise as
  /// sum + local_dot_correction.
  double local_dot_correction(const double* x, const double* y) const;

  /// Number of macros holding each node of this rank's macros (grid order, macro-major), made on
  /// call: the set-up and post-processing read it, the solver's sweeps the shared-node weights.
  std::vector<double> multiplicity() const;
  /// 1 / multiplicity(), made on call.
  std::vector<double> inverse_multiplicity() const;
  /// inverse_multiplicity() stored at the shared nodes only (every other node's is 1).
  const SharedWeights& shared_inverse_multiplicity() const { return shared_inverse_multiplicity_; }

  /// Turns the type-0 matrices of this rank's macros into their *local matrices* (design.md
  /// §2): the principal submatrix of the globally assembled matrix on each macro's nodes. The
  /// diagonal is summed over all copies; the couplings between consecutive nodes of a shared
  /// edge get the neighbour's contribution. Other entries touch only this macro's elements.
  void make_local_matrices(accel::BandedMatrix<double>& A) const;

 private:
  struct Copy {
    int cell;                 ///< global macro id
    int rank;                 ///< its rank
    int local;                ///< index among this rank's macros, -1 if remote
    int slot;                 ///< corner (vertex entity) or local edge (edge entity) in that macro
    std::ptrdiff_t base = 0;  ///< grid index of the entity's first inner node (canonical order)
    std::ptrdiff_t stride = 0;  ///< grid step between consecutive inner nodes
  };
  struct Entity {
    bool edge;
    int id;
    std::vector<Copy> copies;  ///< ascending global macro id
  };
  struct Neighbour {
    int rank;
    std::vector<int> entities;  ///< indices into entities_ with copies on both ranks
  };

  /// One kind of exchange, planned once: width[entity] values per copy (entities_ order), where
  /// each remote copy's values lie in its rank's receive buffer (offsets[entity][copy], -1 for
  /// local copies), and how many values go to and come from each neighbour rank.
  struct ExchangePlan {
    std::vector<int> width;
    std::vector<std::vector<std::ptrdiff_t>> offsets;
    std::vector<std::size_t> send_size, recv_size;  ///< per neighbour (neighbours_ order)
  };
  /// The plan of an exchange of width(entity) values per copy.
  template <class Width>
  ExchangePlan make_plan(Width&& width) const;
  /// Sends, for every entity shared with a neighbour, plan.width values per local copy (packed
  /// by pack(entity index, copy, out)), and receives the neighbours' into received_.
  template <class Pack>
  void exchange(const ExchangePlan& plan, Pack&& pack) const;
  /// The one summation the public operations are: every entity carries plan.width values per
  /// copy, value(copy, p) -> double& addresses them in a local copy; each position becomes the
  /// sum over all copies, added in ascending global macro id from the first.
  template <class Value>
  void sum_over_copies(const ExchangePlan& plan, Value&& value) const;

  const DistributedMesh* dm_;
  const Communicator* comm_;
  int level_;
  int n_;
  std::vector<Entity> entities_;
  std::vector<Neighbour> neighbours_;
  std::vector<int> buffer_of_rank_;    ///< rank -> index into neighbours_ (and receive buffers)
  SharedWeights shared_multiplicity_;  ///< multiplicity() at the shared nodes
  SharedWeights shared_inverse_multiplicity_;
  ExchangePlan values_plan_;  ///< sum(): n - 2 values per edge, 1 per corner
  ExchangePlan pairs_plan_;   ///< sum_pair(): twice those, the two vectors interleaved
  /// The message buffers per neighbour rank and the requests, grown to the largest exchange on
  /// first use and reused: the sums of the solver's sweeps allocate nothing (one exchange runs
  /// at a time).
  mutable std::vector<std::vector<double>> sent_, received_;
  mutable RequestSet requests_;
};

}  // namespace quilt
