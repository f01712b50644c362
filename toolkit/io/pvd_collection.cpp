#include "io/pvd_collection.hpp"

#include <cstdio>

#include "io/atomic_file.hpp"
#include "io/output.hpp"

namespace quilt {

void PvdCollection::add(double t, const std::string& file, const Communicator& comm) {
  entries_.emplace_back(t, file);
  collective_output_step(
      comm.rank() == 0,
      [&] {
        write_file_atomically(path_, [&](std::ostream& out) {
          out << "<?xml version=\"1.0\"?>\n"
                 "<VTKFile type=\"Collection\" version=\"1.0\">\n  <Collection>\n";
          char time[32];
          for (const auto& [ti, name] : entries_) {
            std::snprintf(time, sizeof time, "%.17g", ti);
            out << "    <DataSet timestep=\"" << time << "\" part=\"0\" file=\"" << name
                << "\"/>\n";
          }
          out << "  </Collection>\n</VTKFile>\n";
        });
      },
      comm, [&](int) { return "rank 0 could not write '" + path_ + "'"; });
}

}  // namespace quilt
