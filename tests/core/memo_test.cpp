// Memo: answers are found again, a full table starts over, forget_memos() empties every live table.
#include "core/memo.h"

#include <gtest/gtest.h>

namespace pet {
namespace {

TEST(Memo, ARememberedAnswerIsFoundAndAnUnknownKeyIsNot) {
  Memo<int> memo(8);
  memo.remember("Conv f32[1,3,8,8]", 7);
  EXPECT_EQ(memo.find("Conv f32[1,3,8,8]"), 7);
  EXPECT_EQ(memo.find("Conv f32[1,3,8,9]"), std::nullopt);
}

TEST(Memo, AFullTableStartsOverSoItNeverHoldsMoreThanItsCapacity) {
  Memo<bool> memo(3);
  for (int i = 0; i < 3; ++i) memo.remember("key " + std::to_string(i), true);
  EXPECT_EQ(memo.size(), 3u);
  memo.remember("key 3", false);  // before: 3 answers held, the capacity
  EXPECT_EQ(memo.size(), 1u);     // after: only the newest
  EXPECT_EQ(memo.find("key 3"), false);
  EXPECT_EQ(memo.find("key 0"), std::nullopt);
}

TEST(Memo, AWeighedTableCountsItsCapacityInWhatItsAnswersWeigh) {
  Memo<std::string> memo(10, OnForget::Empty, [](const std::string& answer) { return answer.size(); });
  memo.remember("a", "four");
  memo.remember("b", "six...");
  EXPECT_EQ(memo.size(), 2u);  // before: 10 of 10 held
  memo.remember("c", "x");     // after: over the capacity, so only the newest
  EXPECT_EQ(memo.size(), 1u);
  EXPECT_EQ(memo.find("c"), "x");
  memo.remember("d", "eleven.....");  // heavier than the whole table: not kept, and the table starts over
  EXPECT_EQ(memo.find("d"), std::nullopt);
  EXPECT_EQ(memo.size(), 0u);
}

TEST(Memo, ForgetMemosEmptiesEveryLiveTableAndTheyFillAgain) {
  Memo<bool> first(16);
  Memo<double> second(16);
  first.remember("a", true);
  second.remember("b", 2.5);
  forget_memos();
  EXPECT_EQ(first.size(), 0u);
  EXPECT_EQ(second.size(), 0u);
  second.remember("b", 3.5);
  EXPECT_EQ(second.find("b"), 3.5);
}

TEST(Memo, ATableMadeToBeKeptOutlivesForgetMemos) {
  Memo<int> dear(4, OnForget::Keep);
  Memo<int> cheap(4);
  dear.remember("proof", 1);
  cheap.remember("verdict", 2);
  forget_memos();  // before: one answer in each; after: only the kept table still has its answer
  EXPECT_EQ(dear.find("proof"), 1);
  EXPECT_EQ(cheap.find("verdict"), std::nullopt);
}

TEST(Memo, ADestroyedTableIsNoLongerForgotten) {
  { Memo<int> gone(4); gone.remember("x", 1); }
  forget_memos();  // before: the registry held `gone`; after its destruction nothing dangles (ASan build)
  Memo<int> kept(4);
  kept.remember("y", 2);
  EXPECT_EQ(kept.find("y"), 2);
}

}  // namespace
}  // namespace pet
