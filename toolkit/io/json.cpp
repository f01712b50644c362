#include "io/json.hpp"

#include <cmath>
#include <cstdio>

#include "io/atomic_file.hpp"

namespace quilt {

Json& Json::operator[](const std::string& key) {
  if (!std::holds_alternative<Object>(value_)) value_ = Object{};
  auto& object = std::get<Object>(value_);
  for (auto& [k, v] : object)
    if (k == key) return v;
  object.emplace_back(key, Json());
  return object.back().second;
}

namespace {

void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

void Json::write(std::string& out, int indent, int depth) const {
  const std::string pad(static_cast<std::size_t>(indent) * (depth + 1), ' ');
  const std::string close_pad(static_cast<std::size_t>(indent) * depth, ' ');
  if (std::holds_alternative<std::nullptr_t>(value_)) {
    out += "null";
  } else if (const bool* b = std::get_if<bool>(&value_)) {
    out += *b ? "true" : "false";
  } else if (const long long* i = std::get_if<long long>(&value_)) {
    out += std::to_string(*i);
  } else if (const double* d = std::get_if<double>(&value_)) {
    if (!std::isfinite(*d)) {
      out += "null";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", *d);
      out += buf;
    }
  } else if (const std::string* s = std::get_if<std::string>(&value_)) {
    write_string(out, *s);
  } else if (const Array* a = std::get_if<Array>(&value_)) {
    // Arrays of numbers stay on one line; nested structures get one element per line.
    bool flat = true;
    for (const Json& e : *a)
      if (std::holds_alternative<Array>(e.value_) || std::holds_alternative<Object>(e.value_))
        flat = false;
    out += '[';
    for (std::size_t k = 0; k < a->size(); ++k) {
      if (k) out += flat ? ", " : ",";
      if (!flat) out += "\n" + pad;
      (*a)[k].write(out, indent, depth + 1);
    }
    if (!flat && !a->empty()) out += "\n" + close_pad;
    out += ']';
  } else {
    const Object& o = std::get<Object>(value_);
    out += '{';
    for (std::size_t k = 0; k < o.size(); ++k) {
      out += k ? ",\n" : "\n";
      out += pad;
      write_string(out, o[k].first);
      out += ": ";
      o[k].second.write(out, indent, depth + 1);
    }
    if (!o.empty()) out += "\n" + close_pad;
    out += '}';
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  out += '\n';
  return out;
}

void write_json(const std::string& path, const Json& document) {
  const std::string text = document.dump();
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

}  // namespace quilt
