// Parsing textual IR back into a Graph.
#include <cmath>
#include <limits>

#include <charconv>

#include <fmt/format.h>

#include "core/error.h"
#include "core/registry.h"
#include "core/text_ir.h"

namespace pet {
namespace {

enum class TokenKind { Word, String, Ref, Punct, End };

struct Token {
  TokenKind kind;
  std::string text;
  int line;
};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-'; }
bool ref_char(char c) { return word_char(c) || c == '/' || c == ':'; }

class Lexer {
 public:
  explicit Lexer(const std::string& text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      skip_space();
      if (pos_ >= text_.size()) break;
      char c = text_[pos_];
      if (c == '"') {
        tokens.push_back({TokenKind::String, read_string(), line_});
      } else if (c == '%') {
        ++pos_;
        std::string name = pos_ < text_.size() && text_[pos_] == '"' ? read_string() : read_while(ref_char);
        if (name.empty()) fail("a value name after '%'");
        tokens.push_back({TokenKind::Ref, name, line_});
      } else if (word_char(c)) {
        tokens.push_back({TokenKind::Word, read_while(word_char), line_});
      } else if (std::string("{}[](),=:@").find(c) != std::string::npos) {
        tokens.push_back({TokenKind::Punct, std::string(1, c), line_});
        ++pos_;
      } else {
        fail(fmt::format("no character '{}'", c));
      }
    }
    tokens.push_back({TokenKind::End, "end of text", line_});
    return tokens;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    throw UserError(fmt::format("IR line {}: expected {}", line_, expected));
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '#') {  // comment to end of line
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        line_ += c == '\n';
        ++pos_;
      } else {
        break;
      }
    }
  }
  std::string read_while(bool (*accept)(char)) {
    size_t start = pos_;
    while (pos_ < text_.size() && accept(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::string read_string() {
    std::string result;
    ++pos_;  // opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      result += text_[pos_++];
    }
    if (pos_ >= text_.size()) fail("a closing '\"'");
    ++pos_;
    return result;
  }
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const BlobTable& blobs) : tokens_(std::move(tokens)), blobs_(blobs) {}

  Graph run() {
    expect_word("graph");
    graph_.name = expect(TokenKind::String, "a quoted graph name").text;
    expect_word("opset");
    graph_.opset = static_cast<int>(parse_int(next()));
    expect_punct("{");
    while (!accept_punct("}")) parse_line();
    if (peek().kind != TokenKind::End) fail("end of text after '}'");
    graph_.validate();
    return std::move(graph_);
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  [[noreturn]] void fail(const std::string& expected) const {
    throw UserError(fmt::format("IR line {}: expected {}, found '{}'", peek().line, expected, peek().text));
  }
  const Token& expect(TokenKind kind, const std::string& what) {
    if (peek().kind != kind) fail(what);
    return next();
  }
  void expect_word(const std::string& word) {
    if (peek().kind != TokenKind::Word || peek().text != word) fail("'" + word + "'");
    next();
  }
  void expect_punct(const std::string& punct) {
    if (!accept_punct(punct)) fail("'" + punct + "'");
  }
  bool accept_punct(const std::string& punct) {
    if (peek().kind != TokenKind::Punct || peek().text != punct) return false;
    next();
    return true;
  }

  int64_t parse_int(const Token& token) {
    try {
      size_t used = 0;
      int64_t value = std::stoll(token.text, &used);
      if (used == token.text.size()) return value;
    } catch (const std::exception&) {
    }
    --pos_;
    fail("an integer");
  }

  // A seed or a blob hash: all digits in `base`, below 2^64.
  uint64_t parse_unsigned(const Token& token, int base, const std::string& what) {
    try {
      size_t used = 0;
      uint64_t value = std::stoull(token.text, &used, base);
      if (used == token.text.size() && token.text[0] != '-' && token.text[0] != '+') return value;
    } catch (const std::exception&) {
    }
    --pos_;
    fail(what);
  }

  double parse_number(const Token& token) {
    const std::string& text = token.text;
    if (text == "inf" || text == "+inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    if (text == "nan" || text == "-nan") return std::numeric_limits<double>::quiet_NaN();
    try {
      size_t used = 0;
      double value = std::stod(text, &used);
      if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    --pos_;
    fail("a number");
  }

  TensorType parse_type() {
    static constexpr const char* kTypes = "an element type (f32, f64, bf16, i8, u8, i16, u16, i32, u32, i64, u64, bool)";
    const Token& word = expect(TokenKind::Word, kTypes);
    auto dtype = parse_dtype(word.text);
    if (!dtype) {
      --pos_;
      fail(kTypes);
    }
    expect_punct("[");
    std::vector<int64_t> dims;
    int64_t elements = 1;
    while (!accept_punct("]")) {
      if (!dims.empty()) expect_punct(",");
      dims.push_back(parse_int(next()));
      // Element counts (and byte sizes) must not overflow int64.
      if (dims.back() < 0 || __builtin_mul_overflow(elements, dims.back(), &elements) || elements > (int64_t{1} << 60)) {
        --pos_;
        fail("a dimension of at least 0 whose product with the others is below 2^60");
      }
    }
    return {*dtype, Shape(dims)};
  }

  ValueId define_check(const std::string& name) {
    if (names_.count(name)) fail("a new value name, but '%" + name + "' is already defined");
    return kNoValue;
  }

  ValueId lookup(const Token& token) {
    auto found = names_.find(token.text);
    if (found == names_.end()) {
      --pos_;
      fail("a defined value");
    }
    return found->second;
  }

  void parse_line() {
    if (peek().kind == TokenKind::Word && peek().text == "input") return parse_input();
    if (peek().kind == TokenKind::Word && peek().text == "const") return parse_const();
    if (peek().kind == TokenKind::Word && peek().text == "output") {
      next();
      graph_.add_output(lookup(expect(TokenKind::Ref, "a value after 'output'")));
      return;
    }
    if (peek().kind == TokenKind::Ref) return parse_node();
    fail("'input', 'const', 'output' or a node line");
  }

  void parse_input() {
    next();
    std::string name = expect(TokenKind::Ref, "an input name").text;
    define_check(name);
    expect_punct(":");
    names_[name] = graph_.add_input(name, parse_type());
  }

  void parse_const() {
    next();
    std::string name = expect(TokenKind::Ref, "a constant name").text;
    define_check(name);
    expect_punct(":");
    TensorType type = parse_type();
    expect_punct("=");
    Tensor value = parse_constant_value(type);
    ValueId id = graph_.add_constant(name, value);
    if (graph_.value(id).name != name) fail("a unique constant name");
    names_[name] = id;
  }

  Tensor parse_constant_value(const TensorType& type) {
    const Token& word = peek();
    if (word.kind == TokenKind::Word && (word.text == "blob" || word.text == "random")) {
      std::string kind = next().text;
      expect_punct("(");
      const Token& argument = expect(TokenKind::Word, kind == "blob" ? "a blob hash" : "a seed");
      uint64_t number = kind == "blob" ? parse_unsigned(argument, 16, "a hexadecimal blob hash below 2^64")
                                       : parse_unsigned(argument, 10, "a decimal seed below 2^64");
      float scale = 1.0f;
      if (kind == "random" && accept_punct(",")) {
        double given = parse_number(next());
        if (!(given >= 0 && given <= 3.4e38)) {
          --pos_;
          fail("a scale between 0 and the largest float");
        }
        scale = static_cast<float>(given);
      }
      expect_punct(")");
      if (kind == "random") {
        if (type.dtype != DType::f32) fail("random() only for f32 constants");
        return Tensor::random_f32(type.shape, number, -scale, scale);
      }
      auto found = blobs_.find(number);
      if (found == blobs_.end() || found->second.type() != type) fail("a blob given to the parser (blob table)");
      return found->second;
    }
    int line = peek().line;
    expect_punct("[");
    Tensor tensor(type);
    int64_t count = 0;
    while (!accept_punct("]")) {
      if (count) expect_punct(",");
      if (count >= tensor.numel()) fail(fmt::format("{} values for {}", tensor.numel(), type.to_string()));
      set_element(tensor, static_cast<size_t>(count++));
    }
    if (count != tensor.numel())
      throw UserError(fmt::format("IR line {}: the constant has {} values but {} needs {}", line, count,
                                  type.to_string(), tensor.numel()));
    return tensor;
  }

  // The next token as element `index` of `tensor`: floats rounded to the type, integers exact and
  // within the type's range.
  void set_element(Tensor& tensor, size_t index) {
    visit_dtype(tensor.dtype(), [&]<DType D>() {
      auto values = tensor.mutable_view<D>();
      if constexpr (D == DType::f32) values[index] = static_cast<float>(parse_number(next()));
      else if constexpr (D == DType::f64) values[index] = parse_number(next());
      else if constexpr (D == DType::bf16) values[index] = float_to_bfloat16(static_cast<float>(parse_number(next())));
      else if constexpr (D == DType::boolean) values[index] = parse_number(next()) != 0;
      else values[index] = parse_integer<storage_t<D>>(next(), dtype_name(D));
    });
  }

  template <typename Int>
  Int parse_integer(const Token& token, std::string_view type_name) {
    Int value{};
    const char* end = token.text.data() + token.text.size();
    auto [stop, error] = std::from_chars(token.text.data(), end, value);
    if (error != std::errc() || stop != end) {
      --pos_;
      fail(fmt::format("an integer of type {} (from {} to {})", type_name, std::numeric_limits<Int>::min() + 0,
                       std::numeric_limits<Int>::max() + 0));
    }
    return value;
  }

  AttrValue parse_attr_value(AttrKind kind) {
    if (kind == AttrKind::String) return expect(TokenKind::String, "a quoted string").text;
    if (kind == AttrKind::Int) return parse_int(next());
    if (kind == AttrKind::Float) return parse_number(next());
    expect_punct("[");
    std::vector<int64_t> ints;
    std::vector<double> floats;
    while (!accept_punct("]")) {
      if (!ints.empty() || !floats.empty()) expect_punct(",");
      if (peek().text == "f") {  // the printer's marker for an empty float list
        next();
        continue;
      }
      if (kind == AttrKind::Ints) ints.push_back(parse_int(next()));
      else floats.push_back(parse_number(next()));
    }
    if (kind == AttrKind::Ints) return ints;
    return floats;
  }

  Attributes parse_attributes(const OpDef& def) {
    Attributes attrs;
    bool bracketed = accept_punct("[");
    while (bracketed && !accept_punct("]")) {
      if (!attrs.entries().empty()) expect_punct(",");
      std::string name = expect(TokenKind::Word, "an attribute name").text;
      auto spec = std::find_if(def.attrs.begin(), def.attrs.end(), [&](const AttrSpec& s) { return s.name == name; });
      if (spec == def.attrs.end()) {
        --pos_;
        fail("an attribute of " + def.name);
      }
      expect_punct("=");
      attrs.set(name, parse_attr_value(spec->kind));
    }
    for (const AttrSpec& spec : def.attrs)
      if (!spec.default_value && !attrs.has(spec.name)) {
        if (bracketed) --pos_;  // point at the ']'
        fail(fmt::format("attribute '{}' of {} (it has no default)", spec.name, def.name));
      }
    return attrs;
  }

  void parse_node() {
    std::vector<std::string> outputs;
    do {
      outputs.push_back(expect(TokenKind::Ref, "an output name").text);
      define_check(outputs.back());
    } while (accept_punct(","));
    expect_punct("=");
    const Token& op = expect(TokenKind::Word, "an op name");
    const OpDef* def = OpRegistry::global().find(op.text);
    if (!def) {
      --pos_;
      fail("a registered op");
    }
    Attributes attrs = parse_attributes(*def);
    std::vector<ValueId> inputs;
    expect_punct("(");
    while (!accept_punct(")")) {
      if (!inputs.empty()) expect_punct(",");
      if (peek().kind == TokenKind::Word && peek().text == "_") {
        next();
        inputs.push_back(kNoValue);
      } else {
        inputs.push_back(lookup(expect(TokenKind::Ref, "an input value")));
      }
    }
    std::vector<TensorType> types;
    if (accept_punct(":")) do types.push_back(parse_type());
      while (accept_punct(","));
    std::string node_name;
    if (accept_punct("@")) node_name = next().text;
    add_parsed_node(*def, attrs, inputs, outputs, types, node_name);
  }

  void add_parsed_node(const OpDef& def, const Attributes& attrs, const std::vector<ValueId>& inputs,
                       const std::vector<std::string>& outputs, const std::vector<TensorType>& types,
                       const std::string& node_name) {
    int line = tokens_[pos_ - 1].line;
    std::vector<ValueId> ids = graph_.add_node(def.name, attrs, inputs, node_name.empty() ? outputs[0] : node_name, outputs);
    if (ids.size() < outputs.size())
      throw UserError(fmt::format("IR line {}: {} has {} outputs, the line names {}", line, def.name, ids.size(), outputs.size()));
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (graph_.value(ids[i]).name != outputs[i])
        throw UserError(fmt::format("IR line {}: value name '%{}' is already used", line, outputs[i]));
      if (i < types.size() && types[i] != graph_.value(ids[i]).type)
        throw UserError(fmt::format("IR line {}: '%{}' is written as {} but {} computes {}", line, outputs[i],
                                    types[i].to_string(), def.name, graph_.value(ids[i]).type.to_string()));
      names_[outputs[i]] = ids[i];
    }
  }

  std::vector<Token> tokens_;
  const BlobTable& blobs_;
  size_t pos_ = 0;
  Graph graph_;
  std::map<std::string, ValueId> names_;
};

}  // namespace

Graph parse_graph(const std::string& text, const BlobTable& blobs) {
  return Parser(Lexer(text).run(), blobs).run();
}

}  // namespace pet
