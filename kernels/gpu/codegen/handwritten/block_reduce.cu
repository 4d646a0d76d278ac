// Block-wide reductions for the hand-written kernels: every thread of a block of kBlock threads (a
// whole number of warps, at most 1024) gets the combination of all the block's values. Warps
// combine by shuffles; then each warp combines the per-warp results itself, so no second trip
// through shared memory is needed. Expects kBlock before it.

struct SumOf {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOf {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; }
};
struct MinOf {
  __device__ __forceinline__ float operator()(float a, float b) const { return fminf(a, b); }
  __device__ __forceinline__ int operator()(int a, int b) const { return a < b ? a : b; }
};

template <typename T, typename Combine>
__device__ __forceinline__ T warp_reduce(T value, Combine combine) {
  for (int offset = 16; offset > 0; offset >>= 1) value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

// `identity` fills the lanes beyond the block's warp count; `scratch` holds one value per warp.
// The closing barrier frees `scratch` for the caller's next reduction.
template <typename T, typename Combine>
__device__ __forceinline__ T block_reduce(T value, T identity, Combine combine, T* scratch) {
  constexpr int kWarps = kBlock / 32;
  static_assert(kBlock % 32 == 0 && kWarps <= 32, "a block is a whole number of warps, at most 32");
  value = warp_reduce(value, combine);
  if (kWarps == 1) return value;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = warp_reduce(lane < kWarps ? scratch[lane] : identity, combine);
  __syncthreads();
  return value;
}
