// ONNX export -> import keeps the structural hash and the exact weights.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include "tests/test_temp_dir.h"
#include "tests/user_error_message.h"
#include "core/executor.h"
#include "core/memo.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"

namespace pet {
namespace {

std::string temp_path(const std::string& name) {
  return (pet::testing::private_temp_dir() / ("pet_" + name)).string();
}

// x + w, w a seeded weight of `elements` values.
Graph weight_added(const std::string& name, int elements) {
  return parse_graph(fmt::format(R"(graph "{0}" opset 13 {{
    input %x : f32[2,{1}]
    const %w : f32[{1}] = random(3)
    %y = Add(%x, %w)
    output %y
  }})",
                                 name, elements));
}

TEST(OnnxRoundTrip, ExportThenImportKeepsHashAndWeights) {
  Graph graph = parse_graph(R"(graph "rt" opset 13 {
    input %x : f32[2,16]
    const %w : f32[16] = random(3)
    %s = Add(%x, %w)
    %y = Relu(%s)
    output %y
  })");
  std::string path = temp_path("roundtrip.onnx");
  export_onnx(graph, path);
  Graph back = import_onnx(path);
  EXPECT_EQ(structural_hash(back), structural_hash(graph));
  EXPECT_EQ(print_graph(back), print_graph(graph));
  auto inputs = random_inputs(graph, 11);
  EXPECT_TRUE(execute(back, inputs)[0].same_content(execute(graph, inputs)[0]));
}

TEST(OnnxRoundTrip, BytesInMemoryImportAsTheirFileDoes) {
  Graph graph = weight_added("bytes", 16);
  std::string bytes = serialize_onnx(graph);
  std::string path = temp_path("bytes.onnx");
  export_onnx(graph, path);
  // Before: a file imported. After: the same bytes from memory, the same graph and weights.
  EXPECT_EQ(print_graph(import_onnx_bytes(bytes, "model 0")), print_graph(import_onnx(path)));
  EXPECT_EQ(testing::user_error_message([] { import_onnx_bytes("not protobuf", "model 2"); }),
            "model 2: model 2 is not a valid ONNX model (protobuf parsing failed); the file may be truncated or not an "
            "ONNX file");
}

// export_onnx and pet-opt stream the model into its file: the same bytes serialize_onnx gives, and
// a write the file refuses comes back as its errno (the staged file's message says it).
TEST(OnnxRoundTrip, WriteOnnxStreamsSerializeOnnxsBytesAndReturnsTheErrnoThatStopsIt) {
  Graph graph = weight_added("streamed", 4096);
  std::string path = temp_path("streamed.onnx");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(write_onnx(graph, fd), 0);
  ::close(fd);
  std::ifstream file(path, std::ios::binary);
  std::string written((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, serialize_onnx(graph));

  int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full < 0) GTEST_SKIP() << "no /dev/full here";
  EXPECT_EQ(write_onnx(graph, full), ENOSPC);
  ::close(full);
}

// serialize_onnx and write_onnx stream each large constant's values from the graph's tensor instead
// of copying them into a proto first: the bytes are still exactly export_onnx_proto's model
// serialized, for every kind of constant (f32 weights over and just under the 4 KiB from which
// values are streamed, an int64 one, ones stored as float16, ones a weight-free model leaves out)
// and whatever fields a model, a graph and a tensor carry around them.
TEST(OnnxRoundTrip, StreamedBytesAreThoseOfTheWholeProtoForEveryKindOfConstant) {
  std::vector<int64_t> indices(1024);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<int64_t>((i * 7) % 1024);
  Graph graph = parse_graph(fmt::format(R"(graph "kinds" opset 13 {{
    input %x : f32[2,1024]
    const %big : f32[1024] = random(3)
    const %under : f32[1023] = random(4)
    const %bias : f32[4] = [1,2,3,4]
    const %table : f32[1024,4] = random(5)
    const %index : i64[1024] = [{}]
    %a = Add(%x, %big)
    %s = Slice[ends=[2,1023], starts=[0,0], steps=[1,1]](%a)
    %u = Mul(%s, %under)
    %g = Gather[axis=0](%table, %index)
    %h = Add(%g, %bias)
    output %u
    output %h
  }})",
                                        fmt::join(indices, ",")));
  for (bool float16_weights : {false, true}) {
    graph.float16_weights = float16_weights;
    for (const ExportOptions& options : {ExportOptions{}, ExportOptions{.weight_free = true}}) {
      onnx::ModelProto whole;
      export_onnx_proto(graph, whole, options);
      SCOPED_TRACE(fmt::format("float16 weights {}, weight-free {}", float16_weights, options.weight_free));
      // Before: the whole proto serialized. After: the streamed bytes, the same.
      EXPECT_EQ(serialize_onnx(graph, options), whole.SerializeAsString());
    }
  }
}

// protobuf writes no message over 2 GiB: a model that would be larger as one file is a user error
// that says so and what to do, not a failed write (the limit lowered here to a test's size).
TEST(OnnxRoundTrip, AModelOverTheOneFileLimitIsRefusedWithWhatToDo) {
  Graph graph = weight_added("big", 4096);
  EXPECT_EQ(written_constant_bytes(graph), 4096u * 4);
  EXPECT_EQ(written_constant_bytes(graph, ExportOptions{.weight_free = true}), 0u) << "a weight-free model's weight";
  std::string message =
      testing::user_error_message([&] { serialize_onnx(graph, ExportOptions{.max_bytes = 8192}); });
  EXPECT_EQ(message.rfind("the model would be 0.00 GiB as one ONNX file, over protobuf's limit of 0.00 GiB for one "
                          "file; pet writes every weight inside the model and cannot write external data yet, so "
                          "optimize the model in parts below that size (onnx.utils.extract_model) and join the "
                          "written parts (onnx.compose.merge_models)",
                          0),
            0u)
      << message;
  EXPECT_NO_THROW(check_writable_size(written_constant_bytes(graph)));
  EXPECT_THROW(check_writable_size(kMaxOnnxFileBytes + 1), UserError);
}

TEST(OnnxRoundTrip, BytesInMemoryThatNameExternalDataAreRefused) {
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(serialize_onnx(parse_graph(R"(graph "external" opset 13 {
    input %x : f32[4]
    const %w : f32[4] = random(1)
    %y = Add(%x, %w)
    output %y
  })"))));
  onnx::TensorProto& weight = *model.mutable_graph()->mutable_initializer(0);
  weight.clear_raw_data();
  weight.set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* location = weight.add_external_data();
  location->set_key("location");
  location->set_value("../w.bin");
  EXPECT_EQ(testing::user_error_message([&] { import_onnx_bytes(model.SerializeAsString(), "model 1"); }),
            "model 1: it names external data, which a model given in memory has no folder for; put every weight "
            "inside the model (onnx.save_model(model, path, save_as_external_data=False))");
}

TEST(OnnxRoundTrip, AWeightFreeExportImportsAsItsWeightFreeTextWithTheWeightsFilled) {
  Graph graph = parse_graph(R"(graph "weights" opset 13 {
    input %x : f32[1,8,12,12]
    const %w : f32[16,8,3,3] = random(7, 0.2)
    const %b : f32[16] = random(8, 0.1)
    const %small : f32[1,16,1,1] = [0.5, 1, 2, 4, 0.5, 1, 2, 4, 0.5, 1, 2, 4, 0.5, 1, 2, 4]
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b)
    %s = Mul(%c, %small)
    %r = Reshape[shape=[1,2304]](%s)
    %y = Relu(%r)
    output %y
  })");
  std::string full = serialize_onnx(graph), weight_free = serialize_onnx(graph, {.weight_free = true});
  // Before: the weights' values travel. After: their shapes, seeds and scales; shapes and small
  // constants exact.
  EXPECT_LT(weight_free.size() * 5, full.size());
  Graph filled = import_onnx_bytes(weight_free, "model 0", ImportOptions::weights_filled());
  EXPECT_EQ(print_graph(filled), print_graph(parse_graph(print_graph(graph, PrintOptions{.weight_free = true}))));
  EXPECT_EQ(timing_hash(filled), timing_hash(import_onnx_bytes(full, "model 0")));  // times the same program
  // Without the fill a weight-free model is no model: its weights have no values.
  std::string refusal = testing::user_error_message([&] { import_onnx_bytes(weight_free, "model 1"); });
  EXPECT_TRUE(refusal.starts_with("model 1: ")) << refusal;
  // Metadata that names no initializer, or is no line of three fields, is refused by name.
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(weight_free));
  auto refusal_for = [&](const std::string& lines) {
    model.mutable_metadata_props(0)->set_value(lines);
    return testing::user_error_message([&] {
      import_onnx_bytes(model.SerializeAsString(), "model 2", ImportOptions::weights_filled());
    });
  };
  EXPECT_EQ(refusal_for("nothing\t1\t0.5\n"), "model 2: pet.random_weights names 'nothing', which is no initializer");
  EXPECT_EQ(refusal_for("w\t1\n"), "model 2: its pet.random_weights line 'w\t1' is not '<name> <seed> <scale>'");
}

// A worker imports every program of a model's search, which share most weights: each is drawn once.
TEST(OnnxRoundTrip, AWeightFreeImportDrawsEachWeightOnceAndFillsItAlikeAfter) {
  Graph graph = parse_graph(R"(graph "shared" opset 13 {
    input %x : f32[1,4,6,6]
    const %w : f32[8,4,3,3] = random(29, 0.3)
    const %v : f32[8,8,1,1] = random(30, 0.3)
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    %y = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%c, %v)
    output %y
  })");
  std::string weight_free = serialize_onnx(graph, {.weight_free = true});
  Graph first = import_onnx_bytes(weight_free, "model 0", ImportOptions::weights_filled());
  RandomWeightDraws before = random_weight_draws();
  Graph again = import_onnx_bytes(weight_free, "model 1", ImportOptions::weights_filled());
  RandomWeightDraws after = random_weight_draws();
  EXPECT_EQ(after.drawn - before.drawn, 0);  // before: both weights drawn; after: found drawn
  EXPECT_EQ(after.reused - before.reused, 2);
  EXPECT_EQ(print_graph(again), print_graph(first));
  forget_memos();  // drawn afresh, the same values
  Graph drawn_again = import_onnx_bytes(weight_free, "model 2", ImportOptions::weights_filled());
  EXPECT_EQ(print_graph(drawn_again), print_graph(first));
  EXPECT_EQ(random_weight_draws().drawn - after.drawn, 2);
}

// The names of a graph's outputs, in order, as ONNX lists them after export -> import.
std::vector<std::string> output_names(const Graph& graph) {
  std::vector<std::string> names;
  for (ValueId id : graph.outputs()) names.push_back(graph.value(id).name);
  return names;
}

Graph export_and_import(const Graph& graph, const std::string& file_name) {
  std::string path = temp_path(file_name);
  export_onnx(graph, path);
  return import_onnx(path);
}

TEST(OnnxRoundTrip, ConstantOutputKeepsItsName) {
  Graph graph = parse_graph(R"(graph "c" opset 13 {
    input %x : f32[2]
    const %k : f32[2] = [4,5]
    %y = Relu(%x)
    output %y
    output %k
  })");
  Graph back = export_and_import(graph, "constant_output.onnx");
  EXPECT_EQ(output_names(back), (std::vector<std::string>{"y", "k"}));  // before: y, k_out
  auto outputs = execute(back, {Tensor::f32({2}, {-1, 1})});
  EXPECT_EQ(std::vector<float>(outputs[1].f32().begin(), outputs[1].f32().end()), (std::vector<float>{4, 5}));
}

// Before: the second listing came back as y_out, an input listed as output as x_out.
TEST(OnnxRoundTrip, OutputInterfaceIsKeptExactly) {
  struct Case {
    std::string outputs_ir;
    std::vector<std::string> names;
  };
  for (const Case& c : std::vector<Case>{{"output %y\n output %y", {"y", "y"}},
                                          {"output %x", {"x"}},
                                          {"output %x\n output %y", {"x", "y"}},
                                          {"output %y\n output %x\n output %y\n output %x", {"y", "x", "y", "x"}},
                                          {"output %k\n output %y\n output %k", {"k", "y", "k"}}}) {
    Graph graph = parse_graph(R"(graph "io" opset 13 {
      input %x : f32[2]
      const %k : f32[2] = [4,5]
      %s = Add(%x, %k)
      %y = Relu(%s)
      )" + c.outputs_ir + "\n}");
    Graph back = export_and_import(graph, "interface.onnx");
    EXPECT_EQ(output_names(back), c.names) << c.outputs_ir;
    std::vector<Tensor> inputs = {Tensor::f32({2}, {-7, 1})};
    std::vector<Tensor> expected = execute(graph, inputs), actual = execute(back, inputs);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(actual[i].same_content(expected[i])) << c.outputs_ir << " #" << i;
    EXPECT_EQ(print_graph(export_and_import(back, "interface_again.onnx")), print_graph(back)) << c.outputs_ir;
  }
}

}  // namespace
}  // namespace pet
