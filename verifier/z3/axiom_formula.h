// One axiom instance as a Z3 formula: for each output, the left and right terms are equal for all
// values of the inputs that output reads, with the left term as the E-matching trigger.
#pragma once

#include <z3++.h>

#include "verifier/axioms/axiom.h"
#include "verifier/z3/z3_encoding.h"

namespace pet {

z3::expr axiom_formula(Z3Encoding& encoding, const axioms::AxiomSides& sides);

}  // namespace pet
