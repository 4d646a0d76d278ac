// Convolution, pooling, matrix products and resizing.
