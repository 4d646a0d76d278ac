// The harness's report: rows in, exact markdown and CSV out; speedups; transformation families.
#include <gtest/gtest.h>

#include "bench/harness_report.h"

namespace pet::bench {
namespace {

HarnessRow run(const std::string& mode, double cost_us, double seconds, const std::string& stop) {
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
  table.device = "h100";
  table.beam = 8;
  table.time_limit_s = 60;
  table.seed = 2026;
  table.modes = {"none", "taso", "pet", "pet-neq-only"};
  table.rows.push_back(run("none", 1000, 0, "no-search"));
  HarnessRow taso = run("taso", 800, 1.5, "converged");
  taso.transformations = 2;
  taso.by_evidence = {{"z3-proof", 2}};
  taso.by_family = count_families({"rule:conv-add", "rule:conv-add"});
  table.rows.push_back(taso);
  HarnessRow pet = run("pet", 625, 3.25, "time-limit");
  pet.transformations = 5;
  pet.by_evidence = {{"z3-proof", 2}, {"random-test", 1}, {"partial+correction", 2}};
  pet.by_family = count_families({"rule:conv-add", "mutant:b", "rule:conv-add", "mutant:c|d", "mutant:a"});
  pet.check_max_abs_error = 1.5e-5;
  table.rows.push_back(pet);
  HarnessRow failed;
  failed.model = "resnet18";
  failed.batch = 1;
  failed.mode = "pet-neq-only";
  failed.error = "rule library \"x\" missing, see docs | here";
  table.rows.push_back(failed);
  table.skipped.push_back({"bert_s512", 16, "missing /m/bert_s512_b16/model.onnx"});
  return table;
}

TEST(HarnessReport, MarkdownTable) {
  EXPECT_EQ(harness_markdown(sample_table()),
            "# pet harness: estimated cost on h100\n"
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
