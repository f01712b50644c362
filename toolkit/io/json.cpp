#include "io/json.hpp"

#include "io/atomic_file.hpp"

namespace quilt {

std::string json_text(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

void write_json(const std::string& path, const Json& document) {
  const std::string text = json_text(document);
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

}  // namespace quilt
