#include "io/config.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#ifndef QUILT_VERSION
#define QUILT_VERSION "unknown"
#endif

namespace po = boost::program_options;

namespace quilt {
namespace {

// Boost.Program_options (1.74) formats its error messages by replacing placeholders such as
// %value% and %canonical_option% with the offending text until none is left: text that contains
// a placeholder itself makes e.what() loop forever. No key or value that reaches the parser may
// hold one, so every token and every line of the file is scanned first.

/// The first "%name%" (name: letters and '_') in s, or "" if there is none.
std::string placeholder_in(const std::string& s) {
  for (std::size_t open = s.find('%'); open != std::string::npos; open = s.find('%', open + 1)) {
    std::size_t end = open + 1;
    while (end < s.size() && (std::isalpha(static_cast<unsigned char>(s[end])) || s[end] == '_'))
      ++end;
    if (end > open + 1 && end < s.size() && s[end] == '%') return s.substr(open, end - open + 1);
  }
  return "";
}

/// s in single quotes, control characters and bytes outside ASCII as \n, \t, \xNN.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      q += "\\n";
    else if (c == '\t')
      q += "\\t";
    else if (c == '\\' || c == '\'')
      q += std::string("\\") + c;
    else if (u < 0x20 || u >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      q += hex;
    } else
      q += c;
  }
  return q + "'";
}

/// Throws unless key and value are free of placeholders; `where` locates them, `what` names a
/// value without a key ("line", "argument").
void check_placeholders(const std::string& where, const std::string& key, const std::string& value,
                        const char* what = "value") {
  std::string found = placeholder_in(key);
  if (found.empty()) found = placeholder_in(value);
  if (found.empty()) return;
  const std::string item = key.empty()     ? std::string(what) + " " + quoted(value)
                           : value.empty() ? "key " + quoted(key)
                                           : "key " + quoted(key) + ", value " + quoted(value);
  throw ConfigError("configuration" + where + ": " + item + ": '" + found +
                    "' is not allowed in keys or values (the option parser cannot report it)");
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

void check_command_line(int argc, char** argv) {
  std::string pending;  // "--key" given without '=': the next token is its value
  for (int i = 1; i < argc; ++i) {
    const std::string token = argv[i];
    std::string key, value;
    if (token.size() > 1 && token[0] == '-') {
      const std::size_t eq = token.find('=');
      key = token.substr(0, eq);
      key.erase(0, key.find_first_not_of('-'));
      if (eq != std::string::npos) value = token.substr(eq + 1);
      pending = eq == std::string::npos ? key : "";
    } else {
      key = pending;
      value = token;
      pending.clear();
    }
    check_placeholders(" (command line)", key, value, "argument");
  }
}

/// The lines of an INI file as Boost's parser reads them: '#' starts a comment, "[section]"
/// prefixes the following keys with "section.", "key = value" sets a key.
void check_config_text(const std::string& file, const std::string& text) {
  std::istringstream in(text);
  std::string line, section;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trimmed(line.substr(0, line.find('#')));
    const std::string where = " (" + file + ", line " + std::to_string(number) + ")";
    if (line.size() > 1 && line.front() == '[' && line.back() == ']') {
      section = trimmed(line.substr(1, line.size() - 2));
      check_placeholders(where, section, "");
    } else if (const std::size_t eq = line.find('='); eq != std::string::npos) {
      const std::string key = trimmed(line.substr(0, eq));
      check_placeholders(where, section.empty() ? key : section + "." + key,
                         trimmed(line.substr(eq + 1)));
    } else {
      check_placeholders(where, "", line, "line");
    }
  }
}

/// The whole file; a ConfigError naming the path if it is a directory or cannot be read.
std::string read_config_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError("configuration file '" + path + "' is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError("cannot open configuration file '" + path + "': " + std::strerror(errno));
  std::string text;
  char buffer[4096];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw ConfigError("cannot read configuration file '" + path + "'");
  return text;
}

/// A parsed value as its type. A type no key had so far is a logic error naming the key: its
/// values would otherwise all read "" and ranks holding different ones would pass.
Config::Value typed_value(const std::string& key, const po::variable_value& value) {
  const boost::any& v = value.value();
  if (v.empty()) return std::string();  // a flag without a value (--help)
  if (const auto* text = boost::any_cast<std::string>(&v)) return *text;
  if (const auto* number = boost::any_cast<int>(&v)) return static_cast<long long>(*number);
  if (const auto* number = boost::any_cast<long long>(&v)) return *number;
  if (const auto* number = boost::any_cast<double>(&v)) return *number;
  if (const auto* flag = boost::any_cast<bool>(&v)) return *flag;
  if (const auto* list = boost::any_cast<std::vector<std::string>>(&v)) return *list;
  throw std::logic_error("configuration key '" + key +
                         "': Config::settings() cannot show values of its type");
}

/// A value as settings() shows it: numbers as config_value_text, a list as its entries, one
/// per line.
std::string value_text(const Config::Value& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* number = std::get_if<long long>(&value)) return config_value_text(*number);
  if (const auto* number = std::get_if<double>(&value)) return config_value_text(*number);
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  std::string lines;
  for (const std::string& entry : std::get<std::vector<std::string>>(value)) lines += entry + "\n";
  return lines;
}

/// The keys of `values` given a value (a command-line or file entry, not a default).
std::set<std::string> set_keys(const po::variables_map& values) {
  std::set<std::string> keys;
  for (const auto& [key, value] : values)
    if (!value.defaulted()) keys.insert(key);
  return keys;
}

/// `path` as named from the folder of `file`; the lexically shorter form only when it is the
/// same file, since ".." after a symbolic link leads elsewhere than the text suggests.
std::string path_beside(const std::string& file, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(file).parent_path();
  if (path.empty() || fs::path(path).is_absolute() || folder.empty()) return path;
  const fs::path beside = folder / path;
  const fs::path shorter = beside.lexically_normal();
  std::error_code ec;
  return fs::equivalent(beside, shorter, ec) && !ec ? shorter.string() : beside.string();
}

}  // namespace

std::string config_value_text(double v) {
  char text[32];
  const auto r = std::to_chars(text, text + sizeof text, v);
  return std::string(text, r.ptr);
}

std::string config_value_text(long long v) {
  return std::to_string(v);
}

Config::Config(std::string program, std::string usage)
    : program_(std::move(program)),
      usage_(std::move(usage)),
      general_("General options"),
      keys_("Configuration keys") {
  general_.add_options()("help,h", "print this help (every key with its default) and exit")(
      "version", "print the version and exit")("config", po::value<std::string>(),
                                               "INI file with the configuration keys")(
      "results", po::value<std::string>(), "write the results as JSON to this file")(
      "vtu", po::value<std::string>(), "write VTU per rank + PVTU to this directory");
}

const char* Config::version() {
  return QUILT_VERSION;
}

bool Config::parse(int argc, char** argv) {
  po::options_description all;
  all.add(general_).add(keys_);
  check_command_line(argc, argv);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).run(), values_);
    if (values_.count("help")) {
      std::cout << program_ << " - " << usage_ << "\n\n" << all << "\n";
      return false;
    }
    if (values_.count("version")) {
      std::cout << program_ << " (Quilt) " << version() << "\n";
      return false;
    }
    if (values_.count("config")) {
      file_ = values_["config"].as<std::string>();
      const std::string text = read_config_file(file_);
      check_config_text(file_, text);
      std::istringstream in(text);
      // Values from the command line were stored first and take precedence.
      const std::set<std::string> before = set_keys(values_);
      po::store(po::parse_config_file(in, keys_, false), values_);
      for (const std::string& key : set_keys(values_))
        if (before.count(key) == 0) from_file_.insert(key);
    }
    po::notify(values_);
  } catch (const po::error& e) {
    throw ConfigError(std::string("configuration") + (file_.empty() ? "" : " (" + file_ + ")") +
                      ": " + e.what());
  }
  return true;
}

std::string Config::path(const std::string& key) const {
  const std::string value = get<std::string>(key);
  if (from_file_.count(key) == 0) return value;
  return path_beside(file_, value);
}

std::string Config::input_file(const std::string& key) const {
  const std::string resolved = path(key);
  std::error_code ec;
  if (std::filesystem::is_directory(resolved, ec)) fail(key, "'" + resolved + "' is a directory");
  if (std::ifstream(resolved)) return resolved;
  const int error = errno;
  const std::string value = get<std::string>(key);
  fail(key,
       "cannot open '" + resolved + "'" +
           (resolved == value ? ""
                              : " ('" + value + "' relative to the configuration file's folder)") +
           ": " + std::strerror(error));
}

std::vector<std::pair<std::string, std::optional<std::string>>> Config::settings() const {
  std::vector<std::pair<std::string, std::optional<std::string>>> all;
  for (const auto& [key, value] : typed_settings())
    all.emplace_back(key, value ? std::optional(value_text(*value)) : std::nullopt);
  return all;
}

std::vector<std::pair<std::string, std::optional<Config::Value>>> Config::typed_settings() const {
  std::vector<std::pair<std::string, std::optional<Value>>> all;
  for (const po::options_description* keys : {&general_, &keys_})
    for (const auto& option : keys->options()) {
      const std::string& key = option->long_name();
      const auto it = values_.find(key);
      all.emplace_back(
          key, it == values_.end() ? std::nullopt : std::optional(typed_value(key, it->second)));
    }
  return all;
}

void Config::fail(const std::string& key, const std::string& what) const {
  throw ConfigError("configuration" + (file_.empty() ? std::string() : " (" + file_ + ")") +
                    ": key '" + key + "': " + what);
}

}  // namespace quilt
