// Typed access to canonical attributes and their textual form.
#include "core/attributes.h"

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

AttrKind attr_kind(const AttrValue& value) { return static_cast<AttrKind>(value.index()); }

static std::string format_float(double value) {
  // Shortest text that reads back to the same float32, so printed IR round-trips exactly.
  return fmt::format("{}", static_cast<float>(value));
}

std::string attr_value_to_string(const AttrValue& value) {
  switch (attr_kind(value)) {
    case AttrKind::Int: return std::to_string(std::get<int64_t>(value));
    case AttrKind::Float: return format_float(std::get<double>(value));
    case AttrKind::String: return "\"" + std::get<std::string>(value) + "\"";
    case AttrKind::Ints: return fmt::format("[{}]", fmt::join(std::get<std::vector<int64_t>>(value), ","));
    case AttrKind::Floats: {
      std::string text = "[";
      const auto& floats = std::get<std::vector<double>>(value);
      for (size_t i = 0; i < floats.size(); ++i) text += (i ? "," : "") + format_float(floats[i]);
      return text + (floats.empty() ? "f]" : "]");  // "[f]" marks an empty float list
    }
  }
  return "?";
}

const Attributes::Map& Attributes::empty() {
  static const Map none;
  return none;
}

Attributes::Map& Attributes::own() {
  if (!values_) values_ = std::make_shared<Map>();
  else if (values_.use_count() > 1) values_ = std::make_shared<Map>(*values_);
  return *values_;
}

const AttrValue& Attributes::at(std::string_view name) const {
  const Map& values = entries();
  auto found = values.find(name);
  PET_CHECK(found != values.end(), "missing attribute '" + std::string(name) + "'");
  return found->second;
}

int64_t Attributes::get_int(std::string_view name) const {
  const AttrValue& value = at(name);
  PET_CHECK(std::holds_alternative<int64_t>(value), "attribute '" + std::string(name) + "' is not an int");
  return std::get<int64_t>(value);
}

double Attributes::get_float(std::string_view name) const {
  const AttrValue& value = at(name);
  PET_CHECK(std::holds_alternative<double>(value), "attribute '" + std::string(name) + "' is not a float");
  return std::get<double>(value);
}

const std::string& Attributes::get_string(std::string_view name) const {
  const AttrValue& value = at(name);
  PET_CHECK(std::holds_alternative<std::string>(value), "attribute '" + std::string(name) + "' is not a string");
  return std::get<std::string>(value);
}

const std::vector<int64_t>& Attributes::get_ints(std::string_view name) const {
  const AttrValue& value = at(name);
  PET_CHECK(std::holds_alternative<std::vector<int64_t>>(value), "attribute '" + std::string(name) + "' is not an int list");
  return std::get<std::vector<int64_t>>(value);
}

const std::vector<double>& Attributes::get_floats(std::string_view name) const {
  const AttrValue& value = at(name);
  PET_CHECK(std::holds_alternative<std::vector<double>>(value), "attribute '" + std::string(name) + "' is not a float list");
  return std::get<std::vector<double>>(value);
}

std::string Attributes::to_string() const {
  if (entries().empty()) return "";
  std::string text;
  for (const auto& [name, value] : entries()) text += (text.empty() ? "[" : ", ") + name + "=" + attr_value_to_string(value);
  return text + "]";
}

}  // namespace pet
