// The physical floor: the dense FLOPs a model does, the CPU's peak measured once and kept in the
// profile DB (replayed as it was recorded), and nothing for an analytic target or an empty replay.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "kernels/runtime/cpu_peak.h"
#include "kernels/runtime/ort_runtime.h"
#include "kernels/runtime/runtime.h"
#include "search/cost/cost_model.h"
#include "search/cost/physical_floor.h"

namespace pet::testing {
namespace {

TEST(PhysicalFloor, DenseFlopsCountConvsAndMatMulsTwicePerMultiplyAddAndNothingElse) {
  Graph graph = parse_graph(R"(graph "dense" opset 13 {
    input %x : f32[1,4,6,6]
    const %w : f32[8,4,3,3] = random(1)
    const %m : f32[6,5] = random(2)
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,8,6,6]
    %r = Relu(%c) : f32[1,8,6,6]
    %y = MatMul(%r, %m) : f32[1,8,6,5]
    output %y
  })");
  const double conv = 2.0 * (8 * 6 * 6) * (4 * 3 * 3);  // each output element: 36 multiply-adds
  const double matmul = 2.0 * (8 * 6 * 5) * 6;           // each output element: 6 multiply-adds
  EXPECT_DOUBLE_EQ(cost::dense_flops(graph), conv + matmul);
}

TEST(PhysicalFloor, TheFloat32PeakIsPositiveWhereTheCpuHasVectorFmaAndBf16IsChosenOnlyWhereMeasured) {
  runtime::CpuPeak peak = runtime::measure_cpu_peak(1, 1, 1000);
  if (peak.isa == "none") GTEST_SKIP() << "no AVX2 or AVX-512 FMA on this CPU";
  EXPECT_GT(peak.fp32_gflops, 0);
  EXPECT_EQ(runtime::peak_in_precision(peak, "f32").second, "float32 FMA peak");
  runtime::CpuPeak without_bf16{"avx2", 50, 0};
  EXPECT_EQ(runtime::peak_in_precision(without_bf16, "bf16"), std::make_pair(50.0, std::string("float32 FMA peak")));
  runtime::CpuPeak with_bf16{"avx512f", 50, 100};
  EXPECT_EQ(runtime::peak_in_precision(with_bf16, "bf16"), std::make_pair(100.0, std::string("bf16 dot-product peak")));
}

TEST(PhysicalFloor, ThePeakIsMeasuredOnceRecordedInTheDbAndReplayedAsRecorded) {
  std::unique_ptr<runtime::Runtime> ort = runtime::open_ort_runtime();
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, ort->version(), runtime::cpu_model()};
  measurement.picks_correction_lowering = true;
  measurement.runtime = ort.get();
  cost::CostModel measured(cost::load_cpu_fallback(), {}, measurement);
  std::optional<cost::PeakRate> first = cost::peak_rate(measured);
  if (!first) GTEST_SKIP() << "no vector FMA pet can measure on this CPU";
  EXPECT_GT(first->gflops, 0);
  EXPECT_EQ(first->source, cost::CostSource::measured);
  EXPECT_EQ(cost::peak_rate(measured)->source, cost::CostSource::replayed) << "measured once per target";

  measurement.runtime = nullptr;
  cost::CostModel replayed(cost::load_cpu_fallback(), measured.profile(), measurement);
  std::optional<cost::PeakRate> again = cost::peak_rate(replayed);
  ASSERT_TRUE(again);
  EXPECT_DOUBLE_EQ(again->gflops, first->gflops);
  EXPECT_EQ(again->what, first->what);
}

// A peak recorded under load reads low: a measuring run replaces it with its own larger reading,
// and keeps a recorded peak its reading does not beat.
TEST(PhysicalFloor, AMeasuringRunKeepsTheLargerOfTheRecordedPeakAndItsOwnReading) {
  std::unique_ptr<runtime::Runtime> ort = runtime::open_ort_runtime();
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, ort->version(), runtime::cpu_model()};
  measurement.picks_correction_lowering = true;
  measurement.runtime = ort.get();
  auto recorded_at = [&](double gflops) {
    cost::ProfileDb db;
    db.add({.key = "@cpu-peak: 1 GFLOP at the arithmetic peak", .device = measurement.target.db_device(),
            .microseconds = 1e6 / gflops, .method = "float32 FMA peak (recorded)", .libraries = ort->version(),
            .date = "2026-01-01", .spread_us = 0, .runs = 3});
    return db;
  };
  cost::CostModel low(cost::load_cpu_fallback(), recorded_at(0.001), measurement);
  std::optional<cost::PeakRate> fresh = cost::peak_rate(low);
  if (!fresh) GTEST_SKIP() << "no vector FMA pet can measure on this CPU";
  EXPECT_EQ(fresh->source, cost::CostSource::measured) << "0.001 GFLOP/s recorded -> this run's reading";
  EXPECT_GT(fresh->gflops, 0.001);
  EXPECT_DOUBLE_EQ(cost::peak_rate(low)->gflops, fresh->gflops) << "the reading is what the DB now holds";

  cost::CostModel high(cost::load_cpu_fallback(), recorded_at(1e9), measurement);
  std::optional<cost::PeakRate> kept = cost::peak_rate(high);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->source, cost::CostSource::replayed) << "1e9 GFLOP/s recorded -> kept";
  EXPECT_DOUBLE_EQ(kept->gflops, 1e9);
  EXPECT_EQ(kept->what, "float32 FMA peak (recorded)");
}

TEST(PhysicalFloor, AnEmptyReplayOrAnAnalyticTargetHasNoFloor) {
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  measurement.picks_correction_lowering = true;
  EXPECT_FALSE(cost::peak_rate(cost::CostModel(cost::load_cpu_fallback(), {}, measurement)));
  EXPECT_FALSE(cost::peak_rate(cost::CostModel(cost::load_cpu_fallback())));
}

TEST(PhysicalFloor, TheHeadroomIsWhatIsLeftBelowThePeakAndNothingAboveIt) {
  EXPECT_EQ(cost::floor_headroom(0.85), "a rewrite that keeps the FLOPs can gain at most 1.18x over the written model");
  // The CSRNet back end at batch 16 ran at 113 % of the bf16 peak in OpenVINO: no bound to state.
  EXPECT_EQ(cost::floor_headroom(1.131),
            "faster than the peak allows for these FLOPs: either the runtime computes them with fewer "
            "multiplies (a Winograd-like algorithm) or the recorded peak is low (measured under load), so the "
            "floor bounds no rewrite here");
}

}  // namespace
}  // namespace pet::testing
