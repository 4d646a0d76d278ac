// FileLock: open (O_CREAT, close-on-exec), then flock(LOCK_EX), retried when a signal interrupts it.
#include "core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

FileLock::FileLock(const std::string& path, const std::string& owner) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw UserError(fmt::format("{}: cannot create the lock file '{}': {}; check that its folder is writable", owner,
                                path, std::strerror(errno)));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int error = errno;
    ::close(fd_);
    throw UserError(fmt::format("{}: cannot lock '{}': {}", owner, path, std::strerror(error)));
  }
}

FileLock::~FileLock() { ::close(fd_); }

}  // namespace pet
