// Device allocations the executor owns (arena, workspace, staging buffers, weights): one RAII
// owner that also uploads, downloads, poisons and fills with random floats.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace pet::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Allocates max(bytes, 1) bytes, so even an empty tensor has a valid, distinct address.
  explicit DeviceBuffer(int64_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  std::byte* data() const { return data_; }
  int64_t bytes() const { return bytes_; }

  // Host -> device and back, ordered on `stream` (the host side is pageable memory, so each
  // returns once the host bytes are consumed or written).
  void upload(std::span<const std::byte> host, cudaStream_t stream, int64_t offset = 0);
  void download(std::span<std::byte> host, cudaStream_t stream, int64_t offset = 0) const;
  // Every byte 0xFF: a NaN in every float, so an element no kernel wrote shows in a check.
  void poison(cudaStream_t stream);
  // Random floats in [-1, 1) over the whole buffer (algorithm searches never time zeros).
  void fill_random(uint64_t seed, cudaStream_t stream);

 private:
  void release();
  std::byte* data_ = nullptr;
  int64_t bytes_ = 0;
};

}  // namespace pet::gpu
