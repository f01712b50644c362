#pragma once
// Run configuration (design.md §10): one INI file per run, every key also settable on the
// command line (--section.key=value, which wins over the file), --help listing every key with
// its default and meaning, --version the project's version. Unknown keys, malformed values and
// values out of a key's range (get(key, Range)) are ConfigErrors naming the key.

#include <boost/program_options.hpp>

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace quilt {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The admissible values of a numeric key: an interval whose ends are closed, open or absent.
/// A floating-point value must also be finite (inf and nan are never admissible).
template <class T>
struct Range {
  static_assert(std::is_arithmetic_v<T>);
  std::optional<T> lo, hi;
  bool lo_open = false, hi_open = false;

  static Range any() { return {}; }  ///< every (finite) value
  static Range at_least(T lo) { return {lo, std::nullopt, false, false}; }  ///< [lo, inf)
  static Range above(T lo) { return {lo, std::nullopt, true, false}; }      ///< (lo, inf)
  static Range closed(T lo, T hi) { return {lo, hi, false, false}; }        ///< [lo, hi]
  static Range open(T lo, T hi) { return {lo, hi, true, true}; }            ///< (lo, hi)
  static Range open_closed(T lo, T hi) { return {lo, hi, true, false}; }    ///< (lo, hi]

  bool contains(T v) const {
    if constexpr (std::is_floating_point_v<T>)
      if (!std::isfinite(v)) return false;
    if (lo && (lo_open ? !(v > *lo) : !(v >= *lo))) return false;
    if (hi && (hi_open ? !(v < *hi) : !(v <= *hi))) return false;
    return true;
  }
  /// "a finite number in (0, 1)", "an integer >= 1", ...
  std::string describe() const;
};

/// A value as a message shows it: the shortest text that reads back to it ("0.1", "inf", "-1").
std::string config_value_text(double v);
std::string config_value_text(long long v);

/// A number key with its default, which --help shows as config_value_text (0.7, not
/// 0.69999999999999996).
inline boost::program_options::typed_value<double>* number_key(double default_value) {
  return boost::program_options::value<double>()->default_value(default_value,
                                                                config_value_text(default_value));
}

class Config {
 public:
  /// `program` and `usage` head the --help text.
  Config(std::string program, std::string usage);

  /// Declares keys: config.keys()("mesh.level", value<int>()->default_value(4), "meaning").
  boost::program_options::options_description_easy_init keys() { return keys_.add_options(); }

  /// Parses argv (--config FILE, --help, --version, --results FILE, --vtu DIR and the declared
  /// keys). Returns false when --help or --version was printed and the program should stop.
  /// A key or value holding "%name%" is a ConfigError: Boost.Program_options' messages loop on
  /// their own placeholders (%value%, %canonical_option%, ...), so such text never reaches it.
  bool parse(int argc, char** argv);

  template <class T>
  T get(const std::string& key) const {
    try {
      return values_.at(key).as<T>();
    } catch (const std::exception&) {
      throw ConfigError("configuration key '" + key + "' is missing or has the wrong type");
    }
  }
  /// The value of a numeric key, a ConfigError naming the key and the value unless `range`
  /// contains it (T is the type the key was declared with).
  template <class T>
  T get(const std::string& key, const Range<T>& range) const {
    return check(key, get<T>(key), range);
  }
  /// `value` (read from `key`, e.g. one entry of a list) unless `range` does not contain it.
  template <class T>
  T check(const std::string& key, T value, const Range<T>& range) const {
    if (!range.contains(value)) {
      using Shown = std::conditional_t<std::is_floating_point_v<T>, double, long long>;
      fail(key, "value " + config_value_text(static_cast<Shown>(value)) +
                    " is out of range: must be " + range.describe());
    }
    return value;
  }
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  /// The value of a string key naming a file. A relative path set in the configuration file is
  /// taken relative to that file's folder (a case folder keeps its configuration and its mesh
  /// together, wherever the run starts); one from the command line or a key's default relative
  /// to the working directory. The shorter spelling is returned when it names the same file
  /// ("apps/configs/../../meshes/a.msh" -> "meshes/a.msh").
  std::string path(const std::string& key) const;
  /// path(key) for a file the run reads: a ConfigError naming the key and the resolved path
  /// unless it can be opened for reading, found before any work is done.
  std::string input_file(const std::string& key) const;
  /// Every key (--config, --results, --vtu and the declared ones) with its value as parsed,
  /// defaults included (std::nullopt: unset), in declaration order: what the run was configured
  /// with, to compare across ranks. A list reads as its entries, one per line.
  std::vector<std::pair<std::string, std::optional<std::string>>> settings() const;
  /// A parsed value as the type its key was declared with (int and long long as long long; a
  /// list as its entries; a flag given without a value as "").
  using Value = std::variant<bool, long long, double, std::string, std::vector<std::string>>;
  /// settings() with each value as its type, for the results file's "config" section.
  std::vector<std::pair<std::string, std::optional<Value>>> typed_settings() const;
  /// Throws ConfigError naming the key (and the config file, if any) with `what` as the reason.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  const std::string& file() const { return file_; }

  /// The project's version (CMake's project(... VERSION)), printed by --version.
  static const char* version();

 private:
  std::string program_, usage_, file_;
  boost::program_options::options_description general_, keys_;
  boost::program_options::variables_map values_;
  std::set<std::string> from_file_;  ///< the keys whose value the configuration file set
};

template <class T>
std::string Range<T>::describe() const {
  using Shown = std::conditional_t<std::is_floating_point_v<T>, double, long long>;
  auto text = [](T v) { return config_value_text(static_cast<Shown>(v)); };
  std::string s = std::is_floating_point_v<T> ? "a finite number" : "an integer";
  if (lo && hi)
    s += std::string(" in ") + (lo_open ? "(" : "[") + text(*lo) + ", " + text(*hi) +
         (hi_open ? ")" : "]");
  else if (lo)
    s += (lo_open ? " > " : " >= ") + text(*lo);
  else if (hi)
    s += (hi_open ? " < " : " <= ") + text(*hi);
  return s;
}

}  // namespace quilt
