// DeviceBuffer: cudaMalloc'd bytes, freed once; the random fill tiles one uploaded random block,
// which is random enough for timing algorithms and needs no kernel of its own.
#include "kernels/gpu/executor/device_memory.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {
namespace {

// One random block of this many bytes is copied over and over across a buffer.
constexpr int64_t kRandomBlockBytes = int64_t{4} << 20;

}  // namespace

DeviceBuffer::DeviceBuffer(int64_t bytes) : bytes_(bytes) {
  void* pointer = nullptr;
  check_cuda(cudaMalloc(&pointer, static_cast<size_t>(std::max<int64_t>(bytes, 1))), "cudaMalloc");
  data_ = static_cast<std::byte*>(pointer);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (data_ != nullptr) cudaFree(data_);
  data_ = nullptr;
  bytes_ = 0;
}

void DeviceBuffer::upload(std::span<const std::byte> host, cudaStream_t stream, int64_t offset) {
  if (host.empty()) return;
  check_cuda(cudaMemcpyAsync(data_ + offset, host.data(), host.size(), cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (host to device)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after an upload)");
}

void DeviceBuffer::download(std::span<std::byte> host, cudaStream_t stream, int64_t offset) const {
  if (host.empty()) return;
  check_cuda(cudaMemcpyAsync(host.data(), data_ + offset, host.size(), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync (device to host)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after a download)");
}

void DeviceBuffer::poison(cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(data_, 0xFF, static_cast<size_t>(bytes_), stream), "cudaMemsetAsync (poison)");
}

void DeviceBuffer::fill_random(uint64_t seed, cudaStream_t stream) {
  int64_t block = std::min(bytes_, kRandomBlockBytes) / int64_t{sizeof(float)} * int64_t{sizeof(float)};
  if (block == 0) return;
  Tensor random = Tensor::random_f32(Shape{block / int64_t{sizeof(float)}}, seed);
  upload({random.raw(), static_cast<size_t>(block)}, stream);
  for (int64_t offset = block; offset < bytes_; offset += block) {
    int64_t count = std::min(block, bytes_ - offset);
    check_cuda(cudaMemcpyAsync(data_ + offset, data_, static_cast<size_t>(count), cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync (random fill)");
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after the random fill)");
}

}  // namespace pet::gpu
