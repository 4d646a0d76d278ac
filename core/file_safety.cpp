// Contained external data, errno-aware reads, checked atomic writes and the output-path guard.
#include "core/file_safety.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
#include <system_error>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {
namespace {

namespace fs = std::filesystem;

std::string folder_label(const std::string& folder) { return folder.empty() ? "." : folder; }

// Whether `inner` is `outer` itself or lies below it, component by component (so /a/bc is not in /a/b).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto inner_part = inner.begin();
  for (auto outer_part = outer.begin(); outer_part != outer.end(); ++outer_part, ++inner_part) {
    if (outer_part->empty() && std::next(outer_part) == outer.end()) break;  // a trailing separator
    if (inner_part == inner.end() || *inner_part != *outer_part) return false;
  }
  return true;
}

// The OS's reason, in words a user acts on.
std::string reason_text(int error) {
  switch (error) {
    case ENOENT: return "it does not exist";
    case EACCES:
    case EPERM: return "permission denied";
    case EISDIR: return "it is a folder";
    case ENOTDIR: return "a part of the path is not a folder";
    case ENOSPC: return "no space left on the device";
    case EDQUOT: return "the disk quota is exceeded";
    case EFBIG: return "the file would exceed the file size limit";
    case EROFS: return "the file system is read-only";
    default: return std::strerror(error);
  }
}

std::string read_fix(int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR: return "check the path";
    case EACCES:
    case EPERM: return "make the file readable for this user (chmod u+r) or run as a user who may read it";
    default: return "check the file and the disk";
  }
}

std::string write_fix(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT: return "free some space or write to another disk";
    case EFBIG: return "raise the limit (ulimit -f) or write to a disk without one";
    case EACCES:
    case EPERM:
    case EROFS: return "choose a folder this user may write to";
    case ENOENT:
    case ENOTDIR: return "create the folder first or choose an existing one";
    default: return "check the folder and the disk";
  }
}

UserError read_error(const std::string& path, const std::string& what, int error) {
  return UserError(fmt::format("cannot open {} '{}': {}; {}", what, path, reason_text(error), read_fix(error)));
}

UserError write_error(const std::string& path, const std::string& what, int error) {
  return UserError(fmt::format("cannot write the {} '{}': {}; {}", what, path, reason_text(error), write_fix(error)));
}

// Closes on scope exit; close() errors of a read-only descriptor carry no data loss.
class ReadFd {
 public:
  ReadFd(const std::string& path, const std::function<UserError(int)>& failure)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw failure(errno);
  }
  ~ReadFd() { ::close(fd_); }
  ReadFd(const ReadFd&) = delete;
  ReadFd& operator=(const ReadFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads `length` bytes at `offset` (pread, retrying short reads and EINTR); the count read.
size_t read_at(int fd, char* data, size_t length, int64_t offset, int& error) {
  size_t done = 0;
  error = 0;
  while (done < length) {
    ssize_t got = ::pread(fd, data + done, length - done, static_cast<off_t>(offset + static_cast<int64_t>(done)));
    if (got > 0) done += static_cast<size_t>(got);
    else if (got == 0) break;
    else if (errno != EINTR) {
      error = errno;
      break;
    }
  }
  return done;
}

fs::path folder_of(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::atomic<uint64_t> staged_counter{0};

}  // namespace

fs::path contained_data_file(const std::string& folder, const std::string& location, const std::string& what) {
  std::string base = folder_label(folder);
  if (location.empty())
    throw UserError(fmt::format("{} is stored as external data but its 'location' is empty; re-export the model with "
                                "its data file next to it",
                                what));
  if (location.find('\0') != std::string::npos)
    throw UserError(fmt::format("{} has an external-data location with a NUL character; re-export the model", what));
  fs::path relative(location);
  if (relative.has_root_directory() || relative.has_root_name())
    throw UserError(fmt::format("{} keeps its data at the absolute location '{}'; external data must be named relative "
                                "to the model's folder '{}': move the file into that folder and give its relative path",
                                what, location, base));
  fs::path normal = relative.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..")
    throw UserError(fmt::format("{} keeps its data at '{}', which leaves the model's folder '{}'; external data must "
                                "lie inside the model's folder tree: move the file there and give its path relative "
                                "to the model",
                                what, location, base));
  std::error_code error;
  fs::path root = fs::weakly_canonical(fs::absolute(base), error);
  fs::path resolved = error ? fs::path() : fs::weakly_canonical(fs::absolute(base) / normal, error);
  if (error)
    throw UserError(fmt::format("{} keeps its data at '{}' in '{}', which cannot be resolved ({}); check the path",
                                what, location, base, error.message()));
  if (!is_within(resolved, root))
    throw UserError(fmt::format("{} keeps its data at '{}', which a symbolic link leads to '{}', outside the model's "
                                "folder '{}'; copy the data file into the model's folder tree instead of linking to it",
                                what, location, resolved.string(), root.string()));
  struct stat info{};
  if (::stat(resolved.c_str(), &info) != 0)
    throw UserError(fmt::format("{} keeps its data in external file '{}', which cannot be read ({}); keep the data "
                                "file next to the model",
                                what, (fs::path(base) / normal).string(), reason_text(errno)));
  if (!S_ISREG(info.st_mode))
    throw UserError(fmt::format("{} keeps its data in '{}', which is not a regular file; point 'location' at the data "
                                "file",
                                what, (fs::path(base) / normal).string()));
  return resolved;
}

int64_t parse_external_size(const std::string& text, const std::string& key, const std::string& what) {
  int64_t value = -1;
  bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!digits || error != std::errc() || end != text.data() + text.size())
    throw UserError(fmt::format("{} has the external-data {} '{}', which is not a byte count from 0 to {}; fix the "
                                "model's external_data entries",
                                what, key, text, INT64_MAX));
  return value;
}

void read_file_through(const std::string& path, const std::string& what, const std::function<int(int fd)>& read) {
  ReadFd fd(path, [&](int error) { return read_error(path, what, error); });
  struct stat info{};
  if (::fstat(fd.get(), &info) != 0) throw read_error(path, what, errno);
  if (S_ISDIR(info.st_mode)) throw read_error(path, what, EISDIR);
  if (int error = read(fd.get()); error != 0) throw read_error(path, what, error);
}

std::string read_whole_file(const std::string& path, const std::string& what) {
  std::string bytes;
  read_file_through(path, what, [&](int fd) {
    struct stat info{};
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) bytes.reserve(static_cast<size_t>(info.st_size));
    char chunk[1 << 16];
    for (;;) {
      ssize_t got = ::read(fd, chunk, sizeof(chunk));
      if (got > 0) bytes.append(chunk, static_cast<size_t>(got));
      else if (got == 0) return 0;
      else if (errno != EINTR) return errno;
    }
  });
  return bytes;
}

std::string read_file_range(const std::string& path, int64_t offset, int64_t length, const std::string& what) {
  ReadFd fd(path, [&](int error) {
    return UserError(fmt::format("{} keeps its data in '{}', which cannot be opened ({}); {}", what, path,
                                 reason_text(error), read_fix(error)));
  });
  struct stat info{};
  if (::fstat(fd.get(), &info) != 0) throw read_error(path, what, errno);
  int64_t size = static_cast<int64_t>(info.st_size);
  if (offset < 0 || length < 0 || offset > size || length > size - offset)
    throw UserError(fmt::format("{}: external file '{}' ends before offset {} + {} bytes (it has {}); the file is "
                                "truncated or the model's offset and length are wrong",
                                what, path, offset, length, size));
  std::string bytes(static_cast<size_t>(length), '\0');
  int error = 0;
  size_t got = read_at(fd.get(), bytes.data(), bytes.size(), offset, error);
  if (error != 0) throw read_error(path, what, error);
  if (got != bytes.size())
    throw UserError(fmt::format("{}: external file '{}' ends before offset {} + {} bytes; the file is truncated", what,
                                path, offset, length));
  return bytes;
}

int write_all_bytes(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t written = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (written > 0) done += static_cast<size_t>(written);
    else if (written == 0) return EIO;
    else if (errno != EINTR) return errno;
  }
  return 0;
}

StagedFile::StagedFile(std::string target, std::string_view bytes, std::string what)
    : StagedFile(std::move(target), [bytes](int fd) { return write_all_bytes(fd, bytes); }, std::move(what)) {}

StagedFile::StagedFile(std::string target, const std::function<int(int fd)>& write, std::string what)
    : target_(std::move(target)), what_(std::move(what)) {
  fs::path folder = folder_of(target_);
  std::string name = fs::path(target_).filename().string();
  int fd = -1;
  while (fd < 0) {
    temporary_ = (folder / fmt::format(".{}.pet-tmp-{}-{}", name, ::getpid(), staged_counter++)).string();
    fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) {
      int error = errno;
      temporary_.clear();
      throw write_error(target_, what_, error);
    }
  }
  int error = 0;
  try {
    error = write(fd);
  } catch (...) {  // a writer that throws (an export's internal check) leaves no temporary file behind
    ::close(fd);
    ::unlink(temporary_.c_str());
    throw;
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(temporary_.c_str());
    temporary_.clear();
    throw write_error(target_, what_, error);
  }
}

StagedFile::~StagedFile() {
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void StagedFile::commit() {
  PET_CHECK(!committed_ && !temporary_.empty(), "a staged file is committed once");
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) throw write_error(target_, what_, errno);
  committed_ = true;
  int folder = ::open(folder_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {  // makes the rename itself durable; a folder that cannot be synced loses nothing written
    ::fsync(folder);
    ::close(folder);
  }
}

void write_file_atomically(const std::string& path, std::string_view bytes, const std::string& what) {
  StagedFile(path, bytes, what).commit();
}

namespace {

// What decides whether two spellings name one file: device and inode when it exists, else the
// canonical folder and the name.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  fs::path canonical;
  bool operator==(const FileIdentity& other) const {
    if (exists != other.exists) return false;
    return exists ? device == other.device && inode == other.inode : canonical == other.canonical;
  }
};

FileIdentity identity_of(const std::string& path) {
  FileIdentity identity;
  struct stat info{};
  if (::stat(path.c_str(), &info) == 0) {
    identity.exists = true;
    identity.device = info.st_dev;
    identity.inode = info.st_ino;
    return identity;
  }
  std::error_code ignored;
  fs::path absolute = fs::absolute(path, ignored);
  identity.canonical = fs::weakly_canonical(absolute.parent_path(), ignored) / absolute.filename();
  return identity;
}

// Creates and removes a file in `folder`: the only test that holds for every user (root passes
// access()) and file system. 0 or the errno that stopped it.
int probe_new_file(const fs::path& folder) {
  std::string probe = (folder / fmt::format(".pet-probe-{}-{}", ::getpid(), staged_counter++)).string();
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  ::close(fd);
  ::unlink(probe.c_str());
  return 0;
}

// ENOENT from creating a file in an existing folder means the file system takes none (/proc).
std::string probe_reason(int error) { return error == ENOENT ? "it takes no new files" : reason_text(error); }

// The output itself may not exist yet; its folder must, and this user must be able to create files in it.
void check_writable_output(const GuardedPath& output) {
  struct stat info{};
  if (::stat(output.path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    throw UserError(fmt::format("{} '{}' {}; give the path of a file to write", output.role, output.path,
                                S_ISDIR(info.st_mode) ? "is a folder" : "exists and is not a regular file"));
  fs::path folder = folder_of(output.path);
  if (::stat(folder.c_str(), &info) != 0)
    throw UserError(fmt::format("{} '{}': its folder '{}' cannot be used ({}); create the folder first or choose an "
                                "existing one",
                                output.role, output.path, folder.string(), reason_text(errno)));
  if (!S_ISDIR(info.st_mode))
    throw UserError(fmt::format("{} '{}': '{}' is not a folder; choose an output path in an existing folder",
                                output.role, output.path, folder.string()));
  if (int error = probe_new_file(folder))
    throw UserError(fmt::format("{} '{}': cannot create files in the folder '{}' ({}); choose a folder this user may "
                                "write to",
                                output.role, output.path, folder.string(), probe_reason(error)));
}

}  // namespace

void guard_output_paths(const std::vector<GuardedPath>& inputs, const std::vector<GuardedPath>& outputs) {
  std::vector<FileIdentity> input_ids;
  for (const GuardedPath& input : inputs) input_ids.push_back(identity_of(input.path));
  for (size_t o = 0; o < outputs.size(); ++o) {
    FileIdentity output_id = identity_of(outputs[o].path);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (input_ids[i].exists && output_id == input_ids[i])
        throw UserError(fmt::format("{} '{}' is the same file as {} '{}'; writing it would overwrite an input: {}",
                                    outputs[o].role, outputs[o].path, inputs[i].role, inputs[i].path, outputs[o].fix));
    for (size_t earlier = 0; earlier < o; ++earlier)
      if (output_id == identity_of(outputs[earlier].path))
        throw UserError(fmt::format("{} '{}' and {} '{}' name the same file; give them different paths",
                                    outputs[earlier].role, outputs[earlier].path, outputs[o].role, outputs[o].path));
    check_writable_output(outputs[o]);
  }
}

void prepare_output_folder(const std::string& folder, const std::string& flag) {
  std::error_code created;
  fs::create_directories(folder, created);
  struct stat info{};
  if (::stat(folder.c_str(), &info) != 0) {
    int error = errno == ENOENT && created ? created.value() : errno;  // missing because creating it failed: why
    throw UserError(fmt::format("{} '{}' cannot be created ({}); choose a folder this user may write to", flag, folder,
                                reason_text(error)));
  }
  if (!S_ISDIR(info.st_mode))
    throw UserError(fmt::format("{} '{}' exists and is not a folder; choose a folder for the outputs", flag, folder));
  if (int refused = probe_new_file(folder))
    throw UserError(fmt::format("{} '{}' takes no new files ({}); choose a folder this user may write to", flag, folder,
                                probe_reason(refused)));
}

}  // namespace pet
