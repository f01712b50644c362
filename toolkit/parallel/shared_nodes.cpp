#include "parallel/shared_nodes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/macro_nodes.hpp"

namespace quilt {
namespace {

constexpr int kExchangeTag = 7101;

/// The bands that couple consecutive nodes along local edge k, in increasing grid index
/// ("forward") and back.
int forward_band(int k) {
  return (k == 0 || k == 2) ? accel::band_index(1, 0) : accel::band_index(0, 1);
}
int backward_band(int k) {
  return (k == 0 || k == 2) ? accel::band_index(-1, 0) : accel::band_index(0, -1);
}

}  // namespace

SharedNodes::SharedNodes(const DistributedMesh& dm, const Communicator& comm, int level)
    : dm_(&dm), comm_(&comm), level_(level), n_(accel::nodes_per_side(level)) {
  const CoarseMesh& mesh = dm.mesh;
  const int n = n_;
  auto has_local = [&](const std::vector<int>& cells) {
    return std::any_of(cells.begin(), cells.end(), [&](int c) { return dm.local_index[c] >= 0; });
  };
  auto make_copy = [&](int cell) {
    Copy copy;
    copy.cell = cell;
    copy.rank = dm.owner[cell];
    copy.local = dm.local_index[cell];
    return copy;
  };
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    const auto& cells = mesh.vertex_cells[v];
    if (cells.size() < 2 || !has_local(cells)) continue;
    Entity entity{false, v, {}};
    for (int cell : cells) {
      Copy copy = make_copy(cell);
      copy.slot = static_cast<int>(std::find(mesh.cells[cell].begin(), mesh.cells[cell].end(), v) -
                                   mesh.cells[cell].begin());
      copy.base = static_cast<std::ptrdiff_t>(corner_node(n, copy.slot));
      entity.copies.push_back(copy);
    }
    entities_.push_back(std::move(entity));
  }
  for (int e = 0; e < mesh.num_edges(); ++e) {
    auto cells = mesh.edge_cells[e];
    if (cells.size() < 2 || !has_local(cells)) continue;
    std::sort(cells.begin(), cells.end());
    Entity entity{true, e, {}};
    for (int cell : cells) {
      Copy copy = make_copy(cell);
      const auto& ce = mesh.cell_edges[cell];
      copy.slot = static_cast<int>(std::find(ce.begin(), ce.end(), e) - ce.begin());
      const auto first =
          static_cast<std::ptrdiff_t>(canonical_edge_node(mesh, cell, n, copy.slot, 1));
      const auto second =
          static_cast<std::ptrdiff_t>(canonical_edge_node(mesh, cell, n, copy.slot, 2));
      copy.base = first;
      copy.stride = n > 3 ? second - first : 0;
      entity.copies.push_back(copy);
    }
    entities_.push_back(std::move(entity));
  }

  std::vector<int>& neighbour_of_rank = buffer_of_rank_;
  neighbour_of_rank.assign(dm.ranks, -1);
  for (int ei = 0; ei < static_cast<int>(entities_.size()); ++ei) {
    std::vector<int> ranks;
    for (const Copy& c : entities_[ei].copies)
      if (c.rank != dm.rank) ranks.push_back(c.rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    for (int r : ranks) {
      if (neighbour_of_rank[r] < 0) {
        neighbour_of_rank[r] = static_cast<int>(neighbours_.size());
        neighbours_.push_back({r, {}});
      }
      neighbours_[neighbour_of_rank[r]].entities.push_back(ei);
    }
  }

  // The multiplicities at the shared nodes only, O(n) per macro. Every node of a copy lies in one
  // entity (a corner, or the interior of an edge), so the rows are distinct.
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  // An entity's shared nodes per copy: the inner nodes of an edge, or the corner.
  const auto nodes_of = [n](const Entity& e) { return e.edge ? n - 2 : 1; };
  std::vector<std::pair<std::size_t, double>> shared_rows;
  for (const Entity& entity : entities_) {
    const int width = nodes_of(entity);
    for (const Copy& c : entity.copies) {
      if (c.local < 0) continue;
      for (int p = 0; p < width; ++p)
        shared_rows.emplace_back(c.local * nn + c.base + p * c.stride,
                                 static_cast<double>(entity.copies.size()));
    }
  }
  std::sort(shared_rows.begin(), shared_rows.end());
  for (const auto& [row, count] : shared_rows) {
    shared_multiplicity_.rows.push_back(row);
    shared_multiplicity_.values.push_back(count);
    shared_inverse_multiplicity_.rows.push_back(row);
    shared_inverse_multiplicity_.values.push_back(1.0 / count);
  }
  values_plan_ = make_plan(nodes_of);
  pairs_plan_ = make_plan([&](const Entity& e) { return 2 * nodes_of(e); });
  sent_.resize(neighbours_.size());
  received_.resize(neighbours_.size());
}

std::vector<double> SharedNodes::multiplicity() const {
  std::vector<double> out(size(), 1.0);
  for (std::size_t k = 0; k < shared_multiplicity_.rows.size(); ++k)
    out[shared_multiplicity_.rows[k]] = shared_multiplicity_.values[k];
  return out;
}

std::vector<double> SharedNodes::inverse_multiplicity() const {
  std::vector<double> out(size(), 1.0);
  for (std::size_t k = 0; k < shared_inverse_multiplicity_.rows.size(); ++k)
    out[shared_inverse_multiplicity_.rows[k]] = shared_inverse_multiplicity_.values[k];
  return out;
}

template <class Width>
SharedNodes::ExchangePlan SharedNodes::make_plan(Width&& width) const {
  ExchangePlan plan;
  plan.width.resize(entities_.size());
  plan.offsets.resize(entities_.size());
  for (std::size_t ei = 0; ei < entities_.size(); ++ei) {
    plan.width[ei] = width(entities_[ei]);
    plan.offsets[ei].assign(entities_[ei].copies.size(), -1);
  }
  plan.send_size.assign(neighbours_.size(), 0);
  plan.recv_size.assign(neighbours_.size(), 0);
  for (std::size_t ni = 0; ni < neighbours_.size(); ++ni)
    for (int ei : neighbours_[ni].entities) {
      const auto w = static_cast<std::size_t>(plan.width[ei]);
      const std::vector<Copy>& copies = entities_[ei].copies;
      for (std::size_t ci = 0; ci < copies.size(); ++ci)
        if (copies[ci].rank == neighbours_[ni].rank) {
          plan.offsets[ei][ci] = static_cast<std::ptrdiff_t>(plan.recv_size[ni]);
          plan.recv_size[ni] += w;
        } else if (copies[ci].local >= 0) {
          plan.send_size[ni] += w;
        }
    }
  return plan;
}

template <class Pack>
void SharedNodes::exchange(const ExchangePlan& plan, Pack&& pack) const {
  for (std::size_t ni = 0; ni < neighbours_.size(); ++ni) {
    received_[ni].resize(plan.recv_size[ni]);
    check_mpi(MPI_Irecv(received_[ni].data(), static_cast<int>(plan.recv_size[ni]), MPI_DOUBLE,
                        neighbours_[ni].rank, kExchangeTag, comm_->handle(), requests_.add()),
              "MPI_Irecv (shared nodes)");
  }
  for (std::size_t ni = 0; ni < neighbours_.size(); ++ni) {
    const Neighbour& nb = neighbours_[ni];
    sent_[ni].resize(plan.send_size[ni]);
    double* out = sent_[ni].data();
    for (int ei : nb.entities)
      for (const Copy& c : entities_[ei].copies)
        if (c.rank != nb.rank && c.local >= 0) {
          pack(ei, c, out);
          out += plan.width[ei];
        }
    check_mpi(MPI_Isend(sent_[ni].data(), static_cast<int>(plan.send_size[ni]), MPI_DOUBLE, nb.rank,
                        kExchangeTag, comm_->handle(), requests_.add()),
              "MPI_Isend (shared nodes)");
  }
  requests_.wait_all();
}

template <class Value>
void SharedNodes::sum_over_copies(const ExchangePlan& plan, Value&& value) const {
  exchange(plan, [&](int ei, const Copy& c, double* out) {
    for (int p = 0; p < plan.width[ei]; ++p) out[p] = value(c, p);
  });
  for (std::size_t ei = 0; ei < entities_.size(); ++ei) {
    const Entity& entity = entities_[ei];
    const int w = plan.width[ei];
    for (int p = 0; p < w; ++p) {
      double s = 0.0;
      for (std::size_t ci = 0; ci < entity.copies.size(); ++ci) {
        const Copy& c = entity.copies[ci];
        const double v = c.local >= 0
                             ? value(c, p)
                             : received_[buffer_of_rank_[c.rank]][plan.offsets[ei][ci] + p];
        s = ci == 0 ? v : s + v;
      }
      for (const Copy& c : entity.copies)
        if (c.local >= 0) value(c, p) = s;
    }
  }
}

void SharedNodes::sum(double* v) const {
  const int n = n_;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  sum_over_copies(values_plan_, [&](const Copy& c, int p) -> double& {
    return v[c.local * nn + c.base + p * c.stride];
  });
}

void SharedNodes::sum_pair(double* v0, double* v1) const {
  const int n = n_;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  // The positions of an entity interleave the vectors: 2p in v0, 2p + 1 in v1.
  sum_over_copies(pairs_plan_, [&](const Copy& c, int p) -> double& {
    double* v = p % 2 ? v1 : v0;
    return v[c.local * nn + c.base + (p / 2) * c.stride];
  });
}

void SharedNodes::average(double* v) const {
  sum(v);
  shared_inverse_multiplicity_.scale(v);
}

double SharedNodes::local_dot(const double* x, const double* y) const {
  return local_dot_fields(x, y, 1, 0);
}

double SharedNodes::local_dot_correction(const double* x, const double* y) const {
  const SharedWeights& w = shared_inverse_multiplicity_;
  double excess = 0.0;
  for (std::size_t k = 0; k < w.rows.size(); ++k)
    excess += (w.values[k] - 1.0) * (x[w.rows[k]] * y[w.rows[k]]);
  return excess;
}

double SharedNodes::local_dot_fields(const double* x, const double* y, int fields,
                                     std::size_t stride) const {
  if (fields < 1 || fields > kMaxDotFields)
    throw std::invalid_argument("SharedNodes::local_dot_fields: " + std::to_string(fields) +
                                " fields (1 to " + std::to_string(kMaxDotFields) + ")");
  const std::size_t count = size();
  // The partial sums of sum4 per field, every field in the same pass.
  double s[kMaxDotFields][4] = {};
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4)
    for (int f = 0; f < fields; ++f) {
      const double* xf = x + f * stride;
      const double* yf = y + f * stride;
      for (int k = 0; k < 4; ++k) s[f][k] += xf[i + k] * yf[i + k];
    }
  for (; i < count; ++i)
    for (int f = 0; f < fields; ++f) s[f][0] += x[f * stride + i] * y[f * stride + i];
  double local = ((s[0][0] + s[0][1]) + (s[0][2] + s[0][3])) + local_dot_correction(x, y);
  for (int f = 1; f < fields; ++f)
    local += ((s[f][0] + s[f][1]) + (s[f][2] + s[f][3])) +
             local_dot_correction(x + f * stride, y + f * stride);
  return local;
}

double SharedNodes::dot(const double* x, const double* y) const {
  return comm_->sum(local_dot(x, y));
}

void SharedNodes::make_local_matrices(accel::BandedMatrix<double>& A) const {
  sum(A.band[accel::kCentre].data());

  // Couplings along a shared edge, in canonical order: F[p] = A(node p, node p+1) and
  // B[p] = A(node p+1, node p), p = 0..n-2, corners included.
  const int n = n_;
  const CoarseMesh& mesh = dm_->mesh;
  auto coupling = [&](const Copy& c, int q) -> double& {
    const bool reversed = mesh.cell_edge_reversed[c.cell][c.slot];
    const int segments = n - 1;
    const bool backward_half = q >= segments;
    const int p = backward_half ? q - segments : q;
    // Canonical node p sits at local position lp; its canonical successor at lp -/+ 1.
    const int lp = reversed ? n - 1 - p : p;
    const int lp_next = reversed ? lp - 1 : lp + 1;
    int band, row;
    if (!backward_half) {  // A(node p, node p+1)
      band = reversed ? backward_band(c.slot) : forward_band(c.slot);
      row = lp;
    } else {  // A(node p+1, node p)
      band = reversed ? forward_band(c.slot) : backward_band(c.slot);
      row = lp_next;
    }
    return A.at(band, c.local, edge_node(n, c.slot, row));
  };
  // Set-up only: this exchange's plan is made here and dropped.
  sum_over_copies(make_plan([n](const Entity& e) { return e.edge ? 2 * (n - 1) : 0; }), coupling);
}

}  // namespace quilt
