// Canonical operator attributes: an ordered name -> value map with typed accessors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
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

// Ordered so printing, hashing and export are deterministic. Copies share one map until one of
// them changes (copy on write): the search copies whole graphs for every candidate it builds, and
// nearly all of their nodes keep their attributes. So a reference from entries() or a getter
// lasts until this Attributes next changes (set or erase may move it to a map of its own), not,
// as with a plain map, for as long as the entry stays.
class Attributes {
 public:
  using Map = std::map<std::string, AttrValue, std::less<>>;

  Attributes() = default;
  Attributes(std::initializer_list<std::pair<const std::string, AttrValue>> entries)
      : values_(std::make_shared<Map>(entries)) {}

  bool has(const std::string& name) const { return entries().count(name) != 0; }
  void set(const std::string& name, AttrValue value) { own()[name] = std::move(value); }
  void erase(const std::string& name) {
    if (has(name)) own().erase(name);
  }

  // Accessors fail an internal check when the attribute is missing or of another kind:
  // canonical attributes are complete once a node exists.
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  const std::vector<int64_t>& get_ints(std::string_view name) const;
  const std::vector<double>& get_floats(std::string_view name) const;

  const Map& entries() const { return values_ ? *values_ : empty(); }
  bool operator==(const Attributes& other) const { return values_ == other.values_ || entries() == other.entries(); }
  // "[name=value, ...]" in name order, "" when empty: the text IR's form, exact (a key for memos).
  std::string to_string() const;

 private:
  const AttrValue& at(std::string_view name) const;
  static const Map& empty();
  Map& own();                     // the map, copied first when another Attributes shares it
  std::shared_ptr<Map> values_;  // null while empty; never changed while shared
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
