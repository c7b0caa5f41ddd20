// The host budget's watch over the process's real memory (memory/host_memory.h): a reservation
// that the configured limit allows but the machine cannot hold fails with the budget's error
// instead of leaving the process to the kernel's out-of-memory killer, and the resident figures
// --timing reports follow what the process touches.
#include "tandem/memory/host_memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace tandem {
namespace {

TEST(HostMemory, ReservationPastTheMachineFailsEvenUnderAHigherLimit) {
  const int64_t machine = host_memory::MachineBytes();
  ASSERT_GT(machine, 0);
  host_memory::SetLimit(machine * 4);
  const int64_t before = host_memory::InUse();
  std::string message;
  try {
    host_memory::Reserve(machine);
    host_memory::Release(machine);
  } catch (const MemoryLimitExceeded& e) {
    message = e.what();
  }
  host_memory::SetLimit(0);
  EXPECT_NE(message.find("host memory nearly exhausted"), std::string::npos) << message;
  EXPECT_EQ(host_memory::InUse(), before);  // nothing stays counted
}

TEST(HostMemory, ReservationsWithinTheMachinePass) {
  host_memory::SetLimit(0);
  const int64_t bytes = int64_t{300} << 20;  // past the check interval, far below any machine
  host_memory::Reserve(bytes);
  host_memory::Release(bytes);
}

TEST(HostMemory, ResidentPeakFollowsTouchedMemory) {
  host_memory::ResetResidentPeak();
  const int64_t start = host_memory::ResidentBytes();
  ASSERT_GT(start, 0);
  const size_t bytes = size_t{64} << 20;
  std::vector<char> touched(bytes);
  std::memset(touched.data(), 1, bytes);
  EXPECT_GE(host_memory::ResidentPeak(), start + static_cast<int64_t>(bytes) / 2);
  EXPECT_GE(host_memory::ResidentBytes(), start + static_cast<int64_t>(bytes) / 2);
  EXPECT_EQ(touched[bytes - 1], 1);
}

}  // namespace
}  // namespace tandem
