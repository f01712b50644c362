#pragma once
// The results documents (design.md §9) are nlohmann::ordered_json: members stay in the order the
// code sets them, so a file reads top to bottom as it was built (and scripts that grep for the
// first "key": find the top-level fields before the configuration at the end), and doubles are
// written in their shortest form that reads back to the same value.

#include <nlohmann/json.hpp>
#include <string>

namespace quilt {

using Json = nlohmann::ordered_json;

/// The text of `document` as a results file holds it: indented by 2, ending in a newline. Bytes
/// that are not UTF-8 (an error message quoting a path in another encoding) become U+FFFD: the
/// document must be written even then, and JSON text cannot hold them.
std::string json_text(const Json& document);

/// Writes json_text(document) to `path` whole or not at all (write_file_atomically); throws
/// IoError naming the path on failure, leaving an existing file as it was.
void write_json(const std::string& path, const Json& document);

}  // namespace quilt
