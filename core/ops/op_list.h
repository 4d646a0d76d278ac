// Every built-in operator, one registration line each, grouped by family. Adding an operator:
// write core/ops/<name>.cpp defining `OpDef make_<Name>()`, then add `PET_OP(<Name>)` below.
// (This file is included with different definitions of PET_OP; it has no include guard.)
#include "core/ops/list_elementwise.h"
#include "core/ops/list_nn.h"
#include "core/ops/list_tensor.h"
