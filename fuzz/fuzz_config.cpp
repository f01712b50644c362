// libFuzzer harness of the configuration parser (toolkit/io/config.hpp): every input is the text
// of a configuration file, read with quilt-flow's keys (apps/common/flow_options.hpp) as
// `quilt-flow --config FILE` reads it. A file the parser rejects must be a ConfigError; any other
// exception, a crash, a sanitizer report or a hang (Boost.Program_options' messages loop on
// placeholders such as %value%, config.cpp) is a bug.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/flow_options.hpp"
#include "io/config.hpp"

namespace {

// Config::parse reads the file named by --config, so each input is written to this file first
// (one per fuzzing process: libFuzzer's -jobs run several).
std::string config_file;

void remove_config_file() {
  std::remove(config_file.c_str());
}

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_config: %s\n", what);
  std::abort();
}

/// Reads keys as the apps do (get with a Range, config_numbers, path); each may fail only with a
/// ConfigError, which the caller catches.
void read_keys(const quilt::Config& config) {
  using quilt::Range;
  for (const auto& setting : config.settings()) (void)setting;
  config.get("mesh.level", Range<int>::closed(1, 11));
  config.get("flow.re", Range<double>::above(0));
  config.get("nonlinear.damping", Range<double>::open(0, 2));
  config.get<bool>("flow.stokes");
  if (config.has("boundary.condition")) config.get<std::vector<std::string>>("boundary.condition");
  if (config.has("mesh.chart")) config.get<std::vector<std::string>>("mesh.chart");
  quilt::config_numbers(config, "flow.continuation");
  quilt::config_numbers(config, "postprocess.centerline_y");
  // Resolves the path beside the configuration file; never opened: a fuzzed name could be a FIFO.
  config.path("mesh.file");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::filesystem::path shm("/dev/shm");
  std::error_code ec;
  const std::filesystem::path folder =
      std::filesystem::is_directory(shm, ec) ? shm : std::filesystem::temp_directory_path();
  config_file = (folder / ("quilt-fuzz-config-" + std::to_string(getpid()) + ".ini")).string();
  std::atexit(remove_config_file);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(config_file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) broken("cannot write the configuration file");
  }
  quilt::Config config("quilt-flow", "fuzz");
  quilt::declare_flow_keys(config);
  std::string program = "quilt-fuzz-config", option = "--config", file = config_file;
  char* argv[] = {program.data(), option.data(), file.data(), nullptr};
  try {
    if (!config.parse(3, argv)) broken("--help or --version from a configuration file");
    read_keys(config);
  } catch (const quilt::ConfigError& e) {
    if (std::string(e.what()).rfind("configuration", 0) != 0)
      broken("a ConfigError that does not start with 'configuration'");
  }
  return 0;
}
