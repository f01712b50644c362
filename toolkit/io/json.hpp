#pragma once
// A small JSON document builder for results files (design.md §9): objects keep insertion
// order, numbers are written with 17 significant digits so values round-trip.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace quilt {

class Json {
 public:
  using Object = std::vector<std::pair<std::string, Json>>;
  using Array = std::vector<Json>;

  Json() : value_(nullptr) {}
  Json(double v) : value_(v) {}
  Json(int v) : value_(static_cast<long long>(v)) {}
  Json(long long v) : value_(v) {}
  Json(std::size_t v) : value_(static_cast<long long>(v)) {}
  Json(bool v) : value_(v) {}
  Json(const char* v) : value_(std::string(v)) {}
  Json(std::string v) : value_(std::move(v)) {}
  Json(Array v) : value_(std::move(v)) {}
  Json(const std::vector<double>& v) : value_(Array(v.begin(), v.end())) {}
  static Json object() {
    Json j;
    j.value_ = Object{};
    return j;
  }

  /// Member access for objects (appended when new).
  Json& operator[](const std::string& key);
  std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;
  std::variant<std::nullptr_t, bool, long long, double, std::string, Array, Object> value_;
};

/// Writes the document to `path` whole or not at all (write_file_atomically); throws IoError
/// naming the path on failure, leaving an existing file as it was.
void write_json(const std::string& path, const Json& document);

}  // namespace quilt
