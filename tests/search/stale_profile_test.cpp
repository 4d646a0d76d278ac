// The stale-profile warning: a run that timed its candidates now, whose prediction for the cleaned
// input rests mostly on replayed kernel groups and misses its measured time by half or more, says
// so and how to measure afresh; a fresh DB, a replay or a close prediction says nothing.
#include <gtest/gtest.h>

#include "search/pipeline.h"

namespace pet {
namespace {

// The 255 ms OpenVINO run of ResNet-18 b16 whose DB, recorded under load, predicted 539 ms.
TargetReport replayed_report(double calibration_error) {
  TargetReport report;
  report.profile_db = "/tmp/db.json";
  report.sources = {.measured = 0, .replayed = 452, .estimated = 0, .measuring_seconds = 0};
  report.selection.source = SelectionSource::measured;
  report.calibrated = true;
  report.calibration_error = calibration_error;
  return report;
}

TEST(StaleProfile, AStoredPredictionTwiceTheMeasuredTimeSaysHowToMeasureAfresh) {
  std::string note = stale_profile_note(replayed_report(1.112));
  EXPECT_NE(note.find("2.11x slower than it runs now (452 of 452 kernel groups replayed)"), std::string::npos) << note;
  EXPECT_NE(note.find("give a new --profile-db FILE, or --remeasure to time this model's groups again into /tmp/db.json"), std::string::npos) << note;
}

TEST(StaleProfile, APredictionHalfTheMeasuredTimeIsStaleToo) {
  std::string note = stale_profile_note(replayed_report(-0.5));
  EXPECT_NE(note.find("2.00x faster than it runs now"), std::string::npos) << note;
}

TEST(StaleProfile, AClosePredictionAFreshDbOrAReplaySayNothing) {
  EXPECT_EQ(stale_profile_note(replayed_report(0.49)), "") << "within half: the runtime's fusions, not staleness";
  TargetReport fresh = replayed_report(1.112);
  fresh.sources = {.measured = 300, .replayed = 152, .estimated = 0, .measuring_seconds = 40};
  EXPECT_EQ(stale_profile_note(fresh), "") << "measured now: not stale";
  TargetReport replay = replayed_report(1.112);
  replay.selection.source = SelectionSource::replayed;
  EXPECT_EQ(stale_profile_note(replay), "") << "--replay times nothing now";
  TargetReport uncalibrated = replayed_report(1.112);
  uncalibrated.calibrated = false;
  EXPECT_EQ(stale_profile_note(uncalibrated), "");
}

}  // namespace
}  // namespace pet
