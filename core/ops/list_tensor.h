// Shape, layout, indexing and constant-producing ops.
