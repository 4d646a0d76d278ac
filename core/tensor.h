// Dense host tensors with shared, copy-on-write storage so graphs and values copy cheaply.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace pet {

struct TensorType {
  DType dtype = DType::f32;
  Shape shape;
  bool operator==(const TensorType&) const = default;
  std::string to_string() const;  // "f32[1,3,224,224]"
};

// The bytes a tensor of this type holds, or nullopt when that does not fit in int64.
std::optional<int64_t> tensor_bytes(const TensorType& type);

// A refusal unless one tensor of `type` fits in this machine's physical memory, checked before
// anything is allocated: `what` names the tensor ("input 'x'") and `fix` says what to change.
ShapeCheck check_allocatable(const TensorType& type, const std::string& what, const std::string& fix);
// The same as a UserError.
void require_allocatable(const TensorType& type, const std::string& what, const std::string& fix);

class Tensor {
 public:
  Tensor() : Tensor(DType::f32, Shape{0}) {}
  // Zero-filled tensor; UserError (require_allocatable) when it cannot fit in memory.
  Tensor(DType dtype, Shape shape);
  explicit Tensor(const TensorType& type) : Tensor(type.dtype, type.shape) {}

  static Tensor f32(Shape shape, std::vector<float> values);
  static Tensor i64(Shape shape, std::vector<int64_t> values);
  static Tensor boolean(Shape shape, std::vector<uint8_t> values);
  static Tensor scalar_f32(float value) { return f32(Shape{}, {value}); }
  // Every element `value` converted to `dtype` as Cast converts a double.
  static Tensor full(DType dtype, Shape shape, double value);
  static Tensor scalar_i64(int64_t value) { return i64(Shape{}, {value}); }
  // Uniform in [low, high), reproducible from the seed.
  static Tensor random_f32(Shape shape, uint64_t seed, float low = -1.0f, float high = 1.0f);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  TensorType type() const { return {dtype_, shape_}; }
  int64_t numel() const { return shape_.numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }

  std::span<const float> f32() const;
  std::span<const int64_t> i64() const;
  std::span<const uint8_t> b8() const;
  std::span<float> mutable_f32();
  std::span<int64_t> mutable_i64();
  std::span<uint8_t> mutable_b8();
  // The elements of a tensor of element type D (an internal check when it is another type).
  template <DType D>
  std::span<const storage_t<D>> view() const {
    check_dtype(D);
    return {reinterpret_cast<const storage_t<D>*>(data_->data()), static_cast<size_t>(numel())};
  }
  template <DType D>
  std::span<storage_t<D>> mutable_view() {
    check_dtype(D);
    return {reinterpret_cast<storage_t<D>*>(mutable_raw()), static_cast<size_t>(numel())};
  }
  const std::byte* raw() const { return data_->data(); }
  std::byte* mutable_raw();

  // The elements converted to `type` as ONNX's Cast converts them (core/element_cast.h).
  Tensor converted(DType type) const;
  // Same storage, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // Element as double / int64 regardless of dtype (for scalars and index tensors; a u64 above
  // 2^63 - 1 reads as int64's maximum).
  double as_double(int64_t index) const;
  int64_t as_int(int64_t index) const;
  std::vector<int64_t> to_int_vector() const;
  // Every element as as_double reads it, the element type visited once (for whole-tensor loops).
  std::vector<double> to_double_vector() const;
  // FNV-1a over dtype, shape and bytes; equal content gives an equal hash.
  uint64_t content_hash() const;
  bool same_content(const Tensor& other) const;

 private:
  void check_dtype(DType expected) const;
  void detach();  // copy-on-write before mutation; forgets the memoized hash
  // content_hash() of the storage, remembered for the dtype and shape it was computed with
  // (weights are hashed by every structural hash the search computes).
  struct HashMemo {
    std::mutex mutex;
    bool valid = false;
    DType dtype = DType::f32;
    Shape shape;
    uint64_t hash = 0;
  };
  DType dtype_;
  Shape shape_;
  std::shared_ptr<std::vector<std::byte>> data_;
  std::shared_ptr<HashMemo> hash_memo_ = std::make_shared<HashMemo>();
};

}  // namespace pet
