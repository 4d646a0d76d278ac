// pet-gpu reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, GlobalAveragePool,
// GlobalMaxPool): one block per output element ("slot"), its threads folding the slot's kCount
// inputs, then one block-wide reduction. Output slots are the kept coordinates in row-major order;
// input_offset(slot, j) finds the j-th reduced element of a slot.
// The generator puts before it: index, element (the memory type), accumulator, kSlots, kCount,
// kBlock, initial() (the fold's identity), Fold (a combine functor), input_offset, finish(total),
// block_reduce.

extern "C" __global__ void __launch_bounds__(kBlock)
    PET_KERNEL_NAME(const element* __restrict__ input, element* __restrict__ output) {
  __shared__ accumulator scratch[32];
  for (index slot = static_cast<index>(blockIdx.x); slot < kSlots; slot += static_cast<index>(gridDim.x)) {
    accumulator total = initial();
    for (index j = static_cast<index>(threadIdx.x); j < kCount; j += kBlock)
      total = Fold()(total, static_cast<accumulator>(input[input_offset(slot, j)]));
    total = block_reduce(total, initial(), Fold(), scratch);
    if (threadIdx.x == 0) output[slot] = finish(total);
  }
}
