#pragma once
// Fail-safe output files (design.md §9, §10): every file Quilt writes (results JSON, VTU pieces,
// PVTU) is written whole or not at all. The content goes to a temporary file beside the target;
// only after every write, fsync and close succeeded is it renamed over the target, so a full
// disk or a failing writer leaves an existing target as it was and no temporary behind.

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace quilt {

/// A file that could not be written (or an output path that cannot be); the message names the
/// path and the system's reason.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Writes `path` with the content `write` puts into the stream it is given.
///
/// A regular file (new or existing; a symbolic link to one is followed) is replaced atomically:
/// the content goes to "<path>.tmp.<pid>.<n>" in the same directory (with the target's
/// permissions if it exists), which is flushed, fsync'ed, closed and renamed over the target.
/// An existing target that is neither a regular file nor a directory (/dev/null, a FIFO) is
/// written in place.
///
/// On failure the temporary is removed and an existing target is untouched: a failed write,
/// flush, fsync, close or rename throws IoError naming `path` and strerror; an exception thrown
/// by `write` itself is rethrown unchanged.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

/// Removes the temporary file of the write_file_atomically() in progress, if there is one, so
/// that a process ended by a signal leaves none behind (an existing target stays as it was).
/// Async-signal-safe (unlink(2) and a lock-free atomic): for a SIGINT/SIGTERM handler that ends
/// the process right after, since the interrupted write never finishes. One write at a time is
/// tracked (Quilt writes its files one after the other): the temporary of a second concurrent
/// write, or one whose path is longer than PATH_MAX, is not.
void remove_unfinished_temporary() noexcept;

}  // namespace quilt
