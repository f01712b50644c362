#pragma once
// MatrixMarket text files (NIST format, https://math.nist.gov/MatrixMarket/formats.html): a
// sparse matrix as "matrix coordinate real general" (one "row column value" line per entry,
// 1-based, rows ascending, columns ascending within a row) and a vector as "matrix array real
// general" with one column. Values are written as the shortest decimal that reads back to the
// same double (std::to_chars), so a file read back gives the matrix bit for bit. Written
// atomically (io/atomic_file.hpp); the text depends only on the numbers.

#include <string>
#include <vector>

#include "la/sparse_matrix.hpp"

namespace quilt {

/// Writes `A` (coordinate real general); IoError naming `path` when it cannot be written.
void write_matrix_market(const std::string& path, const SparseMatrix& A);

/// Writes `v` as an N x 1 array (array real general).
void write_matrix_market(const std::string& path, const std::vector<double>& v);

/// Reads a square "matrix coordinate real general" or "... symmetric" file (a symmetric one is
/// expanded to both triangles); entries given twice are summed. IoError naming the file and the
/// line for a file that is not such a matrix.
SparseMatrix read_matrix_market_matrix(const std::string& path);

/// Reads an N x 1 "matrix array real general" file.
std::vector<double> read_matrix_market_vector(const std::string& path);

}  // namespace quilt
