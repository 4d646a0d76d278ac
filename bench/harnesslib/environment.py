"""What the harness's report states about the machine and the software it measured with."""
import datetime
import json
import os
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Dict, List

from harnesslib.peers import version_of
from harnesslib.variants import PEERS


def cpu_description() -> str:
    """'model name (family F model M), N cores' from /proc/cpuinfo."""
    fields: Dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        return "unknown CPU"
    flags = fields.get("flags", "").split()
    simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return (f"{fields.get('model name', 'unknown CPU')} (family {fields.get('cpu family', '?')} model "
            f"{fields.get('model', '?')}, {simd}), {os.cpu_count()} cores")


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def pet_commit(repository: Path) -> str:
    try:
        found = subprocess.run(["git", "-C", str(repository), "rev-parse", "--short", "HEAD"], capture_output=True,
                               text=True, timeout=10)
        return found.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def pet_binary(pet_opt: str, repository: Path) -> str:
    """Which pet-opt ran: the repository's own build, or a binary elsewhere with its build time
    (the repository's commit then says nothing about it)."""
    path = Path(str(pet_opt)).resolve()
    if path == (repository / "build" / "tools" / "pet-opt").resolve():
        return "pet-opt from this repository's build/"
    try:
        built = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    except OSError:
        built = "unknown time"
    return f"pet-opt {path} (built {built}, not necessarily from this commit)"


def versions() -> Dict[str, str]:
    found = {"onnxruntime": package_version("onnxruntime"), "openvino": package_version("openvino"),
             "onnx": package_version("onnx")}
    found.update({peer: version_of(peer) for peer in PEERS if not peer.startswith("ort-")})
    return found


def openvino_precision() -> str:
    """OpenVINO's default inference precision on this CPU ("bf16" where the CPU has bf16 units, else
    "f32"): the element type's short name, as OpenVINO's C++ API and pet-opt's reports spell it."""
    try:
        import openvino as ov
        return ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
    except Exception:  # no OpenVINO: nothing to say
        return "unknown"


class CpuPeakError(Exception):
    """pet_cpu_peak is missing, failed or measured no float32 peak."""


def cpu_peak(binary: str, threads: int) -> dict:
    """The CPU's arithmetic peak at `threads` threads as `pet_cpu_peak` measures it:
    {"isa", "fp32_gflops", "bf16_gflops" (None without bf16 units)}; CpuPeakError saying why not."""
    path = Path(binary)
    if not path.is_file():
        raise CpuPeakError(f"{path} is missing (build pet with PET_BUILD_BENCH=ON)")
    try:
        finished = subprocess.run([str(path), "--threads", str(threads)], capture_output=True, text=True, timeout=300)
        found = json.loads(finished.stdout) if finished.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
        raise CpuPeakError(f"{path} failed: {error}") from error
    if not found.get("fp32_gflops"):
        raise CpuPeakError(f"{path} measured no float32 peak (exit {finished.returncode}: {finished.stderr.strip()})")
    return found


def header_lines(args, peaks: Dict[tuple, dict], repository: Path) -> List[str]:
    found = versions()
    peak_text = "; ".join(
        f"{target} {t} thread{'s' if t > 1 else ''}: {p['gflops']:.1f} GFLOP/s ({p['floor']})"
        + (f", the runtime's best {p['runtime_gflops']:.1f} (MatMul {p['matmul_gflops']:.1f}, conv {p['conv_gflops']:.1f})"
           if p.get("runtime_gflops") else "")
        for (target, t), p in sorted(peaks.items()))
    return [
        "# pet harness: the input model, the tools users run today and pet's modes, measured side by side", "",
        f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; machine: {cpu_description()}",
        f"- Runtimes: ONNX Runtime {found['onnxruntime']}, OpenVINO {found['openvino']}; onnx {found['onnx']}; "
        f"peers: onnxsim {found['onnxsim']}, onnxslim {found['onnxslim']}, onnxoptimizer {found['onnxoptimizer']}",
        f"- pet {pet_commit(repository)}, {pet_binary(args.pet_opt, repository)}; threads {', '.join(map(str, args.threads))}; {args.repeats} interleaved "
        f"rounds after {args.warmup} warm-up rounds; random inputs seed {args.seed}",
        "- Physical floor: the CPU's arithmetic peak measured by pet_cpu_peak (independent vector FMA or bf16 "
        "dot-product chains, the best of 5 rounds) in the precision each runtime computes in; beside it each "
        f"runtime's best rate as deployed (the faster of a {args.peak_size}x{args.peak_size} float32 MatMul and a 3x3 "
        f"conv of 256 channels on 56x56, median): {peak_text or 'not measured'}",
        f"- OpenVINO computes in its default inference precision on this CPU ({openvino_precision()}) for the timings "
        "and in f32 for the output checks; ONNX Runtime in f32 for both.",
        "- Each cell's variants are timed in one process, in rotating order; every output is compared with the input "
        "model's in the same runtime (rtol 1e-3, atol 1e-4 x max(1, |output|)).", ""]
