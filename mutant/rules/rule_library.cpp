// JSON writing and reading of rule files with nlohmann's ordered_json, so key order is fixed.
#include "mutant/rules/rule_library.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace pet::rules {
namespace {

nlohmann::ordered_json rule_json(const RuleRecord& rule, bool with_reason) {
  nlohmann::ordered_json proof;
  proof["status"] = std::string(proof_status_name(rule.proof.status));
  if (with_reason) proof["reason"] = rule.proof.reason;
  proof["axioms_used"] = rule.proof.axioms_used;
  proof["z3_resource_units"] = rule.proof.resource_units;
  nlohmann::ordered_json json;
  json["name"] = rule.name;
  json["shape_class"] = rule.shape_class;
  json["content_hash"] = fmt::format("{:016x}", rule.content_hash);
  json["lhs"] = rule.lhs;
  json["rhs"] = rule.rhs;
  json["bidirectional"] = rule.bidirectional;
  json["constraints"] = rule.constraints;
  json["proof"] = proof;
  return json;
}

}  // namespace

std::string rules_json(const nlohmann::ordered_json& settings, const std::vector<RuleRecord>& rules, bool with_reason) {
  // One rule per line: diffs stay readable and the library stays small enough to keep in git.
  std::string text = "{\n\"generator\": " + settings.dump() + ",\n\"count\": " + std::to_string(rules.size()) +
                     ",\n\"rules\": [\n";
  for (size_t i = 0; i < rules.size(); ++i)
    text += rule_json(rules[i], with_reason).dump() + (i + 1 < rules.size() ? ",\n" : "\n");
  return text + "]}\n";
}

std::vector<LibraryRule> read_rule_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot read rule file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  std::vector<LibraryRule> rules;
  try {
    nlohmann::json file = nlohmann::json::parse(text.str());
    for (const auto& rule : file.at("rules"))
      rules.push_back({rule.at("name").get<std::string>(), rule.at("lhs").get<std::string>(),
                       rule.at("rhs").get<std::string>(), rule.at("proof").at("status").get<std::string>(),
                       rule.at("proof").at("axioms_used").get<std::vector<std::string>>(),
                       rule.value("bidirectional", false),
                       rule.at("constraints").value("per_channel", std::vector<std::string>{})});
  } catch (const nlohmann::json::exception& error) {
    throw UserError("rule file '" + path + "' is malformed: " + error.what());
  }
  return rules;
}

std::string library_file_name(const std::string& shape_class) { return "library-" + shape_class + ".json"; }
std::string unproved_file_name(const std::string& shape_class) { return "unproved-" + shape_class + ".json"; }

std::vector<LibraryRule> read_rule_library(const std::string& directory) {
  std::vector<std::string> files;
  if (std::filesystem::is_directory(directory))
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
      std::string name = entry.path().filename().string();
      if (name.rfind("library-", 0) == 0 && entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
  if (files.empty()) throw UserError("no library-*.json rule files in '" + directory + "'; run pet-rules --out " + directory);
  std::sort(files.begin(), files.end());
  std::vector<LibraryRule> rules;
  for (const std::string& file : files) {
    std::vector<LibraryRule> more = read_rule_file(file);
    rules.insert(rules.end(), more.begin(), more.end());
  }
  return rules;
}

}  // namespace pet::rules
