// Canonical operator attributes: an ordered name -> value map with typed accessors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pet {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

enum class AttrKind : uint8_t { Int, Float, String, Ints, Floats };

AttrKind attr_kind(const AttrValue& value);
std::string attr_value_to_string(const AttrValue& value);

// Ordered so printing, hashing and export are deterministic.
class Attributes {
 public:
  Attributes() = default;
  Attributes(std::initializer_list<std::pair<const std::string, AttrValue>> entries) : values_(entries) {}

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, AttrValue value) { values_[name] = std::move(value); }
  void erase(const std::string& name) { values_.erase(name); }

  // Accessors fail an internal check when the attribute is missing or of another kind:
  // canonical attributes are complete once a node exists.
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  const std::vector<int64_t>& get_ints(std::string_view name) const;
  const std::vector<double>& get_floats(std::string_view name) const;

  const std::map<std::string, AttrValue, std::less<>>& entries() const { return values_; }
  bool operator==(const Attributes&) const = default;
  // "[name=value, ...]" in name order, "" when empty: the text IR's form, exact (a key for memos).
  std::string to_string() const;

 private:
  const AttrValue& at(std::string_view name) const;
  std::map<std::string, AttrValue, std::less<>> values_;  // transparent: lookups by string_view
};

// Declared attribute of an op: its kind and default (std::monostate-like "required" when absent).
struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<AttrValue> default_value;  // nullopt: required
  // A pet-only attribute (a fused activation): ONNX never carries it, and canonical attributes
  // leave it out while it has its default, so adding it to an op changes no printed IR, structural
  // hash, signature or rule library of graphs that do not use it. Readers ask with a fallback.
  bool pet_only = false;
};

}  // namespace pet
