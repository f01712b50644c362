#pragma once
// One scalar operator on every global level 0..L of this rank's macros: the type-0 banded
// matrices (for global matrix-vector products; the local matrices of the local layer are made
// from them on demand), Dirichlet masks and the shared-node exchange of each level. Optionally also
// the local matrices of a part of the operator that the local multigrid rediscretises on its coarse
// levels instead of coarsening it by Galerkin products (solvers/local_levels.hpp): convection and
// SUPG.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/stencil_zones.hpp"
#include "mesh/macro_geometry.hpp"
#include "parallel/distributed_mesh.hpp"
#include "parallel/shared_nodes.hpp"
#include "solvers/linear_operator.hpp"

namespace quilt {

struct GlobalLevel {
  int level = 0;
  int n = 0;
  std::unique_ptr<SharedNodes> shared;
  accel::BandedMatrix<double> matrix;  ///< type-0: this macro's elements only
  accel::StencilZones<double> zones;   ///< of `matrix`: its constant-stencil macros
  /// The local matrix of the rediscretised part, Dirichlet rows zero; empty (no macros) if the
  /// hierarchy has none.
  accel::BandedMatrix<double> local_rediscretised;
  std::vector<char> dirichlet;  ///< 1 on Dirichlet nodes (grid order, macro-major)
};

/// Adds the element contributions of one macro (geometry g) into macro slot m of A.
using MacroAssembler =
    std::function<void(const MacroGeometry& g, accel::BandedMatrix<double>& A, int m)>;
/// The same, with the rediscretised part (LocalCoarsening::hybrid) added into slot m of
/// `rediscretised` in the same pass over the elements; null where the hierarchy has no such part.
using MacroPairAssembler =
    std::function<void(const MacroGeometry& g, accel::BandedMatrix<double>& A,
                       accel::BandedMatrix<double>* rediscretised, int m)>;

/// How the local multigrid gets its coarse levels (solvers/local_levels.hpp): Galerkin products
/// of the whole local matrix, or hybrid, with a part of the operator rediscretised.
enum class LocalCoarsening { galerkin, hybrid };

/// The levels of a hierarchy that may be held in zone form from their assembly on: type-0
/// zones, no bands (accel/stencil_zones.hpp). Level l > `above` is, where every macro of it on
/// every rank comes out zoned; its 72 bytes of bands per node are then never touched (each macro
/// is assembled alone into one macro's storage and kept as its 225 zone numbers). For a solver
/// set up once whose products and local sweeps read zones alone (GlobalMultigrid::
/// for_one_operator, Jacobi on the cpu); `above` at least its coarse level, whose solver reads
/// bands. The assembler then must use its macro index only as the slot it adds into (a macro is
/// assembled into slot 0 of a one-macro batch): it may depend on the geometry, not on m.
struct ZoneFormLevels {
  int above = 0;
};

class LevelHierarchy {
 public:
  /// The structure of levels 0..finest, built once: the macros' node coordinates, the
  /// shared-node plans, the Dirichlet masks (Dirichlet on the boundary parts p with
  /// dirichlet_parts[p]) and zeroed band storage; `hybrid`: also storage for the part of the
  /// operator that the local multigrid's coarse levels take rediscretised; `zone_form`: the
  /// levels above zone_form->above get no band storage yet (ZoneFormLevels; galerkin only).
  LevelHierarchy(const DistributedMesh& dm, const Communicator& comm, int finest,
                 const std::vector<bool>& dirichlet_parts, LocalCoarsening coarsening,
                 std::optional<ZoneFormLevels> zone_form = std::nullopt);

  /// The structure and the numbers: the constructor above, then assemble().
  LevelHierarchy(const DistributedMesh& dm, const Communicator& comm, int finest,
                 const std::vector<bool>& dirichlet_parts, const MacroAssembler& assemble,
                 const MacroAssembler& rediscretised = {});
  /// The structure and the numbers, the levels above zone_form.above in zone form where every
  /// macro is zoned (ZoneFormLevels; no rediscretised part). Every later assembly of such a level
  /// goes the same way.
  LevelHierarchy(const DistributedMesh& dm, const Communicator& comm, int finest,
                 const std::vector<bool>& dirichlet_parts, const MacroAssembler& assemble,
                 ZoneFormLevels zone_form);

  /// The numbers, into the existing storage: every level's matrices are zeroed and assembled
  /// with `assemble` (and the rediscretised part's local matrices made). `rediscretised` (given
  /// exactly when the hierarchy has the rediscretised part) assembles that part, which must be
  /// contained in what `assemble` adds. Bitwise the same as a hierarchy constructed with these
  /// assemblers.
  void assemble(const MacroAssembler& assemble, const MacroAssembler& rediscretised = {}) {
    assemble_levels(0, finest(), assemble, rediscretised);
  }
  /// assemble() restricted to the levels first..last; the others keep their numbers (a residual
  /// needs only the finest level, a multigrid update all of them).
  void assemble_levels(int first, int last, const MacroAssembler& assemble,
                       const MacroAssembler& rediscretised = {});
  /// assemble_levels with both parts from one assembler (one element pass per macro).
  void assemble_levels(int first, int last, const MacroPairAssembler& assemble);

  /// The local matrix of level l (design.md §2): the type-0 matrix with the rows of shared nodes
  /// summed over the macros that share them (the centre and the couplings along a shared edge),
  /// Dirichlet rows as unit rows. Made on demand: the local layer keeps its own converted copy,
  /// and a stored one was 96 of the 563 bytes per node of a Poisson solve (the solver's set-up
  /// makes it in place instead: with_local_matrix).
  accel::BandedMatrix<double> local_matrix(int l) const;
  /// Calls use(A) with A bitwise local_matrix(l), made in the storage of level l's type-0 matrix
  /// and turned back into it afterwards, bitwise, also if use throws: only the rows on the macros'
  /// edges differ between the two, and they are saved and restored. A local solver's set-up
  /// then needs no copy of the bands (72 bytes per node to fault in and fill). use must not read
  /// level(l).matrix otherwise.
  template <class Use>
  void with_local_matrix(int l, Use&& use) const {
    require_bands(l, "with_local_matrix");
    accel::BandedMatrix<double>& A = const_cast<accel::BandedMatrix<double>&>(levels_[l].matrix);
    const EdgeRows saved = save_edge_rows(A);
    struct Restore {
      const LevelHierarchy* h;
      accel::BandedMatrix<double>* A;
      const EdgeRows* saved;
      ~Restore() { h->restore_edge_rows(*saved, *A); }
    } restore{this, &A, &saved};
    finish_local_matrix(l, A);
    use(static_cast<const accel::BandedMatrix<double>&>(A));
  }

  /// For a level that is not assembled again before its last product: drops level l's type-0
  /// bands if every macro of it is zoned, since its products (LevelOperator) then read the zones
  /// alone, bitwise the same; what else reads the bands (local_matrix, with_local_matrix) refuses
  /// the level afterwards, and assemble_levels allocates them again. A solver set up once frees
  /// them as soon as its local solver has its copy (GlobalMultigrid::for_one_operator): they were
  /// 96 of the 250 bytes per unknown at the peak of a Poisson solve.
  void release_zoned_bands(int l);

  /// Level l's bands again where it has none (released, or assembled in zone form), from its
  /// zones: exact, every row of a zoned macro is its zone's stencil. No-op where it has them.
  void restore_bands(int l);

  /// Whether level l has no bands on any rank, every macro zoned (released, or assembled in zone
  /// form). Collective.
  bool in_zone_form(int l) const;
  /// The zones of local_matrix(l), made from level l's type-0 zones alone when the level is in
  /// zone form (in_zone_form; else out is cleared): the shared-node sums and the Dirichlet rows
  /// of local_matrix, done on the 9 x 9 grid of level 3. Bitwise the zones that
  /// detect_stencil_zones finds in local_matrix(l): every copy of a shared node is on a zoned
  /// macro, so a local row is a sum of zone stencils that depends on the zones of its position
  /// alone (the zone of position i along an edge is the mirror of that of n-1-i, whichever way a
  /// neighbour runs along it), the same sums in the same order on every level. Collective.
  void local_matrix_zones(int l, accel::StencilZones<double>& out) const;

  int finest() const { return static_cast<int>(levels_.size()) - 1; }
  const GlobalLevel& level(int l) const { return levels_[l]; }
  /// Node coordinates of local macro m on level l (std::logic_error after release_geometry).
  const MacroGeometry& geometry(int l, int m) const {
    if (geometry_.empty()) geometry_released("geometry");
    return geometry_[l][m];
  }
  /// For a hierarchy that is not assembled again (a solver set up once, after its set-up):
  /// drops the node coordinates of every level, 16 bytes per node, whose pages the solve's
  /// vectors then reuse. geometry() and assemble_levels refuse afterwards (std::logic_error);
  /// refine_macro makes a macro's coordinates again, bitwise.
  void release_geometry();
  bool has_rediscretised_part() const { return rediscretised_part_; }
  const DistributedMesh& mesh() const { return *dm_; }
  const Communicator& comm() const { return *comm_; }

 private:
  /// Throws std::logic_error naming `who` if level l's bands were released.
  void require_bands(int l, const char* who) const;
  /// Throws std::logic_error naming `who`: the coordinates were released.
  [[noreturn]] static void geometry_released(const char* who);
  /// A = the type-0 matrix of level l -> its local matrix, in place.
  void finish_local_matrix(int l, accel::BandedMatrix<double>& A) const;
  /// The Dirichlet mask of this rank's macros on a grid of n x n nodes (grid order,
  /// macro-major; 1 on the nodes of dirichlet_parts_).
  std::vector<char> dirichlet_mask(int n) const;
  /// The rows of A where dirichlet is 1 made unit rows, as in the local matrix (design.md §2).
  static void set_unit_rows(const std::vector<char>& dirichlet, accel::BandedMatrix<double>& A);
  /// The rows of every macro's four edges (first and last grid line and column), all bands.
  struct EdgeRows {
    std::vector<std::size_t> rows;
    std::vector<double> values;  ///< band-major: values[k * rows.size() + r]
  };
  static EdgeRows save_edge_rows(const accel::BandedMatrix<double>& A);
  static void restore_edge_rows(const EdgeRows& saved, accel::BandedMatrix<double>& A);

  /// assemble_levels for level l in zone form where it can be (ZoneFormLevels).
  void assemble_zone_form(int l, const MacroPairAssembler& assemble);
  /// Level l's bands from scratch: every macro assembled into the level's storage.
  void assemble_bands(int l, const MacroPairAssembler& assemble);

  const DistributedMesh* dm_;
  const Communicator* comm_;
  std::vector<bool> dirichlet_parts_;
  bool rediscretised_part_;
  int zone_form_above_;  ///< ZoneFormLevels::above; finest() where none is
  std::vector<GlobalLevel> levels_;
  std::vector<std::vector<MacroGeometry>> geometry_;  ///< [level][local macro]
  /// Per level: its matrices are still the zeros the constructor made (the first assembly need
  /// not clear them again: a pass over 72 bytes per node).
  std::vector<char> still_zero_;
};

/// y = A x on one level: banded product of the type-0 matrices, summed over shared nodes;
/// Dirichlet rows act as unit rows (y_i = x_i).
class LevelOperator final : public LinearOperator {
 public:
  explicit LevelOperator(const GlobalLevel& level) : level_(&level) {}
  std::size_t size() const override { return level_->matrix.rows(); }
  void apply(const LevelVector& x, LevelVector& y) const override;
  double dot(const LevelVector& x, const LevelVector& y) const override {
    return level_->shared->dot(x.data(), y.data());
  }
  void filter(LevelVector& v) const override { quilt::filter(level_->dirichlet, v); }
  /// One sweep after the product: the Dirichlet rows, the filter and the inner product.
  double apply_dot(const LevelVector& x, LevelVector& y) const override;
  /// One sweep: both updates and the inner product.
  double update_dot(double alpha, const LevelVector& p, const LevelVector& q, LevelVector& x,
                    LevelVector& r) const override;
  /// One sweep: the filter and the inner product.
  double filter_dot(LevelVector& z, const LevelVector& r) const override;
  /// d = W (b - A x), 0 on Dirichlet nodes (W = diag(weight); none: W = I): the defect of the
  /// Schwarz step and of the restriction in one sweep after the product, not four.
  void weighted_defect(const LevelVector& b, const LevelVector& x, const SharedWeights* weight,
                       LevelVector& d) const;
  /// weighted_defect for x = 0: d = W b, 0 on Dirichlet nodes, without the product. Bitwise
  /// what weighted_defect gives, since A 0 sums to +0 in every row (its centre is positive) and
  /// b - (+0) = b exactly.
  void weighted_defect_at_zero(const LevelVector& b, const SharedWeights* weight,
                               LevelVector& d) const;
  /// weighted_defect for two vectors with one pass over the bands and one shared-node exchange;
  /// d0 and d1 bitwise what weighted_defect gives each.
  void weighted_defect_pair(const LevelVector& b0, const LevelVector& x0, const LevelVector& b1,
                            const LevelVector& x1, const SharedWeights* weight, LevelVector& d0,
                            LevelVector& d1) const;

 private:
  const GlobalLevel* level_;
};

}  // namespace quilt
