// The harness's report: rows in, exact markdown and CSV out and chart data (estimated and measured
// targets); speedups; transformation families.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/harness_charts.h"
#include "bench/harness_report.h"

namespace pet::bench {
namespace {

HarnessRow run(Mode mode, double cost_us, double seconds, const std::string& stop) {
  HarnessRow row;
  row.model = "resnet18";
  row.batch = 1;
  row.mode = mode;
  row.cost_original_us = 1000;
  row.cost_us = cost_us;
  row.search_seconds = seconds;
  row.stop_reason = stop;
  return row;
}

// none, taso, pet and a failed pet-neq-only run of one model, and one model skipped.
HarnessTable sample_table() {
  HarnessTable table;
  table.target = "h100";
  table.device = "h100 (estimated)";
  table.beam = 8;
  table.time_limit_s = 60;
  table.seed = 2026;
  table.modes = {Mode::none, Mode::taso, Mode::pet, Mode::pet_neq_only};
  table.rows.push_back(run(Mode::none, 1000, 0, "no-search"));
  HarnessRow taso = run(Mode::taso, 800, 1.5, "converged");
  taso.transformations = 2;
  taso.by_evidence = {{EvidenceKind::z3_proof, 2}};
  taso.by_family = count_families({"rule:conv-add", "rule:conv-add"});
  table.rows.push_back(taso);
  HarnessRow pet = run(Mode::pet, 625, 3.25, "time-limit");
  pet.transformations = 5;
  pet.by_evidence = {
      {EvidenceKind::z3_proof, 2}, {EvidenceKind::random_test, 1}, {EvidenceKind::partial_correction, 2}};
  pet.by_family = count_families({"rule:conv-add", "mutant:b", "rule:conv-add", "mutant:c|d", "mutant:a"});
  pet.check_max_abs_error = 1.5e-5;
  table.rows.push_back(pet);
  HarnessRow failed;
  failed.model = "resnet18";
  failed.batch = 1;
  failed.mode = Mode::pet_neq_only;
  failed.error = "rule library \"x\" missing, see docs | here";
  table.rows.push_back(failed);
  table.skipped.push_back({"bert_s512", 16, "missing /m/bert_s512_b16/model.onnx"});
  return table;
}

TEST(HarnessReport, MarkdownTable) {
  EXPECT_EQ(harness_markdown(sample_table()),
            "# pet harness: h100 (estimated)\n"
            "\n"
            "Beam 8, search time limit 60 s, seed 2026. Costs are the cost model's estimates in microseconds; "
            "speedups divide the costs of the same model and batch. The search time column is wall clock; the "
            "rest is deterministic for searches that stop before their time limit.\n"
            "\n"
            "| model | batch | mode | est. cost (us) | vs none | vs taso | search (s) | stop reason | "
            "transformations | z3-proof | random-test | partial+correction | top families | check max abs error | "
            "measured GPU (ms) |\n"
            "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---|\n"
            "| resnet18 | 1 | none | 1000.0 | 1.000x | 0.800x | 0.00 | no-search | 0 | 0 | 0 | 0 | - | 0.00e+00 | "
            "n/a (no GPU runtime yet) |\n"
            "| resnet18 | 1 | taso | 800.0 | 1.250x | 1.000x | 1.50 | converged | 2 | 2 | 0 | 0 | rule:conv-add (2) | "
            "0.00e+00 | n/a (no GPU runtime yet) |\n"
            "| resnet18 | 1 | pet | 625.0 | 1.600x | 1.280x | 3.25 | time-limit | 5 | 2 | 1 | 2 | "
            "rule:conv-add (2), mutant:a (1), mutant:b (1), +1 more | 1.50e-05 | n/a (no GPU runtime yet) |\n"
            "| resnet18 | 1 | pet-neq-only | error: rule library \"x\" missing, see docs \\| here "
            "| | | | | | | | | | | |\n"
            "\n"
            "## Skipped\n"
            "\n"
            "- bert_s512 batch 16: missing /m/bert_s512_b16/model.onnx\n");
}

TEST(HarnessReport, MarkdownMarksFailedChecksAndMeasuredTimes) {
  HarnessTable table = sample_table();
  table.rows.resize(1);
  table.skipped.clear();
  table.rows[0].check_passed = false;
  table.rows[0].check_max_abs_error = 0.25;
  table.rows[0].measured_ms = 1.2345;
  std::string text = harness_markdown(table);
  EXPECT_NE(text.find("| - | 2.50e-01 (FAILED) | 1.234 |\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("## Skipped"), std::string::npos);
}

TEST(HarnessReport, Csv) {
  EXPECT_EQ(harness_csv(sample_table()),
            "model,batch,mode,status,cost_original_us,cost_us,speedup_vs_none,speedup_vs_taso,search_s,stop_reason,"
            "transformations,z3_proof,random_test,partial_correction,families,check_passed,check_max_abs_error,"
            "measured_gpu_ms\n"
            "resnet18,1,none,ok,1000.000,1000.000,1.0000,0.8000,0.000,no-search,0,0,0,0,,true,0.000e+00,\n"
            "resnet18,1,taso,ok,1000.000,800.000,1.2500,1.0000,1.500,converged,2,2,0,0,rule:conv-add=2,true,"
            "0.000e+00,\n"
            "resnet18,1,pet,ok,1000.000,625.000,1.6000,1.2800,3.250,time-limit,5,2,1,2,"
            "rule:conv-add=2;mutant:a=1;mutant:b=1;mutant:c|d=1,true,1.500e-05,\n"
            "resnet18,1,pet-neq-only,\"error: rule library \"\"x\"\" missing, see docs | here\",,,,,,,,,,,,,,\n");
}

MeasuredRun timed(const std::string& source, Latency input, Latency written, const std::string& chosen) {
  MeasuredRun run;
  run.source = source;
  run.input = input;
  run.written = written;
  run.chosen = chosen;
  return run;
}

// ort-cpu: resnet18 in none (the cleaned input written), pet (a program) and a failed pet-neq-only,
// then bert_s128 in pet from a replayed profile DB.
HarnessTable measured_table() {
  HarnessTable table;
  table.target = "ort-cpu";
  table.device = "ort-cpu (onnxruntime 1.32.0, 1 thread, AMD EPYC)";
  table.measured = true;
  table.beam = 8;
  table.time_limit_s = 60;
  table.seed = 2026;
  table.select_runs = 10;
  table.modes = {Mode::none, Mode::pet, Mode::pet_neq_only};
  HarnessRow none = run(Mode::none, 950, 0, "no-search");
  none.measured_run = timed("measured", {1000, 1200, 10}, {950, 1150, 8}, "cleaned");
  none.measured_run->calibration_error = 950.0 / 1150 - 1;
  none.measured_run->kernels_measured = 12;
  none.measured_run->measuring_seconds = 4.5;
  table.rows.push_back(none);
  HarnessRow pet = run(Mode::pet, 700, 12.5, "converged");
  pet.transformations = 4;
  pet.check_max_abs_error = 2e-6;
  pet.measured_run = timed("measured", {1000, 1210, 12}, {700, 880, 9.5}, "program 1");
  pet.measured_run->calibration_error = 950.0 / 1160 - 1;
  pet.measured_run->kernels_measured = 30;
  pet.measured_run->kernels_replayed = 12;
  pet.measured_run->measuring_seconds = 20.25;
  table.rows.push_back(pet);
  HarnessRow failed = run(Mode::pet_neq_only, 0, 0, "");
  failed.error = "boom";
  table.rows.push_back(failed);
  HarnessRow bert = run(Mode::pet, 1500, 30, "time-limit");
  bert.model = "bert_s128";
  bert.transformations = 2;
  bert.measured_run = timed("replayed", {2100, 2000, 40}, {1500, 1600, 25}, "program 2");
  bert.measured_run->kernels_replayed = 25;
  table.rows.push_back(bert);
  return table;
}

TEST(HarnessReport, MeasuredMarkdownTable) {
  EXPECT_EQ(harness_markdown(measured_table()),
            "# pet harness: ort-cpu (onnxruntime 1.32.0, 1 thread, AMD EPYC)\n"
            "\n"
            "Beam 8, search time limit 60 s, seed 2026, 10 timed rounds per selection. Times are end-to-end medians "
            "± half the interquartile range in microseconds, of the input model and of the model written, timed "
            "interleaved in the runtime; the measured speedup divides the two, the predicted speedup divides the "
            "cost model's estimates of the same two, and the calibration error is the estimate of the cleaned input "
            "over its measured time, minus one. Times vary from run to run; compare ratios within one run.\n"
            "\n"
            "| model | batch | mode | input (us) | written (us) | measured speedup | chosen | predicted speedup | "
            "calibration error | transformations | search (s) | check max abs error |\n"
            "|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n"
            "| resnet18 | 1 | none | 1200.0 ± 10.0 | 1150.0 ± 8.0 | 1.043x | cleaned | 1.053x | -17.4% | 0 | 0.00 | "
            "0.00e+00 |\n"
            "| resnet18 | 1 | pet | 1210.0 ± 12.0 | 880.0 ± 9.5 | 1.375x | program 1 | 1.429x | -18.1% | 4 | 12.50 | "
            "2.00e-06 |\n"
            "| resnet18 | 1 | pet-neq-only | error: boom | | | | | | | | |\n"
            "| bert_s128 | 1 | pet | 2000.0 ± 40.0 | 1600.0 ± 25.0 | 1.250x | program 2 (replayed) | 1.400x | n/a | "
            "2 | 30.00 | 0.00e+00 |\n"
            "\n"
            "- geometric mean of measured speedups, mode none: 1.043x over 1 run\n"
            "- geometric mean of measured speedups, mode pet: 1.311x over 2 runs\n"
            "- kernel-group costs over all runs: 42 measured, 37 replayed from the profile DB, 0 estimated; "
            "24.8 s measuring\n");
}

TEST(HarnessReport, MeasuredCsv) {
  EXPECT_EQ(harness_csv(measured_table()),
            "model,batch,mode,status,selection,input_us,input_spread_us,written_us,written_spread_us,"
            "measured_speedup,chosen,input_predicted_us,written_predicted_us,predicted_speedup,calibration_error,"
            "transformations,search_s,stop_reason,check_passed,check_max_abs_error,kernels_measured,"
            "kernels_replayed,kernels_estimated,measuring_s\n"
            "resnet18,1,none,ok,measured,1200.000,10.000,1150.000,8.000,1.0435,cleaned,1000.000,950.000,1.0526,"
            "-0.1739,0,0.000,no-search,true,0.000e+00,12,0,0,4.500\n"
            "resnet18,1,pet,ok,measured,1210.000,12.000,880.000,9.500,1.3750,program 1,1000.000,700.000,1.4286,"
            "-0.1810,4,12.500,converged,true,2.000e-06,30,12,0,20.250\n"
            "resnet18,1,pet-neq-only,error: boom,,,,,,,,,,,,,,,,,,,,\n"
            "bert_s128,1,pet,ok,replayed,2000.000,40.000,1600.000,25.000,1.2500,program 2,2100.000,1500.000,1.4000,"
            ",2,30.000,time-limit,true,0.000e+00,0,25,0,0.000\n");
}

// A replayed DB without end-to-end times: the selection went by prediction, nothing was timed.
TEST(HarnessReport, MeasuredTargetChosenByPrediction) {
  HarnessTable table = measured_table();
  table.rows.resize(1);
  table.rows[0].measured_run = timed("estimated", {1000, 0, 0}, {950, 0, 0}, "cleaned");
  EXPECT_FALSE(measured_speedup(table.rows[0]));
  EXPECT_DOUBLE_EQ(*predicted_speedup(table.rows[0]), 1000.0 / 950);
  std::string text = harness_markdown(table);
  EXPECT_NE(text.find("| resnet18 | 1 | none | n/a | n/a | n/a | cleaned (by prediction) | 1.053x | n/a | 0 | "),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("geometric mean"), std::string::npos) << text;
  EXPECT_NE(harness_csv(table).find("resnet18,1,none,ok,estimated,,,,,,cleaned,1000.000,950.000,1.0526,,"),
            std::string::npos);
}

TEST(HarnessReport, GeometricMeanOfMeasuredSpeedups) {
  HarnessTable table = measured_table();
  auto [pet, pet_runs] = geometric_mean_measured_speedup(table, Mode::pet);
  EXPECT_DOUBLE_EQ(*pet, std::sqrt(1210.0 / 880 * (2000.0 / 1600)));
  EXPECT_EQ(pet_runs, 2);
  auto [neq, neq_runs] = geometric_mean_measured_speedup(table, Mode::pet_neq_only);  // its one run failed
  EXPECT_FALSE(neq);
  EXPECT_EQ(neq_runs, 0);
  EXPECT_FALSE(geometric_mean_measured_speedup(sample_table(), Mode::pet).first);  // estimated: nothing measured
}

TEST(HarnessReport, TitleFallsBackToTheTargetBeforeAnyRunFinishes) {
  HarnessTable table;
  table.target = "h100";
  EXPECT_EQ(target_title(table), "h100 (estimated)");
  table.target = "ort-cpu";
  table.measured = true;
  EXPECT_EQ(target_title(table), "ort-cpu");
  EXPECT_EQ(harness_markdown(table).substr(0, 26), "# pet harness: ort-cpu\n\nBe");
}

TEST(HarnessCharts, MeasuredTargetChartsTheMeasuredSpeedupPerMode) {
  BarChart chart = speedup_chart(measured_table());
  EXPECT_EQ(chart.title, "Measured speedup over the input on ort-cpu (higher is better)");
  EXPECT_EQ(chart.series, (std::vector<std::string>{"none", "pet", "pet-neq-only"}));
  ASSERT_EQ(chart.groups.size(), 2u);
  EXPECT_EQ(chart.groups[0].label, "resnet18\nb1");
  EXPECT_EQ(chart.groups[0].values, (std::vector<std::optional<double>>{1200.0 / 1150, 1210.0 / 880, std::nullopt}));
  EXPECT_EQ(chart.groups[1].values, (std::vector<std::optional<double>>{std::nullopt, 2000.0 / 1600, std::nullopt}));
  EXPECT_EQ(cost_chart(measured_table()).title, "Predicted cost on ort-cpu, relative to none (lower is better)");
  EXPECT_EQ(speedup_chart(sample_table()).title, "Speedup of pet, estimated on h100 (higher is better)");
  EXPECT_EQ(cost_chart(sample_table()).title, "Estimated cost on h100, relative to none (lower is better)");
}

TEST(HarnessReport, CsvQuoting) {
  EXPECT_EQ(csv_field("resnet18"), "resnet18");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field("a;b|c"), "a;b|c");
}

TEST(HarnessReport, SpeedupArithmetic) {
  EXPECT_DOUBLE_EQ(*speedup(1000, 625), 1.6);
  EXPECT_DOUBLE_EQ(*speedup(3, 4), 0.75);
  EXPECT_FALSE(speedup(0, 5));
  EXPECT_FALSE(speedup(5, 0));
  EXPECT_FALSE(speedup(-1, 5));

  HarnessTable table = sample_table();
  const HarnessRow& pet = table.rows[2];
  EXPECT_DOUBLE_EQ(*speedup_vs_none(table, pet), 1.6);
  EXPECT_DOUBLE_EQ(*speedup_vs_taso(table, pet), 1.28);
  EXPECT_FALSE(speedup_vs_none(table, table.rows[3]));  // the failed run

  // Without a none run, the row's own unoptimized cost is the baseline; without taso, no ratio.
  table.rows.erase(table.rows.begin(), table.rows.begin() + 2);
  EXPECT_DOUBLE_EQ(*speedup_vs_none(table, table.rows[0]), 1.6);
  EXPECT_FALSE(speedup_vs_taso(table, table.rows[0]));

  // A failed taso run is no baseline either.
  HarnessTable failed_taso = sample_table();
  failed_taso.rows[1].error = "boom";
  EXPECT_FALSE(speedup_vs_taso(failed_taso, failed_taso.rows[2]));
}

TEST(HarnessReport, TransformationFamilies) {
  EXPECT_EQ(transformation_family("rule", "scalar-mul-conv-concat-0-to-concat-0-conv-scalar-mul-007512"),
            "rule:scalar-mul-conv-concat");
  EXPECT_EQ(transformation_family("rule", "add-add-conv-to-add-add-conv-01221b"), "rule:add-add-conv");
  EXPECT_EQ(transformation_family("rule", "fuse-12"), "rule:fuse");
  EXPECT_EQ(transformation_family("mutant", "conv+batch-to-axis ; split"), "mutant:conv+batch-to-axis ; split");
}

TEST(HarnessReport, FamiliesCountMostFrequentFirstThenByName) {
  std::vector<std::pair<std::string, int>> expected = {{"b", 3}, {"a", 1}, {"c", 1}};
  EXPECT_EQ(count_families({"c", "b", "a", "b", "b"}), expected);
  EXPECT_TRUE(count_families({}).empty());
}

}  // namespace
}  // namespace pet::bench
