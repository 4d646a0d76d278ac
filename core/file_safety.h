// Every file pet reads for a model or writes for the user goes through here: external data stays inside
// the model's folder tree, outputs never name an input, and writes are checked and atomic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pet {

// The file an external-data `location` names, as a canonical path inside `folder`'s tree (after
// lexical normalisation and after resolving symbolic links on both sides). UserError naming `what`
// (the tensor), the location and the fix for an empty, absolute or escaping location, or one that
// is not a regular file. An empty `folder` is the current folder.
std::filesystem::path contained_data_file(const std::string& folder, const std::string& location,
                                          const std::string& what);

// An external-data "offset" or "length" value: decimal digits only, at most INT64_MAX; UserError
// naming `what`, the key and the text otherwise.
int64_t parse_external_size(const std::string& text, const std::string& key, const std::string& what);

// The whole file; UserError saying why it cannot be read (missing, permission denied, a folder, an
// I/O error), `what` naming the file's role ("model file", "tensor file").
std::string read_whole_file(const std::string& path, const std::string& what);

// The file opened for reading and handed to `read` as a descriptor, closed after: a reader that streams
// the file (a protobuf parser) holds no copy of it whole. `read` returns 0 or the errno that stopped
// it. UserError as read_whole_file's when the file cannot be opened, is a folder, or fails mid-read.
void read_file_through(const std::string& path, const std::string& what, const std::function<int(int fd)>& read);

// `length` bytes at `offset`; UserError when the file is shorter or unreadable.
std::string read_file_range(const std::string& path, int64_t offset, int64_t length, const std::string& what);

// A file written next to its target under a temporary name, every write and the fsync checked;
// commit() renames it over the target, the destructor removes it if it was not committed. Failures
// are UserErrors naming the target, `what` it is and the OS's reason (disk full, file too large,
// permission denied) with the fix.
class StagedFile {
 public:
  StagedFile(std::string target, std::string_view bytes, std::string what);
  // The same for what `write` writes to the temporary file's descriptor (a serializer streaming into
  // it, with no copy of the bytes whole); `write` returns 0 or the errno that stopped it.
  StagedFile(std::string target, const std::function<int(int fd)>& write, std::string what);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  const std::string& temporary_path() const { return temporary_; }
  const std::string& target() const { return target_; }
  void commit();

 private:
  std::string target_;
  std::string what_;
  std::string temporary_;
  bool committed_ = false;
};

// Writes `bytes` to `path` through a StagedFile: the target is either the old file or all the new bytes.
void write_file_atomically(const std::string& path, std::string_view bytes, const std::string& what);

// Writes all of `bytes` to `fd`, retrying short writes and EINTR; 0 or the errno that stopped it.
int write_all_bytes(int fd, std::string_view bytes);

// One file pet reads or writes, for the output guard: `role` is how messages name it ("the input
// model", "-o", "--report", "external data file").
struct GuardedPath {
  std::string path;
  std::string role;
  std::string fix = "choose another path";  // for an output that names an input
};

// Refuses (UserError) any output that names an input or another output by any spelling: the same
// existing file (device and inode: `./m.onnx`, `dir/../dir/m.onnx`, symbolic and hard links) or,
// for outputs not yet written, the same canonical folder and name. Also refuses an output that
// exists but is not a regular file, or whose folder is missing or not writable, before any work.
void guard_output_paths(const std::vector<GuardedPath>& inputs, const std::vector<GuardedPath>& outputs);

// The folder a tool writes several files into (pet-run --output-dir): created if missing, and
// checked to be a writable folder; UserError naming `flag` otherwise.
void prepare_output_folder(const std::string& folder, const std::string& flag);

}  // namespace pet
