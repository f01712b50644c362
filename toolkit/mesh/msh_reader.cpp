#include "mesh/msh_reader.hpp"

#include <cmath>
#include <fstream>
#include <string>

#include "mesh/mesh_error.hpp"
#include "mesh/msh2_reader.hpp"
#include "mesh/msh4_reader.hpp"
#include "mesh/msh_lines.hpp"
#include "mesh/msh_model.hpp"

namespace quilt {
namespace {

enum class MshVersion { k22, k41 };

/// The $MeshFormat section, which must come first: "version file-type data-size".
MshVersion read_mesh_format(msh::MshLines& in) {
  if (!in.next()) in.fail("empty file (expected $MeshFormat)");
  if (in.trimmed() != "$MeshFormat")
    in.fail("expected $MeshFormat, found '" + msh::shorten(in.trimmed()) +
            "' (not a Gmsh MSH file; write one with gmsh -format msh41 or -format msh22)");
  if (!in.next()) in.fail("unexpected end of file in $MeshFormat");
  const auto tok = in.tokens();
  if (tok.size() != 3) in.fail("expected 'version file-type data-size' in $MeshFormat");
  const double version = in.to_double(tok[0], "the MSH version");
  const bool is22 = std::abs(version - 2.2) < 1e-9;
  if (!is22 && std::abs(version - 4.1) >= 1e-9)
    in.fail("MSH version " + std::string(tok[0]) +
            " is not supported; Quilt reads MSH 2.2 and 4.1 ASCII (gmsh -format msh41 or "
            "-format msh22)");
  const long long file_type = in.to_int(tok[1], "the file type");
  if (file_type == 1)
    in.fail(
        "binary MSH files are not supported; write ASCII (gmsh -format msh41 or -format "
        "msh22, without -bin)");
  if (file_type != 0) in.fail("unknown MSH file type " + std::string(tok[1]) + " (0 = ASCII)");
  in.to_int(tok[2], "the data size");
  in.expect_end("MeshFormat");
  return is22 ? MshVersion::k22 : MshVersion::k41;
}

}  // namespace

CoarseMesh read_msh(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw MeshError(path + ": cannot open the mesh file");
  return read_msh(file, path);
}

CoarseMesh read_msh(std::istream& file, const std::string& name) {
  msh::MshLines in(name, file);
  const MshVersion version = read_mesh_format(in);
  const msh::MshModel model =
      version == MshVersion::k22 ? msh::read_msh2_sections(in) : msh::read_msh4_sections(in);
  return msh::to_coarse_mesh(model, in);
}

}  // namespace quilt
