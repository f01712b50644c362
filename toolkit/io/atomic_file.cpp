#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

namespace quilt {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& step, int error) {
  throw IoError("cannot write '" + path + "': " + step + (step.empty() ? "" : ": ") +
                std::strerror(error));
}

/// A stream buffer over a file descriptor that keeps the errno of its first failed write.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd), buffer_(1 << 16) { reset(); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  void reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  bool drain() {
    if (error_ != 0) return false;
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
    }
    reset();
    return true;
  }

  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

/// An open file descriptor, closed on destruction unless close() closed (and checked) it first.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  /// 0, or the errno of a failed close.
  int close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

/// Runs `write` on a stream into fd, flushes, fsyncs (if `sync`) and closes fd. The first failed
/// write stops the writer (badbit raises) and becomes IoError.
void write_descriptor(Descriptor& fd, const std::string& path, bool sync,
                      const std::function<void(std::ostream&)>& write) {
  DescriptorBuffer buffer(fd.get());
  std::ostream out(&buffer);
  out.exceptions(std::ios::badbit);
  try {
    write(out);
    out.flush();
  } catch (const std::ios_base::failure&) {
    if (buffer.error() != 0) fail(path, "write", buffer.error());
    throw;
  }
  if (sync && ::fsync(fd.get()) != 0 && errno != EINVAL)  // EINVAL: the file cannot be synced
    fail(path, "fsync", errno);
  if (const int error = fd.close(); error != 0) fail(path, "close", error);
}

// The temporary being written, for remove_unfinished_temporary(), which runs in a signal handler:
// a fixed buffer (a handler must not touch the heap) published by a lock-free flag once filled.
enum TemporaryState : int { kNoTemporary, kFilling, kPublished };
std::atomic<int> g_temporary_state{kNoTemporary};
char g_temporary_path[PATH_MAX];
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler reads the flag");

/// Publishes a temporary's path for its lifetime. Made before the file is created: a signal in
/// between then unlinks a name that does not exist yet, which is harmless, while one made after
/// could miss the file.
class UnfinishedTemporary {
 public:
  explicit UnfinishedTemporary(const std::string& path) {
    int expected = kNoTemporary;
    if (path.size() >= sizeof g_temporary_path ||
        !g_temporary_state.compare_exchange_strong(expected, kFilling))
      return;
    std::memcpy(g_temporary_path, path.c_str(), path.size() + 1);
    g_temporary_state.store(kPublished, std::memory_order_release);
    published_ = true;
  }
  ~UnfinishedTemporary() {
    if (published_) g_temporary_state.store(kNoTemporary, std::memory_order_release);
  }
  UnfinishedTemporary(const UnfinishedTemporary&) = delete;
  UnfinishedTemporary& operator=(const UnfinishedTemporary&) = delete;

 private:
  bool published_ = false;
};

}  // namespace

void remove_unfinished_temporary() noexcept {
  // After a completed rename the name is gone and unlink fails harmlessly (ENOENT).
  if (g_temporary_state.load(std::memory_order_acquire) == kPublished) ::unlink(g_temporary_path);
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  fs::path target = path;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    const fs::path resolved = fs::canonical(target, ec);  // the file the link names, if any
    if (!ec) target = resolved;
  }
  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) fail(path, "", EISDIR);
  if (exists && !S_ISREG(existing.st_mode)) {  // a device or FIFO: nothing to replace
    Descriptor fd(::open(target.c_str(), O_WRONLY | O_CLOEXEC));
    if (fd.get() < 0) fail(path, "open", errno);
    write_descriptor(fd, path, false, write);
    return;
  }

  static std::atomic<unsigned> count{0};
  const std::string temporary =
      target.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(count++);
  const UnfinishedTemporary unfinished(temporary);
  Descriptor fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (fd.get() < 0) fail(path, "cannot create the temporary file '" + temporary + "'", errno);
  // The replacement keeps the target's permissions (best effort: fchmod may not be permitted).
  if (exists && ::fchmod(fd.get(), existing.st_mode & 07777) != 0) errno = 0;
  try {
    write_descriptor(fd, path, true, write);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(path, "cannot rename '" + temporary + "' to it", error);
  }
}

}  // namespace quilt
