// The cuda target on the host emulation of the CUDA runtime alone (design.md §7): what only an
// emulated device can show -- registrations of pinned ranges, stream capture, and faults
// injected into the driver.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>  // the emulation's: the tests look at its registrations

#include "cuda_test_problems.hpp"

namespace quilt::accel {
namespace {

using namespace test;

// --- faults injected into the emulated device ----------------------------------------------------

/// Sets an environment variable the emulated device reads, for one scope.
class EmulatedFault {
 public:
  EmulatedFault(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~EmulatedFault() { unsetenv(name_); }
  EmulatedFault(const EmulatedFault&) = delete;
  EmulatedFault& operator=(const EmulatedFault&) = delete;

 private:
  const char* name_;
};

std::string rejection(const LocalSolverParams& p) {
  try {
    make_local_solver(p);
  } catch (const AccelError& e) {
    return e.what();
  }
  return "(accepted)";
}

/// The pages pin_io() locks stay locked exactly as long as the solver lives: a second
/// registration of the range is refused while it does, and succeeds after.
TEST(CudaLocalSolverEmulation, PinIoRegistersUntilTheSolverIsGone) {
  const Problem p = make_problem(1, 4, mixed_macros(2), 5u);
  std::vector<double> defect = p.defect, correction(p.fine().rows());
  const std::size_t bytes = defect.size() * sizeof(double);
  {
    auto solver = make_local_solver(params_for(Target::cuda, Precision::float32));
    solver->setup(p.levels());
    solver->pin_io(defect.data(), correction.data(), defect.size());
    EXPECT_EQ(cudaHostRegister(defect.data(), bytes, cudaHostRegisterDefault),
              cudaErrorHostMemoryAlreadyRegistered);
    EXPECT_EQ(cudaHostRegister(correction.data(), bytes, cudaHostRegisterDefault),
              cudaErrorHostMemoryAlreadyRegistered);
    cudaGetLastError();
    // A second pin_io() of the same vectors releases the first registration before it locks.
    solver->pin_io(defect.data(), correction.data(), defect.size());
    solver->solve(defect.data(), correction.data());
    EXPECT_FALSE(solver->last_stats().staged);
  }
  ASSERT_EQ(cudaHostRegister(defect.data(), bytes, cudaHostRegisterDefault), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(defect.data()), cudaSuccess);
  // A range already locked by someone else is not an error: the solver stages instead.
  ASSERT_EQ(cudaHostRegister(correction.data(), bytes, cudaHostRegisterDefault), cudaSuccess);
  {
    auto solver = make_local_solver(params_for(Target::cuda, Precision::float32));
    solver->setup(p.levels());
    solver->pin_io(defect.data(), correction.data(), defect.size());
    solver->solve(defect.data(), correction.data());
    EXPECT_TRUE(solver->last_stats().staged);
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  }
  EXPECT_EQ(cudaHostUnregister(correction.data()), cudaSuccess);
}

/// The emulation's stream capture, which the V-cycle's graph relies on: operations are recorded,
/// not run; a replay runs them in order and reads a copy's source when it runs; a host wait
/// during the capture is refused and invalidates it.
TEST(CudaLocalSolverEmulation, StreamCaptureRecordsAndReplays) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  double* dev = nullptr;
  double* host = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dev), sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&host), 2 * sizeof(double)), cudaSuccess);
  host[0] = 1.0;
  host[1] = -1.0;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(dev, host, sizeof(double), cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host + 1, dev, sizeof(double), cudaMemcpyDeviceToHost, s), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(host[1], -1.0) << "a captured copy ran";
  for (double v : {2.0, 3.0}) {
    host[0] = v;  // read by the replay, not at capture
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(host[1], v);
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  double pageable = 0.0;
  EXPECT_EQ(cudaMemcpyAsync(&pageable, dev, sizeof(double), cudaMemcpyDeviceToHost, s),
            cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph, nullptr);
  cudaGetLastError();
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(host), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST(CudaLocalSolverEmulatedFaults, DriverMismatchIsNotReportedAsNoDevice) {
  const EmulatedFault fault("QUILT_CUDA_EMULATION_FAULT", "insufficient-driver");
  EXPECT_EQ(cuda_device_count(), 0);
  const std::string why = rejection(params_for(Target::cuda, Precision::float32));
  EXPECT_EQ(why.find("no CUDA device"), std::string::npos) << why;
  EXPECT_NE(why.find("the CUDA driver does not match the CUDA runtime"), std::string::npos) << why;
  EXPECT_NE(why.find("driver supports CUDA 12.0, runtime is CUDA 13.0"), std::string::npos) << why;
  EXPECT_NE(why.find("cudaErrorInsufficientDriver"), std::string::npos) << why;
  EXPECT_NE(cuda_unavailable_reason().find("driver"), std::string::npos);
}

TEST(CudaLocalSolverEmulatedFaults, MissingDriverIsReportedAsNoDevice) {
  // The runtime answers cudaErrorInsufficientDriver without any driver (no libcuda), as on a CI
  // machine with the toolkit alone.
  const EmulatedFault fault("QUILT_CUDA_EMULATION_FAULT", "no-driver");
  EXPECT_EQ(cuda_device_count(), 0);
  const std::string why = rejection(params_for(Target::cuda, Precision::float32));
  EXPECT_NE(why.find("no CUDA device is visible (no CUDA driver is installed"), std::string::npos)
      << why;
  EXPECT_NE(why.find("cudaErrorInsufficientDriver"), std::string::npos) << why;
}

TEST(CudaLocalSolverEmulatedFaults, NoDeviceIsReportedAsSuch) {
  const EmulatedFault fault("QUILT_CUDA_EMULATION_DEVICES", "0");
  EXPECT_EQ(cuda_device_count(), 0);
  const std::string why = rejection(params_for(Target::cuda, Precision::float64));
  EXPECT_NE(why.find("no CUDA device is visible"), std::string::npos) << why;
  EXPECT_NE(why.find("cudaErrorNoDevice"), std::string::npos) << why;
}

TEST(CudaLocalSolverEmulatedFaults, MissingKernelImageFailsAtSetUp) {
  const EmulatedFault fault("QUILT_CUDA_EMULATION_FAULT", "no-kernel-image");
  EXPECT_EQ(cuda_device_count(), 1);  // the device is there, the build has no code for it
  const std::string why = rejection(params_for(Target::cuda, Precision::float32));
  EXPECT_NE(why.find("no kernel image for device 0"), std::string::npos) << why;
  EXPECT_NE(why.find("compute capability 9.0"), std::string::npos) << why;
  EXPECT_NE(why.find("-DCMAKE_CUDA_ARCHITECTURES=90"), std::string::npos) << why;
}

}  // namespace
}  // namespace quilt::accel
