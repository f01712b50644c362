#include "io/matrix_market.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>
#include <system_error>

#include "io/atomic_file.hpp"

namespace quilt {
namespace {

/// Text appended piecewise and handed to the stream in large blocks (a matrix of millions of
/// entries is written in seconds, not in minutes of ostream formatting).
class TextBlock {
 public:
  explicit TextBlock(std::ostream& out) : out_(out) { text_.reserve(kBlock + 128); }
  ~TextBlock() = default;
  TextBlock(const TextBlock&) = delete;
  TextBlock& operator=(const TextBlock&) = delete;

  void add(const char* s) { text_ += s; }
  void add(std::size_t v) { put(v); }
  void add(double v) { put(v); }
  void end_line() {
    text_ += '\n';
    if (text_.size() >= kBlock) flush();
  }
  void flush() {
    out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
    text_.clear();
  }

 private:
  static constexpr std::size_t kBlock = 1 << 20;
  template <class T>
  void put(T v) {
    char s[32];
    const auto r = std::to_chars(s, s + sizeof s, v);  // doubles: shortest round-trip text
    if (!text_.empty() && text_.back() != '\n') text_ += ' ';
    text_.append(s, r.ptr);
  }
  std::ostream& out_;
  std::string text_;
};

/// The lines of a MatrixMarket file with their numbers, comments skipped after the header.
class MatrixMarketText {
 public:
  explicit MatrixMarketText(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw IoError("cannot open MatrixMarket file '" + path + "'");
    if (!std::getline(in_, header_)) fail("empty file");
    ++line_;
  }
  const std::string& header() const { return header_; }
  /// The next line that is neither a comment nor blank; false at the end of the file.
  bool next(std::string& line) {
    while (std::getline(in_, line)) {
      ++line_;
      const auto first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos && line[first] != '%') return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw IoError("MatrixMarket file '" + path_ + "', line " + std::to_string(line_) + ": " + what);
  }
  /// The numbers of `line`, exactly `count` of them.
  template <class T>
  std::vector<T> numbers(const std::string& line, std::size_t count) const {
    std::vector<T> found;
    const char* p = line.data();
    const char* end = p + line.size();
    while (true) {
      while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
      if (p == end) break;
      T v{};
      const auto r = std::from_chars(p, end, v);
      if (r.ec != std::errc()) fail("'" + line + "' is not " + std::to_string(count) + " numbers");
      found.push_back(v);
      p = r.ptr;
    }
    if (found.size() != count)
      fail("'" + line + "' holds " + std::to_string(found.size()) + " numbers, not " +
           std::to_string(count));
    return found;
  }

 private:
  std::string path_;
  std::ifstream in_;
  std::string header_;
  std::size_t line_ = 0;
};

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

void write_matrix_market(const std::string& path, const SparseMatrix& A) {
  write_file_atomically(path, [&A](std::ostream& out) {
    TextBlock text(out);
    text.add("%%MatrixMarket matrix coordinate real general");
    text.end_line();
    text.add(A.size);
    text.add(A.size);
    text.add(A.nonzeros());
    text.end_line();
    for (std::size_t r = 0; r < A.size; ++r)
      for (std::size_t t = A.row_start[r]; t < A.row_start[r + 1]; ++t) {
        text.add(r + 1);
        text.add(A.column[t] + 1);
        text.add(A.value[t]);
        text.end_line();
      }
    text.flush();
  });
}

void write_matrix_market(const std::string& path, const std::vector<double>& v) {
  write_file_atomically(path, [&v](std::ostream& out) {
    TextBlock text(out);
    text.add("%%MatrixMarket matrix array real general");
    text.end_line();
    text.add(v.size());
    text.add(std::size_t{1});
    text.end_line();
    for (const double x : v) {
      text.add(x);
      text.end_line();
    }
    text.flush();
  });
}

SparseMatrix read_matrix_market_matrix(const std::string& path) {
  MatrixMarketText text(path);
  const std::string header = lowercase(text.header());
  const bool general = header == "%%matrixmarket matrix coordinate real general";
  const bool symmetric = header == "%%matrixmarket matrix coordinate real symmetric";
  if (!general && !symmetric)
    text.fail("header '" + text.header() + "' is not 'matrix coordinate real general|symmetric'");
  std::string line;
  if (!text.next(line)) text.fail("no size line");
  const auto size = text.numbers<std::size_t>(line, 3);
  if (size[0] != size[1]) text.fail("the matrix is not square");
  struct Entry {
    std::size_t row, column;
    double value;
  };
  std::vector<Entry> entries;
  entries.reserve(symmetric ? 2 * size[2] : size[2]);
  for (std::size_t e = 0; e < size[2]; ++e) {
    if (!text.next(line)) text.fail("expected " + std::to_string(size[2]) + " entries");
    const auto v = text.numbers<double>(line, 3);
    const auto index = [&](double x) {
      if (!(x >= 1 && x <= static_cast<double>(size[0])) ||
          x != static_cast<double>(static_cast<std::size_t>(x)))
        text.fail("'" + line + "' is not an entry of a " + std::to_string(size[0]) + "-row matrix");
      return static_cast<std::size_t>(x) - 1;
    };
    const std::size_t r = index(v[0]), c = index(v[1]);
    entries.push_back({r, c, v[2]});
    if (symmetric && r != c) entries.push_back({c, r, v[2]});
  }
  if (text.next(line)) text.fail("more than " + std::to_string(size[2]) + " entries");
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.row != b.row ? a.row < b.row : a.column < b.column;
  });
  SparseMatrix A;
  A.size = size[0];
  A.row_start.assign(A.size + 1, 0);
  std::size_t last_row = A.size;  // none yet
  for (const Entry& e : entries) {
    if (e.row == last_row && A.column.back() == e.column) {
      A.value.back() += e.value;  // the same position again: summed
      continue;
    }
    A.column.push_back(e.column);
    A.value.push_back(e.value);
    A.row_start[e.row + 1] = A.column.size();
    last_row = e.row;
  }
  for (std::size_t r = 0; r < A.size; ++r)
    A.row_start[r + 1] = std::max(A.row_start[r + 1], A.row_start[r]);
  return A;
}

std::vector<double> read_matrix_market_vector(const std::string& path) {
  MatrixMarketText text(path);
  if (lowercase(text.header()) != "%%matrixmarket matrix array real general")
    text.fail("header '" + text.header() + "' is not 'matrix array real general'");
  std::string line;
  if (!text.next(line)) text.fail("no size line");
  const auto size = text.numbers<std::size_t>(line, 2);
  if (size[1] != 1) text.fail("the array has " + std::to_string(size[1]) + " columns, not 1");
  std::vector<double> v;
  v.reserve(size[0]);
  for (std::size_t i = 0; i < size[0]; ++i) {
    if (!text.next(line)) text.fail("expected " + std::to_string(size[0]) + " values");
    v.push_back(text.numbers<double>(line, 1)[0]);
  }
  if (text.next(line)) text.fail("more than " + std::to_string(size[0]) + " values");
  return v;
}

}  // namespace quilt
