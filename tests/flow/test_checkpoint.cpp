// Checkpoint and restart of an instationary run (flow/checkpoint.hpp), at every rank count
// ctest runs: DFG 2D-3 on the coarse channel, fractional-step theta. A run restarted from the
// checkpoint written half-way must end bitwise where the uninterrupted run ends (state and
// series), so a restart that forgot any part of the stepper's memory (u^{n-1}, R(u^n, p^n), the
// step count) fails; a checkpoint that does not belong to the run is refused, naming why. A
// checkpoint is where the preconditioner is set up afresh (flow/preconditioner_refresh.hpp),
// in the run that writes it as in the one restarted from it: the uninterrupted run writes
// checkpoints at the same steps, into another file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>

#include "dfg_problems.hpp"
#include "flow/checkpoint.hpp"
#include "flow/transient_flow.hpp"
#include "mesh_files.hpp"
#include "parallel/rank_consistency.hpp"

using namespace quilt;

namespace {

NavierStokesParams dfg_2d3() {
  NavierStokesParams p = dfg_2d3_problem(1);
  p.nonlinear_rel_tol = 1e-8;
  return p;
}

/// A file of this test and rank count, written and read by rank 0 only.
std::string scratch_file(const std::string& name, const Communicator& comm) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return (std::filesystem::temp_directory_path() /
          ("quilt_" + std::string(test->name()) + "_np" + std::to_string(comm.size()) + "_" + name))
      .string();
}

TimeSteppingParams fs_theta(double end) {
  return {.scheme = TimeScheme::fractional_step_theta, .step = 0.25, .end = end};
}

/// Checkpoints into `file` after every `every` steps.
TransientOutput checkpoints(const std::string& file, int every) {
  TransientOutput o;
  o.checkpoint = file;
  o.checkpoint_every = every;
  return o;
}

TransientOutput restart_from(const std::string& file) {
  TransientOutput o;
  o.restart = file;
  return o;
}

TransientFlowResult run(double end, const TransientOutput& output, const Communicator& comm) {
  return solve_transient_flow(dfg_2d3(), fs_theta(end), cylinder_forces(), output, comm);
}

/// Expects the message of the CheckpointError thrown by `f` to contain `what`.
template <class F>
void expect_refused(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no CheckpointError (expected one about " << what << ")";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

class Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = scratch_file("checkpoint", comm_);
    whole_file_ = scratch_file("whole", comm_);
  }
  void TearDown() override {
    if (comm_.rank() == 0) {
      std::filesystem::remove(file_);
      std::filesystem::remove(whole_file_);
    }
  }
  /// Two of four steps, with the checkpoint written after the second.
  void write_half_way() { run(0.5, checkpoints(file_, 2), comm_); }

  Communicator comm_;
  std::string file_;
  std::string whole_file_;  ///< the checkpoints of the uninterrupted run
};

TEST_F(Checkpoint, ARestartedRunContinuesBitwise) {
  const TransientFlowResult whole = run(1.0, checkpoints(whole_file_, 2), comm_);
  write_half_way();
  const TransientFlowResult restarted = run(1.0, restart_from(file_), comm_);
  EXPECT_EQ(restarted.last.u1, whole.last.u1);
  EXPECT_EQ(restarted.last.u2, whole.last.u2);
  EXPECT_EQ(restarted.last.p, whole.last.p);
  ASSERT_EQ(whole.series.t.size(), 4u);
  EXPECT_EQ(restarted.series.t, whole.series.t);
  EXPECT_EQ(restarted.series.drag, whole.series.drag);
  EXPECT_EQ(restarted.series.lift, whole.series.lift);
  EXPECT_EQ(restarted.series.linear_iterations, whole.series.linear_iterations);
}

// Adaptive steps carry more memory (the time, the next and the last two step lengths, M d^{n-1},
// and u^{n-2}, from which Crank-Nicolson predicts): a restart from the middle of a run whose
// steps vary must still continue bitwise, the flow that Crank-Nicolson reports (from the last
// four steps' flows, flow/transient_flow.cpp) at the first step after the restart too.
TEST_F(Checkpoint, AnAdaptiveRunRestartsBitwise) {
  const TimeSteppingParams adaptive{
      .scheme = TimeScheme::crank_nicolson, .step = 0.05, .end = 1.0, .tolerance = 1e-3};
  int every = 0;
  std::vector<double> after_checkpoint;  // the reported pressure and residual at step every + 1
  const auto keep_reported = [&](const TimeStepRecord& s, const FlowQuantities&,
                                 const NavierStokesResult& r) {
    if (s.step != every + 1 || !after_checkpoint.empty()) return;
    after_checkpoint.assign(r.p.begin(), r.p.end());
    after_checkpoint.insert(after_checkpoint.end(), r.momentum_residual1.begin(),
                            r.momentum_residual1.end());
  };
  const auto run_adaptive = [&](const TransientOutput& o) {
    return solve_transient_flow(dfg_2d3(), adaptive, cylinder_forces(), o, comm_, keep_reported);
  };
  const TransientFlowResult plain = run_adaptive({});
  const std::vector<double>& t = plain.series.t;
  ASSERT_GE(t.size(), 4u);
  std::vector<double> steps(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) steps[i] = t[i] - (i > 0 ? t[i - 1] : 0.0);
  EXPECT_GT(*std::max_element(steps.begin(), steps.end()), 1.5 * steps.front());
  EXPECT_GT(std::accumulate(plain.series.rejected.begin(), plain.series.rejected.end(), 0), 0);
  every = static_cast<int>(t.size()) / 2 + 1;  // written once, before the end
  after_checkpoint.clear();
  const TransientFlowResult whole = run_adaptive(checkpoints(whole_file_, every));
  const std::vector<double> whole_after_checkpoint = after_checkpoint;
  run_adaptive(checkpoints(file_, every));
  after_checkpoint.clear();
  const TransientFlowResult restarted = run_adaptive(restart_from(file_));
  ASSERT_FALSE(whole_after_checkpoint.empty());
  EXPECT_EQ(after_checkpoint, whole_after_checkpoint);
  EXPECT_EQ(restarted.last.u1, whole.last.u1);
  EXPECT_EQ(restarted.last.p, whole.last.p);
  EXPECT_EQ(restarted.series.t, whole.series.t);
  EXPECT_EQ(restarted.series.drag, whole.series.drag);
  EXPECT_EQ(restarted.series.rejected, whole.series.rejected);
}

TEST_F(Checkpoint, IsRefusedByAnotherRun) {
  write_half_way();
  NavierStokesParams other_level = dfg_2d3();
  other_level.level = 2;
  expect_refused(
      [&] {
        solve_transient_flow(other_level, fs_theta(1.0), cylinder_forces(), restart_from(file_),
                             comm_);
      },
      "mesh.level");
  TimeSteppingParams other_step = fs_theta(1.0);
  other_step.step = 0.125;
  expect_refused(
      [&] {
        solve_transient_flow(dfg_2d3(), other_step, cylinder_forces(), restart_from(file_), comm_);
      },
      "time.step");
  TimeSteppingParams other_scheme = fs_theta(1.0);
  other_scheme.scheme = TimeScheme::bdf2;
  expect_refused(
      [&] {
        solve_transient_flow(dfg_2d3(), other_scheme, cylinder_forces(), restart_from(file_),
                             comm_);
      },
      "time.scheme");
  expect_refused([&] { run(0.5, restart_from(file_), comm_); }, "no time step left");
  if (comm_.size() > 1) {  // every rank on its own: a run on one rank
    MPI_Comm single;
    MPI_Comm_split(MPI_COMM_WORLD, comm_.rank(), 0, &single);
    if (comm_.rank() == 0)
      expect_refused([&] { run(1.0, restart_from(file_), Communicator(single)); }, "ranks");
    MPI_Comm_free(&single);
  }
}

TEST_F(Checkpoint, ACorruptedOrTruncatedFileIsRefused) {
  write_half_way();
  std::string bytes;
  if (comm_.rank() == 0) {
    std::ifstream in(file_, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::string flipped = bytes;
    flipped[flipped.size() / 2] ^= 0x10;  // one bit of the state
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << flipped;
  }
  expect_refused([&] { run(1.0, restart_from(file_), comm_); }, "checksum");
  if (comm_.rank() == 0)
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 3);
  expect_refused([&] { run(1.0, restart_from(file_), comm_); }, "checkpoint");
  expect_refused([&] { run(1.0, restart_from(file_ + ".missing"), comm_); }, "cannot open");
}

// A checkpoint of format 1 (before the stepper kept M d^n) is refused, though its checksum is
// right: restarting from its steady residual would continue into another step.
TEST_F(Checkpoint, AnOlderFormatIsRefused) {
  write_half_way();
  if (comm_.rank() == 0) {
    std::ifstream in(file_, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::uint32_t version = 1;  // after the 8-byte magic
    std::memcpy(bytes.data() + 8, &version, sizeof version);
    const std::size_t body = bytes.size() - sizeof(std::uint64_t);
    const std::uint64_t sum = Fingerprint().add_bytes(bytes.data(), body).value();
    std::memcpy(bytes.data() + body, &sum, sizeof sum);
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << bytes;
  }
  expect_refused([&] { run(1.0, restart_from(file_), comm_); }, "format version 1");
}

}  // namespace
