// OS conditions tests create on purpose: running a step as an unprivileged user, and a lowered file size limit.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <string>

namespace pet::testing {

// What `step` returns when run as the unprivileged user 65534 (root reads and writes every file),
// in a forked child that sends the text back through a pipe; run directly when not root.
inline std::string run_as_nobody(const std::function<std::string()>& step) {
  if (::geteuid() != 0) return step();
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "(no pipe)";
  pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string message = ::setgid(65534) == 0 && ::setuid(65534) == 0 ? step() : "(setuid failed)";
    ssize_t ignored = ::write(pipe_fds[1], message.data(), message.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char chunk[4096];
  for (ssize_t got; (got = ::read(pipe_fds[0], chunk, sizeof(chunk))) > 0;) message.append(chunk, static_cast<size_t>(got));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return message;
}

// Lowers this process's file size limit for one scope, SIGXFSZ ignored (as the tools' mains do),
// so a write past it fails with EFBIG.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = old_;
    lowered.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

}  // namespace pet::testing
