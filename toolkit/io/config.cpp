#include "io/config.hpp"

#include <fstream>
#include <iostream>

namespace po = boost::program_options;

namespace quilt {

Config::Config(std::string program, std::string usage)
    : program_(std::move(program)), usage_(std::move(usage)), keys_("Configuration keys") {}

bool Config::parse(int argc, char** argv) {
  po::options_description general("General options");
  general.add_options()("help,h", "print this help (every key with its default) and exit")(
      "config", po::value<std::string>(), "INI file with the configuration keys")(
      "results", po::value<std::string>(), "write the results as JSON to this file")(
      "vtu", po::value<std::string>(), "write VTU per rank + PVTU to this directory");
  po::options_description all;
  all.add(general).add(keys_);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).run(), values_);
    if (values_.count("help")) {
      std::cout << program_ << " - " << usage_ << "\n\n" << all << "\n";
      return false;
    }
    if (values_.count("config")) {
      file_ = values_["config"].as<std::string>();
      std::ifstream in(file_);
      if (!in) throw ConfigError("cannot open configuration file '" + file_ + "'");
      // Values from the command line were stored first and take precedence.
      po::store(po::parse_config_file(in, keys_, false), values_);
    }
    po::notify(values_);
  } catch (const po::error& e) {
    throw ConfigError(std::string("configuration") + (file_.empty() ? "" : " (" + file_ + ")") +
                      ": " + e.what());
  }
  return true;
}

void Config::fail(const std::string& key, const std::string& what) const {
  throw ConfigError("configuration" + (file_.empty() ? std::string() : " (" + file_ + ")") +
                    ": key '" + key + "': " + what);
}

}  // namespace quilt
