#pragma once
// A ParaView collection (.pvd): the time steps of an instationary run, each a PVTU written by
// write_vtu, listed with their times so that ParaView animates them. The file is rewritten
// (atomically, by rank 0) after every added step, so an interrupted run leaves a valid
// collection of the steps written so far.

#include <string>
#include <utility>
#include <vector>

#include "parallel/communicator.hpp"

namespace quilt {

class PvdCollection {
 public:
  /// The collection file `path` (e.g. DIR/flow.pvd); nothing is written yet.
  explicit PvdCollection(std::string path) : path_(std::move(path)) {}

  /// Collective: adds the data set `file` (relative to the collection's directory) at time t
  /// and rewrites the collection on rank 0; IoError on every rank when that failed.
  void add(double t, const std::string& file, const Communicator& comm);

  /// Restores the entries of a restarted run (not written until the next add).
  void assign(std::vector<std::pair<double, std::string>> entries) {
    entries_ = std::move(entries);
  }

 private:
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;
};

}  // namespace quilt
