// ProgressBar frames: bar fill, percent cap and rate units; silent when disabled.
#include <gtest/gtest.h>

#include "tandem/common/progress_bar.h"

namespace tandem {

TEST(TpchProgressBar, RendersBarPercentAndRate) {
  EXPECT_EQ(ProgressBar::Render("lineitem", 52, 100, 3.1e6, "rows", 10),
            "lineitem  [#####     ]  52%  3.1M rows/s");
  EXPECT_EQ(ProgressBar::Render("x", 0, 100, 12, "rows", 4), "x  [    ]   0%  12 rows/s");
  EXPECT_EQ(ProgressBar::Render("x", 150, 100, 2500, "rows", 4), "x  [####] 100%  2.5K rows/s");
}

TEST(TpchProgressBar, DisabledBarCountsButDoesNotDraw) {
  testing::internal::CaptureStderr();
  {
    ProgressBar bar("t", 10, "rows", false);
    bar.Advance(4);
    bar.Advance(6);
    EXPECT_EQ(bar.done(), 10);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace tandem
