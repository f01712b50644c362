// sum / average / dot over shared nodes and the local matrices, checked against a serial
// reference built from the global node numbering, at every rank count ctest runs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "fem/scalar_assembly.hpp"
#include "mesh/macro_nodes.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "parallel/shared_nodes.hpp"

using namespace quilt;

namespace {

/// A value no two (global node, macro) pairs share, to catch a copy added twice or missed.
double type0_value(std::size_t gid, int cell) {
  return 0.37 * gid + 1.0 / (3.0 + cell);
}

class SharedNodesTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Communicator comm;
    dm = distribute(read_msh(mesh_path(GetParam())), {}, comm);
  }
  Communicator comm;
  DistributedMesh dm;
};

}  // namespace

TEST_P(SharedNodesTest, SumMatchesSerialReferenceBitForBit) {
  for (int level : {0, 1, 3}) {
    const SharedNodes shared(dm, comm, level);
    const GlobalNumbering numbering(dm.mesh, level);
    const std::size_t nn = static_cast<std::size_t>(shared.n()) * shared.n();
    // Serial reference: every macro of the mesh, ascending, adds its copy.
    std::vector<double> reference(numbering.size(), 0.0);
    std::vector<int> count(numbering.size(), 0);
    for (int c = 0; c < dm.mesh.num_cells(); ++c) {
      const auto ids = numbering.cell_nodes(c);
      for (std::size_t id : ids) {
        reference[id] = count[id] == 0 ? type0_value(id, c) : reference[id] + type0_value(id, c);
        ++count[id];
      }
    }
    std::vector<double> v(shared.size());
    for (int m = 0; m < dm.num_local(); ++m) {
      const auto ids = numbering.cell_nodes(dm.macros[m]);
      for (std::size_t r = 0; r < nn; ++r) v[m * nn + r] = type0_value(ids[r], dm.macros[m]);
    }
    shared.sum(v.data());
    const std::vector<double> multiplicity = shared.multiplicity();
    for (int m = 0; m < dm.num_local(); ++m) {
      const auto ids = numbering.cell_nodes(dm.macros[m]);
      for (std::size_t r = 0; r < nn; ++r) {
        ASSERT_EQ(v[m * nn + r], reference[ids[r]])
            << "level " << level << " macro " << dm.macros[m] << " node " << r;
        ASSERT_EQ(multiplicity[m * nn + r], count[ids[r]]);
      }
    }
  }
}

TEST_P(SharedNodesTest, AverageKeepsConsistentVectorsAndDotCountsNodesOnce) {
  const int level = 3;
  const SharedNodes shared(dm, comm, level);
  const GlobalNumbering numbering(dm.mesh, level);
  const std::size_t nn = static_cast<std::size_t>(shared.n()) * shared.n();
  std::vector<double> x(shared.size()), y(shared.size());
  for (int m = 0; m < dm.num_local(); ++m) {
    const auto ids = numbering.cell_nodes(dm.macros[m]);
    for (std::size_t r = 0; r < nn; ++r) {
      x[m * nn + r] = std::sin(0.1 * ids[r]);
      y[m * nn + r] = std::cos(0.3 * ids[r]);
    }
  }
  std::vector<double> avg = x;
  shared.average(avg.data());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(avg[i], x[i], 1e-15);
  double reference = 0;
  for (std::size_t id = 0; id < numbering.size(); ++id)
    reference += std::sin(0.1 * id) * std::cos(0.3 * id);
  EXPECT_NEAR(shared.dot(x.data(), y.data()), reference, 1e-12 * numbering.size());
  const double ones = [&] {
    std::vector<double> one(shared.size(), 1.0);
    return shared.dot(one.data(), one.data());
  }();
  EXPECT_NEAR(ones, static_cast<double>(numbering.size()), 1e-9);
}

// local_dot_fields, one pass over several fields (the Navier-Stokes u1, u2, p), is bitwise the
// sum of their local_dots in field order; level 1 (9 nodes per macro side) leaves a tail after
// the blocks of four. More fields than it keeps sums for are refused.
TEST_P(SharedNodesTest, FieldDotsInOnePassAreBitwiseTheSumOfTheFieldDots) {
  for (int level : {1, 3}) {
    const SharedNodes shared(dm, comm, level);
    const std::size_t n = shared.size();
    for (int fields : {1, 3, 4}) {
      std::vector<double> x(fields * n), y(fields * n);
      for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = std::sin(0.7 * i + 0.1);
        y[i] = std::cos(1.3 * i) / (1.0 + i);
      }
      double expect = shared.local_dot(x.data(), y.data());
      for (int f = 1; f < fields; ++f)
        expect += shared.local_dot(x.data() + f * n, y.data() + f * n);
      EXPECT_EQ(shared.local_dot_fields(x.data(), y.data(), fields, n), expect)
          << "level " << level << ", " << fields << " fields";
    }
    std::vector<double> v(5 * n, 1.0);
    EXPECT_THROW(shared.local_dot_fields(v.data(), v.data(), 5, n), std::invalid_argument);
  }
}

// The local matrix of a macro is the principal submatrix of the globally assembled matrix on
// its nodes (design.md §2): compare with a serial global assembly of all macros.
TEST_P(SharedNodesTest, LocalMatricesArePrincipalSubmatricesOfGlobalMatrix) {
  const int level = 2;
  const int n = accel::nodes_per_side(level);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const GlobalNumbering numbering(dm.mesh, level);
  std::map<std::pair<std::size_t, std::size_t>, double> global;
  for (int c = 0; c < dm.mesh.num_cells(); ++c) {
    accel::BandedMatrix<double> A(1, n);
    // A nonsymmetric variable-coefficient operator: mass scaled per macro plus Laplacian, so
    // transposed edge couplings or a missed orientation flip show up.
    add_laplacian(refine_macro(dm.mesh, {}, c, level), A, 0);
    add_mass(refine_macro(dm.mesh, {}, c, level), A, 0, 1.0 + c);
    for (std::size_t r = 0; r < nn; ++r) A.at(accel::band_index(1, 0), 0, r) *= 1.0 + 0.01 * r;
    const auto ids = numbering.cell_nodes(c);
    for (std::size_t r = 0; r < nn; ++r)
      for (int k = 0; k < accel::kBands; ++k)
        if (A.at(k, 0, r) != 0.0)
          global[{ids[r], ids[r + accel::band_offset(k, n)]}] += A.at(k, 0, r);
  }
  const SharedNodes shared(dm, comm, level);
  accel::BandedMatrix<double> local(dm.num_local(), n);
  for (int m = 0; m < dm.num_local(); ++m) {
    const int c = dm.macros[m];
    accel::BandedMatrix<double> A(1, n);
    add_laplacian(refine_macro(dm.mesh, {}, c, level), A, 0);
    add_mass(refine_macro(dm.mesh, {}, c, level), A, 0, 1.0 + c);
    for (std::size_t r = 0; r < nn; ++r) A.at(accel::band_index(1, 0), 0, r) *= 1.0 + 0.01 * r;
    for (int k = 0; k < accel::kBands; ++k)
      std::copy(A.band[k].begin(), A.band[k].end(), local.band[k].begin() + m * nn);
  }
  shared.make_local_matrices(local);
  for (int m = 0; m < dm.num_local(); ++m) {
    const auto ids = numbering.cell_nodes(dm.macros[m]);
    for (std::size_t r = 0; r < nn; ++r)
      for (int k = 0; k < accel::kBands; ++k) {
        const double a = local.at(k, m, r);
        if (a == 0.0) continue;
        const auto key = std::make_pair(ids[r], ids[r + accel::band_offset(k, n)]);
        ASSERT_TRUE(global.count(key));
        EXPECT_NEAR(a, global[key], 1e-13 * std::abs(global[key]))
            << "macro " << dm.macros[m] << " row " << r << " band " << k;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, SharedNodesTest,
                         ::testing::Values("unit_square_4x2.msh", "unit_square_unstructured.msh",
                                           "l_shape.msh"));
