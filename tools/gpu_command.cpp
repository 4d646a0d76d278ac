// pet-gpu's commands: devices (report, loaded libraries, self-test) and ceilings.
#include "tools/gpu_command.h"

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/ceilings.h"
#include "kernels/devices.h"
#include "kernels/loaded_libraries.h"
#include "kernels/nvrtc_compile.h"
#include "kernels/self_test.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace pet {
namespace {

int exit_status(const CudaStatus& status) { return status.outcome == CudaOutcome::failed ? 1 : 0; }

int devices(std::ostream& out) {
  DeviceReport report = probe_devices();
  out << format_device_report(report);
  out << fmt::format("NVRTC {}\n", nvrtc_version());
  int status = exit_status(report.status);
  for (const GpuDevice& device : report.devices) {
    CudaStatus tested = self_test_device(device.index);
    out << fmt::format("GPU {}: self-test {}\n", device.index, tested.ok() ? "passed" : "failed: " + tested.message);
    if (!tested.ok()) status = 1;
  }
  out << "loaded libraries:\n" << format_loaded_libraries(loaded_cuda_libraries());
  return status;
}

CeilingOptions ceiling_options(const CliArgs& parsed) {
  CeilingOptions options;
  options.gemm_size = static_cast<int>(parsed.integer("--gemm-size", options.gemm_size, 16, 32768));
  options.copy_bytes = parsed.integer("--copy-mib", options.copy_bytes >> 20, 1, 65536) << 20;
  options.runs = static_cast<int>(parsed.integer("--runs", options.runs, 1, 10000));
  options.warmup = static_cast<int>(parsed.integer("--warmup", options.warmup, 0, 10000));
  return options;
}

int ceilings(const CliArgs& parsed, std::ostream& out) {
  auto device = static_cast<int>(parsed.integer("--device", 0, 0, 63));
  CeilingsReport report = measure_ceilings(device, ceiling_options(parsed));
  out << format_ceilings(report);
  return exit_status(report.status);
}

}  // namespace

int pet_gpu_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_guarded("pet-gpu", err, [&] {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
      out << kPetGpuHelp;
      return args.empty() ? 2 : 0;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "devices") {
      CliArgs parsed("pet-gpu devices", rest, {}, {});
      return devices(out);
    }
    if (args[0] == "ceilings") {
      CliArgs parsed("pet-gpu ceilings", rest, {"--device", "--gemm-size", "--copy-mib", "--runs", "--warmup"}, {});
      return ceilings(parsed, out);
    }
    throw UserError(fmt::format("'{}' is not a pet-gpu command; the commands are devices and ceilings (pet-gpu --help)",
                                args[0]));
  });
}

}  // namespace pet
