// The mutant operator set is data: templates of ops with the attribute domains they enumerate
// (mutant/attribute_domain.h). The generator places templates; adding an op to the set is one
// more template line in template_set.cpp.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "mutant/attribute_domain.h"

namespace pet::mutant {

// Where in a candidate a template may stand: before the compute op (transforming inputs), as
// the compute op, or after it (closing towards the original's output types).
enum class Stage { Pre, Compute, Post };

// Which tensors a Pre template transforms: activations (data flowing through the model) or
// weights (the compute ops' second operands in the original), as inherited through transforms.
enum class Role { Activation, Weight, Any };

struct MutantTemplate {
  std::string name;  // kebab-case; mutant families are the chains of these names
  std::string op;    // registry op
  Stage stage;
  int min_arity = 1;
  int max_arity = 1;
  Role role = Role::Any;  // for Pre templates: which tensors they transform
  // The attribute values worth trying, as data; the op's shape rule drops what does not fit.
  std::vector<AttributeDomain> domains;
  std::vector<Role> operand_roles = {};  // for Compute templates: the role of each operand
  // Operands only in ascending value order: for templates whose operand order is a relabelling
  // that the closing ops undo (operand concats before a merged op whose outputs are split back).
  bool ascending_operands = false;
};

// The built-in mutant operator set.
const std::vector<MutantTemplate>& default_templates();

// Opt-in templates for merging parallel ops, in neither set above (template_set.cpp says why):
// kernels squared with zeros, for 1 x k and k x 1 siblings.
const std::vector<MutantTemplate>& square_kernel_templates();

// The part of it that merges parallel ops into one (operand concats, kernel enlargement for
// unequal kernels, the compute ops, splits and slices back to the outputs), its operand concats
// in one order only: groups of three ops stay tractable with it, where the whole set takes
// half a minute per group.
const std::vector<MutantTemplate>& merge_templates();

}  // namespace pet::mutant
