#pragma once
// Run configuration (design.md §10): one INI file per run, every key also settable on the
// command line (--section.key=value, which wins over the file), --help listing every key with
// its default and meaning. Unknown keys and malformed values are ConfigErrors naming the key.

#include <boost/program_options.hpp>

#include <stdexcept>
#include <string>

namespace quilt {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Config {
 public:
  /// `program` and `usage` head the --help text.
  Config(std::string program, std::string usage);

  /// Declares keys: config.keys()("mesh.level", value<int>()->default_value(4), "meaning").
  boost::program_options::options_description_easy_init keys() { return keys_.add_options(); }

  /// Parses argv (--config FILE, --help, --results FILE, --vtu DIR and the declared keys).
  /// Returns false when --help was printed and the program should stop.
  bool parse(int argc, char** argv);

  template <class T>
  T get(const std::string& key) const {
    try {
      return values_.at(key).as<T>();
    } catch (const std::exception&) {
      throw ConfigError("configuration key '" + key + "' is missing or has the wrong type");
    }
  }
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  /// Throws ConfigError naming the key (and the config file, if any) with `what` as the reason.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  const std::string& file() const { return file_; }

 private:
  std::string program_, usage_, file_;
  boost::program_options::options_description keys_;
  boost::program_options::variables_map values_;
};

}  // namespace quilt
