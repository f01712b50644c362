#include "mesh/msh_lines.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "mesh/mesh_error.hpp"

namespace quilt::msh {

std::string shorten(std::string_view text) {
  return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 40)) + "...";
}

void MshLines::fail_at(int line, const std::string& what) const {
  throw MeshError(path_ + ":" + std::to_string(line) + ": " + what);
}

bool MshLines::next() {
  while (std::getline(in_, text_)) {
    ++line_no_;
    if (!text_.empty() && text_.back() == '\r') text_.pop_back();
    if (!trimmed().empty()) return true;
  }
  return false;
}

std::string_view MshLines::trimmed() const {
  const auto first = text_.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = text_.find_last_not_of(" \t");
  return std::string_view(text_).substr(first, last - first + 1);
}

std::vector<std::string_view> MshLines::tokens() const {
  std::vector<std::string_view> result;
  const std::string_view s(text_);
  std::size_t pos = 0;
  while (true) {
    pos = s.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    const std::size_t end = std::min(s.find_first_of(" \t", pos), s.size());
    result.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return result;
}

void MshLines::next_entry(const std::string& section, long long read, long long expected,
                          const std::string& what) {
  if (!next())
    fail("unexpected end of file in $" + section + " (read " + std::to_string(read) + " of " +
         std::to_string(expected) + " " + what + ")");
  if (trimmed().front() == '$')
    fail("$" + section + " ends after " + std::to_string(read) + " of " + std::to_string(expected) +
         " " + what + " (found '" + shorten(trimmed()) + "')");
}

void MshLines::expect_end(const std::string& section) {
  const std::string end = "$End" + section;
  if (!next()) fail("unexpected end of file: " + end + " missing");
  if (trimmed() != end)
    fail("expected " + end + ", found '" + shorten(trimmed()) +
         "' (more entries than the section's count?)");
}

long long MshLines::read_count(const std::string& section) {
  if (!next()) fail("unexpected end of file in $" + section + " (count missing)");
  const auto tok = tokens();
  if (tok.size() != 1) fail("expected the number of entries of $" + section);
  const long long count = to_int(tok[0], "the number of entries");
  if (count < 0) fail("negative entry count in $" + section);
  return count;
}

void MshLines::skip_section(const std::string& name) {
  const int start = line_no_;
  const std::string end = "$End" + name;
  while (next())
    if (trimmed() == end) return;
  fail_at(start, "section $" + name + " is not closed (" + end + " missing)");
}

long long MshLines::to_int(std::string_view token, const char* what) const {
  long long value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size())
    fail(std::string("expected ") + what + " (an integer), found '" + shorten(token) + "'");
  return value;
}

double MshLines::to_double(std::string_view token, const char* what) const {
  std::string_view digits = token;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value))
    fail(std::string("expected ") + what + " (a number), found '" + shorten(token) + "'");
  return value;
}

std::set<std::string> read_sections(MshLines& in, std::set<std::string> seen,
                                    const std::function<bool(const std::string&)>& read) {
  while (in.next()) {
    const std::string header(in.trimmed());
    if (header[0] != '$')
      in.fail("expected a section header ($Name), found '" + shorten(header) + "'");
    const std::string name = header.substr(1);
    if (!seen.insert(name).second) in.fail("section " + header + " appears twice");
    if (!read(name)) in.skip_section(name);
  }
  return seen;
}

void require_section(const MshLines& in, const std::set<std::string>& seen,
                     const std::string& section) {
  if (!seen.count(section)) in.fail("no $" + section + " section");
}

}  // namespace quilt::msh
