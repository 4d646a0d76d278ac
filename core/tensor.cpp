// Tensor storage, typed views, seeded random fill and content hashing.
#include "core/tensor.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/error.h"
#include "core/hash.h"

namespace pet {

std::string TensorType::to_string() const {
  std::string text(dtype_name(dtype));
  text += '[';
  for (int i = 0; i < shape.rank(); ++i) {
    if (i) text += ',';
    text += std::to_string(shape[i]);
  }
  return text + ']';
}

// Queried once: the limit a single tensor must stay under.
static int64_t physical_memory_bytes() {
  static const int64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return INT64_MAX;
    return static_cast<int64_t>(pages) > INT64_MAX / page_size ? INT64_MAX : static_cast<int64_t>(pages) * page_size;
  }();
  return bytes;
}

std::optional<int64_t> tensor_bytes(const TensorType& type) {
  std::optional<int64_t> count = type.shape.checked_numel();
  int64_t bytes = 0;
  if (!count || __builtin_mul_overflow(*count, static_cast<int64_t>(dtype_size(type.dtype)), &bytes)) return std::nullopt;
  return bytes;
}

ShapeCheck check_allocatable(const TensorType& type, const std::string& what, const std::string& fix) {
  std::optional<int64_t> bytes = tensor_bytes(type);
  int64_t memory = physical_memory_bytes();
  if (!bytes)
    return Refusal{
        fmt::format("{} ({}) would need more than 2^63 bytes, more than this machine's {} bytes of "
                    "memory; {}",
                    what, type.to_string(), memory, fix)};
  if (*bytes > memory)
    return Refusal{fmt::format("{} ({}) would need {} bytes, more than this machine's {} bytes of memory; {}", what,
                               type.to_string(), *bytes, memory, fix)};
  return {};
}

void require_allocatable(const TensorType& type, const std::string& what, const std::string& fix) {
  check_allocatable(type, what, fix).or_throw();
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  for (int64_t d : shape_.dims()) PET_CHECK(d >= 0, "negative dimension in " + shape_.to_string());
  require_allocatable(type(), "a tensor", "use smaller dimensions");
  data_ = std::make_shared<std::vector<std::byte>>(nbytes());
}

template <typename T>
static Tensor make_typed(DType dtype, Shape shape, const std::vector<T>& values) {
  Tensor tensor(dtype, std::move(shape));
  PET_CHECK(static_cast<int64_t>(values.size()) == tensor.numel(),
            "value count " + std::to_string(values.size()) + " does not match shape " + tensor.shape().to_string());
  if (!values.empty()) std::memcpy(tensor.mutable_raw(), values.data(), tensor.nbytes());
  return tensor;
}

Tensor Tensor::f32(Shape shape, std::vector<float> values) { return make_typed(DType::f32, std::move(shape), values); }
Tensor Tensor::i64(Shape shape, std::vector<int64_t> values) { return make_typed(DType::i64, std::move(shape), values); }
Tensor Tensor::boolean(Shape shape, std::vector<uint8_t> values) {
  return make_typed(DType::boolean, std::move(shape), values);
}

Tensor Tensor::full(DType dtype, Shape shape, double value) {
  Tensor tensor(dtype, std::move(shape));
  visit_dtype(dtype, [&]<DType D>() {
    storage_t<D> element = narrow<D>(value);
    for (storage_t<D>& slot : tensor.mutable_view<D>()) slot = element;
  });
  return tensor;
}

Tensor Tensor::random_f32(Shape shape, uint64_t seed, float low, float high) {
  Tensor tensor(DType::f32, std::move(shape));
  std::mt19937_64 engine(seed);
  // Map 24 random bits to [0, 1) ourselves: std::uniform_real_distribution differs across libraries.
  for (float& value : tensor.mutable_f32()) {
    float unit = static_cast<float>(engine() >> 40) / static_cast<float>(1 << 24);
    value = low + (high - low) * unit;
  }
  return tensor;
}

std::span<const float> Tensor::f32() const {
  PET_CHECK(dtype_ == DType::f32, "tensor is " + std::string(dtype_name(dtype_)) + ", not f32");
  return {reinterpret_cast<const float*>(data_->data()), static_cast<size_t>(numel())};
}
std::span<const int64_t> Tensor::i64() const {
  PET_CHECK(dtype_ == DType::i64, "tensor is " + std::string(dtype_name(dtype_)) + ", not i64");
  return {reinterpret_cast<const int64_t*>(data_->data()), static_cast<size_t>(numel())};
}
std::span<const uint8_t> Tensor::b8() const {
  PET_CHECK(dtype_ == DType::boolean, "tensor is " + std::string(dtype_name(dtype_)) + ", not bool");
  return {reinterpret_cast<const uint8_t*>(data_->data()), static_cast<size_t>(numel())};
}
std::span<float> Tensor::mutable_f32() {
  PET_CHECK(dtype_ == DType::f32, "tensor is not f32");
  return {reinterpret_cast<float*>(mutable_raw()), static_cast<size_t>(numel())};
}
std::span<int64_t> Tensor::mutable_i64() {
  PET_CHECK(dtype_ == DType::i64, "tensor is not i64");
  return {reinterpret_cast<int64_t*>(mutable_raw()), static_cast<size_t>(numel())};
}
std::span<uint8_t> Tensor::mutable_b8() {
  PET_CHECK(dtype_ == DType::boolean, "tensor is not bool");
  return {reinterpret_cast<uint8_t*>(mutable_raw()), static_cast<size_t>(numel())};
}

std::byte* Tensor::mutable_raw() {
  detach();
  return data_->data();
}

void Tensor::detach() {
  if (data_.use_count() > 1) data_ = std::make_shared<std::vector<std::byte>>(*data_);
  hash_memo_ = std::make_shared<HashMemo>();
}

Tensor Tensor::converted(DType type) const {
  if (type == dtype_) return *this;
  Tensor result(type, shape_);
  visit_dtype(dtype_, [&]<DType From>() {
    visit_dtype(type, [&]<DType To>() {
      auto in = view<From>();
      auto out = result.mutable_view<To>();
      for (size_t i = 0; i < in.size(); ++i) out[i] = cast_element<From, To>(in[i]);
    });
  });
  return result;
}

Tensor Tensor::reshaped(Shape shape) const {
  PET_CHECK(shape.numel() == numel(), "reshape " + shape_.to_string() + " -> " + shape.to_string());
  Tensor result = *this;
  result.shape_ = std::move(shape);
  return result;
}

void Tensor::check_dtype(DType expected) const {
  PET_CHECK(dtype_ == expected,
            fmt::format("tensor is {}, not {}", dtype_name(dtype_), dtype_name(expected)));
}

double Tensor::as_double(int64_t index) const {
  PET_CHECK(index >= 0 && index < numel(), "element index out of range");
  auto at = static_cast<size_t>(index);
  return visit_dtype(dtype_, [&]<DType D>() -> double {
    storage_t<D> value = view<D>()[at];
    if constexpr (D == DType::bf16) return bfloat16_to_float(value);
    else if constexpr (D == DType::boolean) return value ? 1.0 : 0.0;
    else return static_cast<double>(value);
  });
}

int64_t Tensor::as_int(int64_t index) const {
  PET_CHECK(index >= 0 && index < numel(), "element index out of range");
  auto at = static_cast<size_t>(index);
  return visit_dtype(dtype_, [&]<DType D>() -> int64_t {
    if constexpr (is_float_dtype(D)) return static_cast<int64_t>(as_double(index));
    else if constexpr (D == DType::u64) return std::min<uint64_t>(view<D>()[at], INT64_MAX);
    else return static_cast<int64_t>(view<D>()[at]);
  });
}

std::vector<int64_t> Tensor::to_int_vector() const {
  std::vector<int64_t> values(static_cast<size_t>(numel()));
  for (int64_t i = 0, end = numel(); i < end; ++i) values[static_cast<size_t>(i)] = as_int(i);
  return values;
}

std::vector<double> Tensor::to_double_vector() const {
  return visit_dtype(dtype_, [&]<DType D>() {
    std::span<const storage_t<D>> elements = view<D>();
    std::vector<double> values(elements.size());
    for (size_t i = 0; i < elements.size(); ++i) {
      if constexpr (D == DType::bf16) values[i] = bfloat16_to_float(elements[i]);
      else if constexpr (D == DType::boolean) values[i] = elements[i] ? 1.0 : 0.0;
      else values[i] = static_cast<double>(elements[i]);
    }
    return values;
  });
}

uint64_t Tensor::content_hash() const {
  std::lock_guard<std::mutex> lock(hash_memo_->mutex);
  if (hash_memo_->valid && hash_memo_->dtype == dtype_ && hash_memo_->shape == shape_) return hash_memo_->hash;
  Hasher hasher;
  hasher.add(static_cast<uint64_t>(dtype_));
  for (int64_t d : shape_.dims()) hasher.add(static_cast<uint64_t>(d));
  hasher.add_bytes(data_->data(), data_->size());
  hash_memo_->valid = true;
  hash_memo_->dtype = dtype_;
  hash_memo_->shape = shape_;
  hash_memo_->hash = hasher.value();
  return hash_memo_->hash;
}

bool Tensor::same_content(const Tensor& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ &&
         (data_ == other.data_ || nbytes() == 0 || std::memcmp(data_->data(), other.data_->data(), nbytes()) == 0);
}

}  // namespace pet
