#pragma once
// A reader of exactly the VTU/PVTU files toolkit/io/vtu_writer writes (raw appended data, UInt64
// headers, the machine's byte order), for the tests: it checks the format as strictly as it
// reads it, so that a test reading a file back also tests that ParaView can. Not a general VTK
// reader: no inline or base64 data, no compression, no other cell types.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/output_test_support.hpp"

namespace quilt::test {

/// A DataArray (of a .vtu: with its values) or a PDataArray (of a .pvtu: none).
struct VtuArray {
  std::string type, name;
  int components = 1;
  std::string bytes;  ///< the values as stored

  /// The values as T; T must be the array's type.
  template <class T>
  std::vector<T> values() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    // An empty piece's vector has a null data(), which memcpy may not be given even for 0 bytes.
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  /// The values of an Int32 or Int64 array (the connectivity and offsets are either).
  std::vector<std::int64_t> integers() const {
    if (type == "Int64") return values<std::int64_t>();
    if (type != "Int32") throw std::runtime_error("'" + name + "' is " + type + ", not integers");
    const std::vector<std::int32_t> v = values<std::int32_t>();
    return {v.begin(), v.end()};
  }
  /// The array's attributes as the writer writes them, for comparing a piece with its PVTU.
  std::string signature() const { return type + " " + name + " " + std::to_string(components); }
};

/// The arrays of a .vtu piece, or those a .pvtu declares, grouped as in the file.
struct VtuData {
  std::map<std::string, std::string> file;  ///< the attributes of <VTKFile>
  std::size_t points = 0, cells = 0;        ///< of a piece
  std::vector<VtuArray> point_data, cell_data, coordinates, topology;
  std::vector<std::string> sources;  ///< the Piece Sources of a .pvtu

  /// The array named `name` in `group`; throws if there is none.
  static const VtuArray& find(const std::vector<VtuArray>& group, const std::string& name) {
    const auto it =
        std::find_if(group.begin(), group.end(), [&](const VtuArray& a) { return a.name == name; });
    if (it == group.end()) throw std::runtime_error("no array '" + name + "'");
    return *it;
  }
};

namespace vtu_reader_detail {

/// One XML tag of the header: its name ("/Piece" for a closing one) and attributes.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attributes;
};

/// The tags in `xml` (which holds no comments, text or CDATA, as the writer writes none).
inline std::vector<Tag> tags(std::string_view xml) {
  std::vector<Tag> found;
  for (std::size_t at = xml.find('<'); at != std::string_view::npos; at = xml.find('<', at)) {
    const std::size_t end = xml.find('>', at);
    if (end == std::string_view::npos) throw std::runtime_error("unterminated tag");
    std::string_view body = xml.substr(at + 1, end - at - 1);
    at = end + 1;
    if (body.starts_with('?')) continue;
    if (body.ends_with('/')) body.remove_suffix(1);
    Tag tag;
    std::size_t i = body.find_first_of(" \n");
    tag.name = body.substr(0, i);
    while (i != std::string_view::npos && (i = body.find_first_not_of(" \n", i)) != body.npos) {
      const std::size_t eq = body.find("=\"", i), close = body.find('"', eq + 2);
      if (eq == body.npos || close == body.npos) throw std::runtime_error("bad attribute");
      tag.attributes[std::string(body.substr(i, eq - i))] = body.substr(eq + 2, close - eq - 2);
      i = close + 1;
    }
    found.push_back(std::move(tag));
  }
  return found;
}

inline std::size_t type_size(const std::string& type) {
  static const std::map<std::string, std::size_t> sizes = {
      {"Float64", 8}, {"Int64", 8}, {"Int32", 4}, {"UInt8", 1}};
  const auto it = sizes.find(type);
  if (it == sizes.end()) throw std::runtime_error("unexpected type '" + type + "'");
  return it->second;
}

inline std::uint64_t header_at(const std::string& data, std::size_t at) {
  if (at + sizeof(std::uint64_t) > data.size()) throw std::runtime_error("offset past the data");
  std::uint64_t size = 0;
  std::memcpy(&size, data.data() + at, sizeof size);
  return size;
}

/// Reads the appended block of every array and checks that the blocks follow each other in
/// the order of the header with nothing between or after them.
inline void read_blocks(std::vector<VtuArray*>& arrays, std::vector<std::uint64_t>& offsets,
                        const std::string& data) {
  std::uint64_t next = 0;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    if (offsets[k] != next)
      throw std::runtime_error("a gap or overlap before offset " + std::to_string(offsets[k]));
    const std::uint64_t size = header_at(data, offsets[k]);
    const std::size_t begin = offsets[k] + sizeof(std::uint64_t);
    if (size > data.size() - begin) throw std::runtime_error("an array runs past the data");
    arrays[k]->bytes = data.substr(begin, size);
    next = begin + size;
  }
  if (next != data.size()) throw std::runtime_error("bytes after the last array");
}

/// The group (PointData, ...) a DataArray inside `open` belongs to.
inline std::vector<VtuArray>* group_of(VtuData& d, const std::string& open) {
  if (open == "PointData" || open == "PPointData") return &d.point_data;
  if (open == "CellData" || open == "PCellData") return &d.cell_data;
  if (open == "Points" || open == "PPoints") return &d.coordinates;
  if (open == "Cells") return &d.topology;
  throw std::runtime_error("a data array outside the known groups");
}

inline VtuArray array_of(const Tag& tag) {
  VtuArray a;
  a.type = tag.attributes.at("type");
  type_size(a.type);
  if (tag.attributes.contains("Name")) a.name = tag.attributes.at("Name");
  if (tag.attributes.contains("NumberOfComponents"))
    a.components = std::stoi(tag.attributes.at("NumberOfComponents"));
  return a;
}

/// Fills `d` from the header's tags; the appended arrays with their offsets in `offsets`.
inline void read_header(const std::vector<Tag>& all, VtuData& d,
                        std::vector<std::uint64_t>& offsets) {
  std::string open;
  for (const Tag& tag : all) {
    if (tag.name == "VTKFile") d.file = tag.attributes;
    if (tag.name == "Piece" && tag.attributes.contains("Source"))
      d.sources.push_back(tag.attributes.at("Source"));
    if (tag.name == "Piece" && tag.attributes.contains("NumberOfPoints")) {
      d.points = std::stoull(tag.attributes.at("NumberOfPoints"));
      d.cells = std::stoull(tag.attributes.at("NumberOfCells"));
    }
    if (tag.name.starts_with('/'))
      open.clear();  // a DataArray after a group closed belongs to none
    else if (tag.name.ends_with("Data") || tag.name.ends_with("Points") || tag.name == "Cells")
      open = tag.name;
    if (tag.name.ends_with("DataArray")) group_of(d, open)->push_back(array_of(tag));
    if (tag.name == "DataArray") {
      if (tag.attributes.at("format") != "appended") throw std::runtime_error("not appended");
      offsets.push_back(std::stoull(tag.attributes.at("offset")));
    }
  }
}

inline void check_file_attributes(const VtuData& d) {
  const char* order = std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian";
  if (d.file.at("version") != "1.0" || d.file.at("header_type") != "UInt64" ||
      d.file.at("byte_order") != order)
    throw std::runtime_error("unexpected <VTKFile> attributes");
}

/// Checks that each array holds as many values as its kind needs.
inline void check_sizes(const VtuData& d) {
  const auto check = [](const VtuArray& a, std::size_t count) {
    if (a.bytes.size() != count * a.components * type_size(a.type))
      throw std::runtime_error("array '" + a.name + "' has " + std::to_string(a.bytes.size()) +
                               " bytes");
  };
  for (const VtuArray& a : d.point_data) check(a, d.points);
  for (const VtuArray& a : d.coordinates) check(a, d.points);
  for (const VtuArray& a : d.cell_data) check(a, d.cells);
  check(VtuData::find(d.topology, "connectivity"), 4 * d.cells);  // quads only
  check(VtuData::find(d.topology, "offsets"), d.cells);
  check(VtuData::find(d.topology, "types"), d.cells);
}

inline VtuData read_piece(const std::string& text) {
  const std::string marker = "<AppendedData encoding=\"raw\">\n_";
  const std::string tail = "\n</AppendedData>\n</VTKFile>\n";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos || !text.ends_with(tail))
    throw std::runtime_error("no raw appended data block");
  VtuData d;
  std::vector<std::uint64_t> offsets;
  read_header(tags(std::string_view(text).substr(0, at)), d, offsets);
  check_file_attributes(d);
  std::vector<VtuArray*> arrays;
  for (auto* group : {&d.point_data, &d.cell_data, &d.coordinates, &d.topology})
    for (VtuArray& a : *group) arrays.push_back(&a);
  if (arrays.size() != offsets.size() || d.coordinates.size() != 1 || d.topology.size() != 3)
    throw std::runtime_error("not one Points array and three Cells arrays");
  const std::size_t begin = at + marker.size();
  read_blocks(arrays, offsets, text.substr(begin, text.size() - tail.size() - begin));
  check_sizes(d);
  return d;
}

/// Runs `read` on the contents of `path`; its errors name the file.
template <class Read>
VtuData read_named(const std::string& path, Read read) {
  const std::string text = contents(path);
  try {
    if (text.empty()) throw std::runtime_error("missing or empty");
    return read(text);
  } catch (const std::exception& e) {
    throw std::runtime_error("'" + path + "': " + e.what());
  }
}

}  // namespace vtu_reader_detail

/// A .vtu piece with all its values; std::runtime_error naming the file if it is not as the
/// writer writes it.
inline VtuData read_vtu(const std::string& path) {
  return vtu_reader_detail::read_named(path, vtu_reader_detail::read_piece);
}

/// A .pvtu: its arrays (without values) and Piece Sources.
inline VtuData read_pvtu(const std::string& path) {
  return vtu_reader_detail::read_named(path, [](const std::string& text) {
    VtuData d;
    std::vector<std::uint64_t> offsets;
    vtu_reader_detail::read_header(vtu_reader_detail::tags(text), d, offsets);
    vtu_reader_detail::check_file_attributes(d);
    if (!offsets.empty() || d.coordinates.size() != 1) throw std::runtime_error("not a PVTU");
    return d;
  });
}

}  // namespace quilt::test
