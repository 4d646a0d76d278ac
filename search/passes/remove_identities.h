// Bypasses identity-like nodes (Identity, inference Dropout) whose extra outputs are unused.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on nodes whose op has traits.identity_like and whose outputs after the first have no
// readers. Graph outputs keep their names: the bypassed value takes the output's name when it
// is safe to, otherwise the node stays. Returns how many nodes it removed.
int remove_identities(Graph& graph);

}  // namespace pet
