// The JSON-line worker client: a child process on two pipes (its stderr in a file), each request's
// models written to a private folder, each reply read back into Timings, Tensors or a refusal.
#include "kernels/runtime/json_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/file_safety.h"
#include "kernels/runtime/tensor_wire.h"

extern char** environ;

namespace pet::runtime {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string file_tail(const fs::path& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > limit ? "..." + text.substr(text.size() - limit) : text;
}

// The last non-empty line; for a Python traceback, the exception itself.
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// Writes all of `text`; false when the reader has gone. SIGPIPE is blocked in this thread during
// the write and a SIGPIPE it raised is consumed, so a dead worker is an error here, not the end of
// the process; the process's own SIGPIPE handling is left as it was.
bool write_all(int fd, const std::string& text) {
  sigset_t pipe_only, old_mask, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  size_t done = 0;
  int error = 0;
  while (done < text.size() && error == 0) {
    ssize_t written = ::write(fd, text.data() + done, text.size() - done);
    if (written >= 0) done += static_cast<size_t>(written);
    else if (errno != EINTR) error = errno;
  }
  if (error == EPIPE && !was_pending) {
    timespec no_wait{};
    sigtimedwait(&pipe_only, nullptr, &no_wait);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  return error == 0;
}

}  // namespace

// A child process with its stdin and stdout on pipes and its stderr in a file.
class WorkerProcess {
 public:
  WorkerProcess() = default;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess() { stop(); }

  // Spawns `command` (its first word looked up on PATH); 0 or the errno that stopped it. The pipes
  // are close-on-exec, so no other child inherits the worker's stdin and keeps it open after stop().
  // The worker has a process group of its own: a Ctrl-C at the terminal (or a timeout's signal to
  // the group) reaches pet, which cancels its run once the request in flight is answered, instead
  // of killing the worker under that request; the end of its stdin is what ends the worker.
  int start(const std::vector<std::string>& command, const fs::path& stderr_path) {
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) return errno;
    if (pipe2(from_child, O_CLOEXEC) != 0) {
      int error = errno;
      close(to_child[0]);
      close(to_child[1]);
      return error;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<std::string> words = command;
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    int error = posix_spawnp(&pid_, words.front().c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    to_child_ = to_child[1];
    from_child_ = from_child[0];
    if (error != 0) pid_ = -1;
    return error;
  }

  bool write_line(const std::string& line) { return to_child_ >= 0 && write_all(to_child_, line + "\n"); }

  // The next line without its '\n'; false at end of file (the worker has exited).
  bool read_line(std::string& line) {
    for (;;) {
      size_t newline = buffered_.find('\n');
      if (newline != std::string::npos) {
        line = buffered_.substr(0, newline);
        buffered_.erase(0, newline + 1);
        return true;
      }
      char chunk[1 << 16];
      ssize_t got = ::read(from_child_, chunk, sizeof(chunk));
      if (got > 0) buffered_.append(chunk, static_cast<size_t>(got));
      else if (got == 0 || errno != EINTR) return false;
    }
  }

  // Closes the worker's stdin (its signal to exit), waits up to 2 s, then kills it.
  void stop() {
    if (to_child_ >= 0) close(to_child_);
    to_child_ = -1;
    if (pid_ > 0) {
      int status = 0;
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      bool reaped = false;
      while (!(reaped = waitpid(pid_, &status, WNOHANG) != 0) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!reaped) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
    pid_ = -1;
    if (from_child_ >= 0) close(from_child_);
    from_child_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffered_;
};

namespace {

// The models of one request as files in the private folder, removed when the request is done.
class ModelFiles {
 public:
  // `count` files, write(i, fd) streaming model i into its file: 0 or the errno that stopped it.
  ModelFiles(const fs::path& dir, size_t count, const std::function<int(size_t, int)>& write,
             const std::string& runtime) {
    for (size_t i = 0; i < count; ++i) {
      paths_.push_back((dir / fmt::format("model{}.onnx", i)).string());
      int fd = ::open(paths_.back().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      int error = fd < 0 ? errno : write(i, fd);
      if (fd >= 0 && ::close(fd) != 0 && error == 0) error = errno;
      if (error != 0) {
        std::string message = fmt::format("cannot write model {} for {} to '{}' ({}); check the free space in TMPDIR",
                                           i, runtime, paths_.back(), std::strerror(error));
        remove_files();  // a constructor that throws runs no destructor
        throw UserError(message);
      }
    }
  }
  ~ModelFiles() { remove_files(); }
  ModelFiles(const ModelFiles&) = delete;
  ModelFiles& operator=(const ModelFiles&) = delete;
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  void remove_files() {
    std::error_code ignored;
    for (const std::string& path : paths_) fs::remove(path, ignored);
  }
  std::vector<std::string> paths_;
};

bool is_version_reply(const json& reply) {
  return reply.is_object() && reply.contains("ok") && reply["ok"] == true && reply.contains("version") &&
         reply["version"].is_string();
}

NodeTime parse_node(const json& node) {
  return NodeTime{node.at("name").get<std::string>(), node.at("op").get<std::string>(),
                  node.at("kernel").get<std::string>(), node.at("us").get<double>()};
}

// The reply's timings; a json::exception or a failed check when the reply is not what was asked.
std::vector<Timing> parse_timings(const json& reply, size_t models, int runs, const std::string& name) {
  const json& timings = reply.at("timings");
  PET_CHECK(timings.is_array() && timings.size() == models,
            fmt::format("the {} worker answered {} timings for {} models", name, timings.size(), models));
  std::vector<Timing> result;
  for (const json& timing : timings) {
    Timing parsed;
    parsed.runs_us = timing.at("runs_us").get<std::vector<double>>();
    PET_CHECK(parsed.runs_us.size() == static_cast<size_t>(runs),
              fmt::format("the {} worker answered {} runs where {} were asked", name, parsed.runs_us.size(), runs));
    for (const json& node : timing.at("nodes")) parsed.nodes.push_back(parse_node(node));
    result.push_back(std::move(parsed));
  }
  return result;
}

}  // namespace

JsonWorkerRuntime::JsonWorkerRuntime(WorkerSpec spec)
    : spec_(std::move(spec)),
      dir_(spec_.folder_prefix, spec_.name + "'s models"),
      worker_(std::make_unique<WorkerProcess>()) {
  PET_CHECK(!spec_.command.empty() && spec_.unavailable, "a worker runtime needs a command and its unavailable error");
  int error = worker_->start(spec_.command, stderr_path());
  if (error != 0) throw spec_.unavailable(fmt::format("it could not be started ({})", std::strerror(error)));
  std::string line;
  if (worker_->write_line(R"({"version": true})") && worker_->read_line(line))
    version_reply_ = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!is_version_reply(version_reply_)) throw spec_.unavailable(unanswered_reason(version_reply_));
  version_ = version_reply_["version"].get<std::string>();
}

JsonWorkerRuntime::~JsonWorkerRuntime() = default;

std::vector<Timing> JsonWorkerRuntime::time_models(const std::vector<ModelBytes>& models,
                                                   const TimingOptions& options) {
  PET_CHECK(options.threads >= 1 && options.warmup >= 0 && options.runs >= 1,
            fmt::format("timing options out of range: threads {}, warmup {}, runs {}", options.threads,
                        options.warmup, options.runs));
  if (models.empty()) return {};
  std::lock_guard<std::mutex> lock(mutex_);
  ModelFiles files(dir_.path(), models.size(), [&](size_t i, int fd) { return models[i].write(fd); }, spec_.name);
  json request = {{"models", files.paths()},      {"threads", options.threads},
                  {"warmup", options.warmup},     {"runs", options.runs},
                  {"per_node", options.per_node}, {"seed", options.seed}};
  json reply = exchange(request);
  try {
    if (!reply.at("ok").get<bool>()) reject(reply);
    return parse_timings(reply, models.size(), options.runs, spec_.name);
  } catch (const json::exception& error) {
    fail_worker(fmt::format("sent a reply pet cannot read ({})", error.what()));
  }
}

std::vector<Tensor> JsonWorkerRuntime::run_model(const std::string& model, const std::vector<Tensor>& inputs,
                                                 int threads) {
  PET_CHECK(threads >= 1, fmt::format("run_model with {} threads", threads));
  std::lock_guard<std::mutex> lock(mutex_);
  ModelFiles files(dir_.path(), 1, [&](size_t, int fd) { return write_all_bytes(fd, model); }, spec_.name);
  json wire_inputs = json::array();
  for (const Tensor& input : inputs) wire_inputs.push_back(tensor_to_wire(input));
  json request = {{"run", {{"model", files.paths()[0]}, {"threads", threads}, {"inputs", wire_inputs}}}};
  json reply = exchange(request);
  try {
    if (!reply.at("ok").get<bool>()) reject(reply);
    std::vector<Tensor> outputs;
    for (const json& output : reply.at("outputs")) outputs.push_back(tensor_from_wire(output));
    return outputs;
  } catch (const json::exception& error) {
    fail_worker(fmt::format("sent a reply pet cannot read ({})", error.what()));
  }
}

fs::path JsonWorkerRuntime::stderr_path() const { return dir_.path() / "worker_stderr.txt"; }

// Why the version request got no version: the worker's own refusal ("no CUDA device: ..."), else
// the last line it wrote to stderr (a Python traceback's exception).
std::string JsonWorkerRuntime::unanswered_reason(const json& reply) const {
  if (reply.is_object() && reply.contains("error") && reply["error"].is_string())
    return reply["error"].get<std::string>();
  std::string reason = last_line(file_tail(stderr_path(), 4000));
  return reason.empty() ? "it did not answer pet's version request" : reason;
}

void JsonWorkerRuntime::fail_worker(const std::string& what) const {
  throw InternalError(fmt::format("the {} worker ({}) {}; its stderr ends with:\n{}", spec_.name,
                                  fmt::join(spec_.command, " "), what, file_tail(stderr_path(), 2000)));
}

void JsonWorkerRuntime::reject(const json& reply) const {
  auto message = [&](int index, const std::string& error) {
    std::string hint = spec_.refusal_hint ? spec_.refusal_hint(error) : "";
    return fmt::format("model {} was rejected by {}: {}{}", index, spec_.name, error, hint);
  };
  int index = reply.at("index").get<int>();
  std::string error = reply.at("error").get<std::string>();
  if (index < 0) fail_worker(fmt::format("refused pet's request: {}", error));
  std::vector<ModelRejected::Refusal> others;
  for (const json& other : reply.value("others", json::array())) {
    int other_index = other.at("index").get<int>();
    if (other_index < 0) fail_worker("sent a refusal of another model without its index");
    others.push_back({static_cast<size_t>(other_index), message(other_index, other.at("error").get<std::string>())});
  }
  throw ModelRejected(static_cast<size_t>(index), message(index, error), std::move(others));
}

json JsonWorkerRuntime::exchange(const json& request) {
  if (!worker_->write_line(request.dump())) fail_worker("has exited (its stdin is closed)");
  std::string line;
  if (!worker_->read_line(line)) fail_worker("has exited without answering");
  json reply = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!reply.is_object()) fail_worker(fmt::format("sent a reply that is not a JSON object: {}", line.substr(0, 500)));
  return reply;
}

}  // namespace pet::runtime
