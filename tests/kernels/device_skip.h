// Tests that need a GPU skip with the reason on machines without one; a CUDA failure on a machine
// that has one fails instead.
#pragma once

#include <gtest/gtest.h>

#include "kernels/devices.h"

#define PET_SKIP_WITHOUT_DEVICE(report)                                                  \
  ASSERT_NE((report).status.outcome, CudaOutcome::failed) << (report).status.message; \
  if (!(report).status.ok()) GTEST_SKIP() << "no CUDA device here: " << (report).status.message
