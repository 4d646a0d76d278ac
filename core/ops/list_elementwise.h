// Elementwise arithmetic, activations, reductions, softmax and normalization ops.
PET_OP(Relu)
PET_OP(Add)
