// A main() for the fuzz harnesses without libFuzzer: runs LLVMFuzzerTestOneInput once on every
// file named (a folder: on each file in it). With it the committed corpus, crash reproducers
// included, is a regression test of the default suite, which any compiler builds (a fuzzer needs
// clang); under QUILT_SANITIZE the sanitizers watch the replay.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Defined by the harnesses that need set-up (fuzz_config.cpp), as libFuzzer allows.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      std::vector<fs::path> in_folder;
      for (const auto& entry : fs::directory_iterator(argv[i]))
        if (entry.is_regular_file()) in_folder.push_back(entry.path());
      std::sort(in_folder.begin(), in_folder.end());  // a stable order for the log
      inputs.insert(inputs.end(), in_folder.begin(), in_folder.end());
    } else {
      inputs.emplace_back(argv[i]);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER... (no inputs found)\n", argv[0]);
    return 2;
  }
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    const std::string data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::printf("%s\n", path.c_str());
    std::fflush(stdout);  // the last name printed is the input that crashed
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
  }
  std::printf("%zu inputs, no crash\n", inputs.size());
  return 0;
}
