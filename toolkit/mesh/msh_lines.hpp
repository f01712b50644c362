#pragma once
// Internal to the MSH readers (msh_reader.cpp, msh2_reader.cpp, msh4_reader.cpp): a line cursor
// over a Gmsh ASCII file whose every failure is a MeshError "<file>:<line>: <what was expected>".

#include <functional>
#include <istream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quilt::msh {

class MshLines {
 public:
  MshLines(std::string path, std::istream& in) : path_(std::move(path)), in_(in) {}

  const std::string& path() const { return path_; }
  int line() const { return line_no_; }
  const std::string& text() const { return text_; }

  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no_, what); }
  [[noreturn]] void fail_at(int line, const std::string& what) const;

  /// Advances to the next non-blank line (a trailing '\r' dropped); false at end of file.
  bool next();
  /// The current line without leading and trailing blanks.
  std::string_view trimmed() const;
  /// The current line split at blanks.
  std::vector<std::string_view> tokens() const;

  /// Next line of `section`, which promised `expected` `what` and has `read` so far: fails at
  /// the end of the file or at a "$..." line.
  void next_entry(const std::string& section, long long read, long long expected,
                  const std::string& what);
  /// Next line is "$End<section>".
  void expect_end(const std::string& section);
  /// Next line is a single non-negative count.
  long long read_count(const std::string& section);
  /// Skips to "$End<name>", failing at the section's header if there is none.
  void skip_section(const std::string& name);

  long long to_int(std::string_view token, const char* what) const;
  double to_double(std::string_view token, const char* what) const;

 private:
  std::string path_;
  std::istream& in_;
  std::string text_;
  int line_no_ = 0;
};

/// At most 40 characters of `text` (for quoting file content in messages).
std::string shorten(std::string_view text);

/// Reads the sections after $MeshFormat to the end of the file. Each "$Name" may appear once
/// (`seen` lists those already read); read(name) reads the section from its first line to its
/// "$EndName" and returns true, or returns false for a section it does not know, which is
/// skipped. Returns the names of all sections seen.
std::set<std::string> read_sections(MshLines& in, std::set<std::string> seen,
                                    const std::function<bool(const std::string&)>& read);

/// Fails at the current (last) line unless `seen` contains `section`.
void require_section(const MshLines& in, const std::set<std::string>& seen,
                     const std::string& section);

}  // namespace quilt::msh
