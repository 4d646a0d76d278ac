// core/file_safety: contained external data, errno-aware reads, checked atomic writes, the output guard.
#include "core/file_safety.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/error.h"
#include "tests/os_conditions.h"
#include "tests/test_temp_dir.h"
#include "tests/user_error_message.h"

namespace pet {
namespace {

namespace fs = std::filesystem;

// A fresh folder for one test, below the process's private temp folder.
fs::path fresh_folder(const std::string& name) {
  fs::path folder = testing::private_temp_dir() / "file_safety" / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// The UserError `body` throws, run as the unprivileged user 65534 (see run_as_nobody).
std::string run_as_nobody_user_error(const std::function<void()>& body) {
  return testing::run_as_nobody([&] { return testing::user_error_message(body); });
}

std::vector<std::string> folder_entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// ---- contained_data_file: inside -> the canonical file; outside -> a UserError naming the tensor ----

TEST(ContainedDataFile, FilesInsideTheTreeResolveToTheirCanonicalPath) {
  fs::path model = fresh_folder("inside");
  fs::create_directories(model / "sub");
  write_text(model / "w.bin", "weights");
  write_text(model / "sub" / "v.bin", "more");
  fs::path canonical = fs::canonical(model);
  EXPECT_EQ(contained_data_file(model.string(), "w.bin", "initializer 'w'"), canonical / "w.bin");
  EXPECT_EQ(contained_data_file(model.string(), "sub/v.bin", "initializer 'v'"), canonical / "sub" / "v.bin");
  EXPECT_EQ(contained_data_file(model.string(), "./sub/../w.bin", "initializer 'w'"), canonical / "w.bin");
  fs::create_symlink("sub/v.bin", model / "link.bin");  // a link that stays inside is fine
  EXPECT_EQ(contained_data_file(model.string(), "link.bin", "initializer 'v'"), canonical / "sub" / "v.bin");
}

TEST(ContainedDataFile, ParentFolderLocationsAreRefused) {
  fs::path model = fresh_folder("parent");
  write_text(model.parent_path() / "secret.bin", "secret");
  for (std::string location : {"../secret.bin", "sub/../../secret.bin", "./sub/../../etc/passwd", ".."})
    EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), location, "initializer 'w'"); }),
              "initializer 'w' keeps its data at '" + location + "', which leaves the model's folder '" +
                  model.string() +
                  "'; external data must lie inside the model's folder tree: move the file there and give its "
                  "path relative to the model")
        << location;
}

TEST(ContainedDataFile, AbsoluteLocationsAreRefused) {
  fs::path model = fresh_folder("absolute");
  std::string inside = (model / "w.bin").string();
  write_text(inside, "weights");
  for (std::string location : {std::string("/etc/passwd"), inside, std::string("/abs")})
    EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), location, "initializer 'w'"); }),
              "initializer 'w' keeps its data at the absolute location '" + location +
                  "'; external data must be named relative to the model's folder '" + model.string() +
                  "': move the file into that folder and give its relative path")
        << location;
}

TEST(ContainedDataFile, SymbolicLinksLeadingOutsideAreRefused) {
  fs::path model = fresh_folder("links/model");
  fs::path outside = fresh_folder("links/model-outside");  // shares the model folder's name as a prefix
  write_text(outside / "secret.bin", "secret");
  fs::create_directory_symlink(outside, model / "sub");
  fs::create_symlink(outside / "secret.bin", model / "w.bin");
  fs::path resolved = fs::canonical(outside / "secret.bin");
  for (std::string location : {"sub/secret.bin", "w.bin", "./sub/../w.bin"})
    EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), location, "attribute 'value' of node 'c'"); }),
              "attribute 'value' of node 'c' keeps its data at '" + location + "', which a symbolic link leads to '" +
                  resolved.string() + "', outside the model's folder '" + fs::canonical(model).string() +
                  "'; copy the data file into the model's folder tree instead of linking to it")
        << location;
}

TEST(ContainedDataFile, EmptyMissingAndFolderLocationsAreRefused) {
  fs::path model = fresh_folder("odd");
  fs::create_directories(model / "sub");
  EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), "", "initializer 'w'"); }),
            "initializer 'w' is stored as external data but its 'location' is empty; re-export the model with its "
            "data file next to it");
  EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), "gone.bin", "initializer 'w'"); }),
            "initializer 'w' keeps its data in external file '" + (model / "gone.bin").string() +
                "', which cannot be read (it does not exist); keep the data file next to the model");
  EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), "sub", "initializer 'w'"); }),
            "initializer 'w' keeps its data in '" + (model / "sub").string() +
                "', which is not a regular file; point 'location' at the data file");
  fs::create_symlink("loop.bin", model / "loop.bin");
  EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), "loop.bin", "initializer 'w'"); }),
            "initializer 'w' keeps its data at 'loop.bin' in '" + model.string() +
                "', which cannot be resolved (Too many levels of symbolic links); check the path");
  EXPECT_EQ(testing::user_error_message([&] { contained_data_file(model.string(), std::string("w\0.bin", 6), "initializer 'w'"); }),
            "initializer 'w' has an external-data location with a NUL character; re-export the model");
}

// ---- parse_external_size: decimal byte counts only ----

TEST(ParseExternalSize, AcceptsDecimalByteCounts) {
  EXPECT_EQ(parse_external_size("0", "offset", "w"), 0);
  EXPECT_EQ(parse_external_size("4096", "length", "w"), 4096);
  EXPECT_EQ(parse_external_size("9223372036854775807", "offset", "w"), INT64_MAX);
}

TEST(ParseExternalSize, RefusesEverythingElse) {
  for (std::string text : {"", "-1", "abc", "1e3", " 12", "12 ", "+5", "0x10", "9223372036854775808",
                           "99999999999999999999999"})
    EXPECT_EQ(testing::user_error_message([&] { parse_external_size(text, "offset", "initializer 'w'"); }),
              "initializer 'w' has the external-data offset '" + text +
                  "', which is not a byte count from 0 to 9223372036854775807; fix the model's external_data entries")
        << text;
}

// ---- reads: the OS's reason in words ----

TEST(ReadFiles, RangesInsideTheFileAreRead) {
  fs::path file = fresh_folder("range") / "data.bin";
  write_text(file, "0123456789");
  EXPECT_EQ(read_file_range(file.string(), 2, 5, "w"), "23456");
  EXPECT_EQ(read_file_range(file.string(), 10, 0, "w"), "");
}

TEST(ReadFiles, RangesPastTheEndAreUserErrors) {
  fs::path file = fresh_folder("range_end") / "data.bin";
  write_text(file, "0123456789");
  auto message = [&](int64_t offset, int64_t length) {
    return testing::user_error_message([&] { read_file_range(file.string(), offset, length, "initializer 'w'"); });
  };
  EXPECT_EQ(message(8, 4), "initializer 'w': external file '" + file.string() +
                               "' ends before offset 8 + 4 bytes (it has 10); the file is truncated or the model's "
                               "offset and length are wrong");
  EXPECT_NE(message(11, 0).find("ends before offset 11 + 0 bytes"), std::string::npos);
  EXPECT_NE(message(INT64_MAX, 16).find("ends before offset 9223372036854775807 + 16 bytes"), std::string::npos);
  EXPECT_NE(message(4, INT64_MAX).find("ends before offset 4 + 9223372036854775807 bytes"), std::string::npos);
}

TEST(ReadFiles, UnreadableExternalDataSaysPermissionDeniedForItsTensor) {
  fs::path file = fresh_folder("unreadable_range") / "w.bin";
  write_text(file, "0123456789");
  fs::permissions(file, fs::perms::none);
  EXPECT_EQ(run_as_nobody_user_error([&] { read_file_range(file.string(), 0, 4, "initializer 'w'"); }),
            "initializer 'w' keeps its data in '" + file.string() +
                "', which cannot be opened (permission denied); make the file readable for this user (chmod u+r) or "
                "run as a user who may read it");
}

TEST(ReadFiles, MissingFileSaysItDoesNotExist) {
  EXPECT_EQ(testing::user_error_message([] { read_whole_file("/nonexistent/m.onnx", "model file"); }),
            "cannot open model file '/nonexistent/m.onnx': it does not exist; check the path");
}

TEST(ReadFiles, UnreadableFileSaysPermissionDenied) {
  fs::path file = fresh_folder("unreadable") / "m.onnx";
  write_text(file, "bytes");
  fs::permissions(file, fs::perms::none);
  EXPECT_EQ(run_as_nobody_user_error([&] { read_whole_file(file.string(), "model file"); }),
            "cannot open model file '" + file.string() +
                "': permission denied; make the file readable for this user (chmod u+r) or run as a user who may "
                "read it");
}

TEST(ReadFiles, AFolderSaysSo) {
  fs::path folder = fresh_folder("a_folder");
  EXPECT_EQ(testing::user_error_message([&] { read_whole_file(folder.string(), "tensor file"); }),
            "cannot open tensor file '" + folder.string() + "': it is a folder; check the file and the disk");
}

// ---- writes: atomic, every failure a UserError with the OS's reason, no temporary left behind ----

TEST(AtomicWrite, ReplacesTheTargetWholeAndLeavesNoTemporary) {
  fs::path folder = fresh_folder("atomic");
  write_text(folder / "out.onnx", "old");
  write_file_atomically((folder / "out.onnx").string(), "new bytes", "model");
  EXPECT_EQ(read_text(folder / "out.onnx"), "new bytes");
  EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.onnx"});
}

TEST(AtomicWrite, UncommittedStagedFileLeavesNothing) {
  fs::path folder = fresh_folder("uncommitted");
  write_text(folder / "out.onnx", "old");
  {
    StagedFile staged((folder / "out.onnx").string(), "new", "model");
    EXPECT_EQ(read_text(staged.temporary_path()), "new");
    EXPECT_EQ(fs::path(staged.temporary_path()).parent_path(), folder);
  }
  EXPECT_EQ(read_text(folder / "out.onnx"), "old");
  EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.onnx"});
}

// A writer that streams into the staged file (pet-opt's export) writes what it writes; one that
// fails says the OS's reason, and one that throws leaves no temporary file behind either.
TEST(AtomicWrite, AStreamingWriterStagesItsBytesAndAFailingOrThrowingOneLeavesNothing) {
  fs::path folder = fresh_folder("writer");
  write_text(folder / "out.onnx", "old");
  std::string target = (folder / "out.onnx").string();
  StagedFile(target, [](int fd) { return write_all_bytes(fd, "streamed"); }, "model").commit();
  EXPECT_EQ(read_text(folder / "out.onnx"), "streamed");

  std::string message = testing::user_error_message([&] { StagedFile(target, [](int) { return ENOSPC; }, "model"); });
  EXPECT_EQ(message.rfind("cannot write the model '" + target + "': ", 0), 0u) << message;
  EXPECT_THROW(StagedFile(target, [](int) -> int { throw InternalError("the export's own check failed"); }, "model"),
               InternalError);
  EXPECT_EQ(read_text(folder / "out.onnx"), "streamed");
  EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.onnx"});
}

TEST(AtomicWrite, FileSizeLimitIsAUserErrorAndTheOldFileStays) {
  fs::path folder = fresh_folder("fsize");
  write_text(folder / "out.onnx", "old");
  std::string message;
  {
    testing::FileSizeLimit limit(4096);
    message = testing::user_error_message([&] { write_file_atomically((folder / "out.onnx").string(), std::string(1 << 16, 'x'), "model"); });
  }
  EXPECT_EQ(message, "cannot write the model '" + (folder / "out.onnx").string() +
                         "': the file would exceed the file size limit; raise the limit (ulimit -f) or write to a disk "
                         "without one");
  EXPECT_EQ(read_text(folder / "out.onnx"), "old");
  EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.onnx"});
}

// Runs `body` in a forked child whose private mount namespace has a 64 KiB tmpfs at `folder`; the
// child's answer comes back through a pipe, "(skip)" when this machine does not allow the mount.
std::string on_tiny_disk(const fs::path& folder, const std::function<std::string()>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "(skip)";
  pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    bool mounted = ::unshare(CLONE_NEWNS) == 0 && ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
                   ::mount("tmpfs", folder.c_str(), "tmpfs", 0, "size=64k") == 0;
    std::string answer = mounted ? body() : "(skip)";
    ssize_t ignored = ::write(pipe_fds[1], answer.data(), answer.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string answer;
  char chunk[4096];
  for (ssize_t got; (got = ::read(pipe_fds[0], chunk, sizeof(chunk))) > 0;) answer.append(chunk, static_cast<size_t>(got));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return answer;
}

TEST(AtomicWrite, FullDiskIsAUserErrorAndTheOldFileStays) {
  fs::path folder = fresh_folder("tiny_disk");
  std::string target = (folder / "out.onnx").string();
  std::string answer = on_tiny_disk(folder, [&] {
    std::ofstream(target) << "old";
    std::string message = testing::user_error_message([&] { write_file_atomically(target, std::string(1 << 20, 'x'), "model"); });
    std::vector<std::string> left = folder_entries(folder);
    return message + "|" + read_text(target) + "|" + std::to_string(left.size());
  });
  if (answer == "(skip)") GTEST_SKIP() << "no private tmpfs mounts here (needs CAP_SYS_ADMIN)";
  EXPECT_EQ(answer, "cannot write the model '" + target +
                        "': no space left on the device; free some space or write to another disk|old|1");
}

TEST(AtomicWrite, MissingFolderIsAUserError) {
  fs::path target = fresh_folder("missing") / "no" / "out.json";
  EXPECT_EQ(testing::user_error_message([&] { write_file_atomically(target.string(), "{}", "report"); }),
            "cannot write the report '" + target.string() +
                "': it does not exist; create the folder first or choose an existing one");
}

TEST(AtomicWrite, UnwritableFolderSaysPermissionDenied) {
  fs::path folder = fresh_folder("readonly");
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
  std::string target = (folder / "out.onnx").string();
  EXPECT_EQ(run_as_nobody_user_error([&] { write_file_atomically(target, "x", "model"); }),
            "cannot write the model '" + target + "': permission denied; choose a folder this user may write to");
  fs::permissions(folder, fs::perms::owner_all);
}

TEST(AtomicWrite, ATargetThatIsAFolderIsAUserErrorAndStays) {
  fs::path folder = fresh_folder("target_folder");
  fs::create_directories(folder / "out.onnx" / "inside");
  EXPECT_EQ(testing::user_error_message([&] { write_file_atomically((folder / "out.onnx").string(), "x", "model"); }),
            "cannot write the model '" + (folder / "out.onnx").string() + "': it is a folder; check the folder and the "
                                                                           "disk");
  EXPECT_TRUE(fs::is_directory(folder / "out.onnx" / "inside"));
  EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.onnx"}) << "the temporary file is gone";
}

TEST(AtomicWrite, FullDeviceWriteReportsNoSpace) {
  int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full here";
  EXPECT_EQ(write_all_bytes(fd, "bytes"), ENOSPC);
  ::close(fd);
}

// ---- guard_output_paths: one file under any spelling ----

struct GuardCase {
  fs::path folder;
  std::string model;
};

GuardCase guard_case(const std::string& name) {
  GuardCase c{fresh_folder("guard/" + name), ""};
  c.model = (c.folder / "m.onnx").string();
  write_text(c.model, "model");
  return c;
}

std::string guard_error(const GuardCase& c, const std::string& output, const std::string& report) {
  return testing::user_error_message([&] {
    guard_output_paths({{c.model, "the input model"}}, {{output, "the output (-o)"}, {report, "the report (--report)"}});
  });
}

std::string overwrite_message(const std::string& output, const std::string& model) {
  return "the output (-o) '" + output + "' is the same file as the input model '" + model +
         "'; writing it would overwrite an input: choose another path";
}

TEST(OutputGuard, EverySpellingOfTheInputIsRefused) {
  GuardCase c = guard_case("spellings");
  std::string report = (c.folder / "r.json").string();
  fs::create_symlink(c.model, c.folder / "soft.onnx");
  fs::create_hard_link(c.model, c.folder / "hard.onnx");
  std::string dir = c.folder.string(), name = c.folder.filename().string();
  for (std::string output : {c.model, dir + "/./m.onnx", dir + "/../" + name + "/m.onnx", dir + "//m.onnx",
                             dir + "/soft.onnx", dir + "/hard.onnx"})
    EXPECT_EQ(guard_error(c, output, report), overwrite_message(output, c.model)) << output;
}

TEST(OutputGuard, ReportNamingTheInputOrTheOutputIsRefused) {
  GuardCase c = guard_case("report");
  std::string output = (c.folder / "o.onnx").string();
  EXPECT_EQ(guard_error(c, output, c.model), "the report (--report) '" + c.model + "' is the same file as the input model '" +
                                                 c.model + "'; writing it would overwrite an input: choose another path");
  std::string same = (c.folder / "." / "o.onnx").string();
  EXPECT_EQ(guard_error(c, output, same),
            "the output (-o) '" + output + "' and the report (--report) '" + same + "' name the same file; give them "
                                                                                      "different paths");
}

TEST(OutputGuard, ExternalDataFilesAreInputsToo) {
  GuardCase c = guard_case("external");
  std::string weights = (c.folder / "w.bin").string();
  write_text(weights, "weights");
  EXPECT_EQ(testing::user_error_message([&] {
              guard_output_paths({{c.model, "the input model"}, {weights, "the model's external data"}},
                                 {{c.folder.string() + "/./w.bin", "the output (-o)"}});
            }),
            "the output (-o) '" + c.folder.string() + "/./w.bin' is the same file as the model's external data '" +
                weights + "'; writing it would overwrite an input: choose another path");
}

TEST(OutputGuard, BadOutputFoldersAreRefusedBeforeAnyWork) {
  GuardCase c = guard_case("folders");
  std::string report = (c.folder / "r.json").string();
  std::string missing = (c.folder / "nope" / "o.onnx").string();
  EXPECT_EQ(guard_error(c, missing, report),
            "the output (-o) '" + missing + "': its folder '" + (c.folder / "nope").string() +
                "' cannot be used (it does not exist); create the folder first or choose an existing one");
  std::string through_file = c.model + "/o.onnx";
  EXPECT_EQ(guard_error(c, through_file, report),
            "the output (-o) '" + through_file + "': '" + c.model +
                "' is not a folder; choose an output path in an existing folder");
  EXPECT_EQ(guard_error(c, c.folder.string(), report),
            "the output (-o) '" + c.folder.string() + "' is a folder; give the path of a file to write");
  EXPECT_EQ(guard_error(c, (c.folder / "o.onnx").string(), "/dev/full"),
            "the report (--report) '/dev/full' exists and is not a regular file; give the path of a file to write");
}

TEST(OutputGuard, FoldersThatTakeNoNewFilesAreRefusedBeforeAnyWork) {
  GuardCase c = guard_case("readonly");
  fs::path locked = c.folder / "locked";
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  std::string output = (locked / "o.onnx").string();
  EXPECT_EQ(run_as_nobody_user_error([&] { guard_output_paths({}, {{output, "the output (-o)"}}); }),
            "the output (-o) '" + output + "': cannot create files in the folder '" + locked.string() +
                "' (permission denied); choose a folder this user may write to");
  if (fs::is_directory("/proc/self")) {
    EXPECT_EQ(testing::user_error_message([] { guard_output_paths({}, {{"/proc/o.onnx", "the output (-o)"}}); }),
              "the output (-o) '/proc/o.onnx': cannot create files in the folder '/proc' (it takes no new files); "
              "choose a folder this user may write to");
  }
  EXPECT_EQ(folder_entries(c.folder), (std::vector<std::string>{"locked", "m.onnx"})) << "the probe file is gone";
}

TEST(OutputGuard, DistinctNewFilesPass) {
  GuardCase c = guard_case("fine");
  EXPECT_EQ(guard_error(c, (c.folder / "o.onnx").string(), (c.folder / "o.json").string()), "(no error)");
  EXPECT_EQ(guard_error(c, (c.folder / "o.onnx").string(), "relative-report.json"), "(no error)");
}

TEST(OutputFolder, AFolderThatCannotBeCreatedSaysWhy) {
  fs::path folder = fresh_folder("outdir_parent_locked");
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  std::string wanted = (folder / "new").string();
  EXPECT_EQ(run_as_nobody_user_error([&] { prepare_output_folder(wanted, "--output-dir"); }),
            "--output-dir '" + wanted + "' cannot be created (permission denied); choose a folder this user may write "
                                        "to");
}

TEST(OutputFolder, ALockedFolderIsRefused) {
  fs::path folder = fresh_folder("outdir_locked");
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  EXPECT_EQ(run_as_nobody_user_error([&] { prepare_output_folder(folder.string(), "--output-dir"); }),
            "--output-dir '" + folder.string() + "' takes no new files (permission denied); choose a folder this user "
                                                 "may write to");
}

TEST(OutputFolder, IsCreatedOrRefusedWithTheReason) {
  fs::path folder = fresh_folder("outdir");
  prepare_output_folder((folder / "a" / "b").string(), "--output-dir");
  EXPECT_TRUE(fs::is_directory(folder / "a" / "b"));
  write_text(folder / "file", "x");
  EXPECT_EQ(testing::user_error_message([&] { prepare_output_folder((folder / "file").string(), "--output-dir"); }),
            "--output-dir '" + (folder / "file").string() +
                "' exists and is not a folder; choose a folder for the outputs");
  EXPECT_EQ(testing::user_error_message([&] { prepare_output_folder((folder / "file" / "sub").string(), "--output-dir"); }),
            "--output-dir '" + (folder / "file" / "sub").string() +
                "' cannot be created (a part of the path is not a folder); choose a folder this user may write to");
}

}  // namespace
}  // namespace pet
