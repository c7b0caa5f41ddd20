// tandem.test.injectOom (see oom_injection.h).
#include "tandem/common/oom_injection.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "tandem/common/text.h"

namespace tandem {
namespace {

struct InjectionState {
  std::mutex mu;
  OomInjection armed;
  int64_t allocations = 0;
  uint64_t rng = 1;
  std::atomic<bool> active{false};
  std::atomic<int64_t> injected{0};
};

constexpr int64_t kMaxHostFailures = 2;

InjectionState& State(OomTarget target) {
  static InjectionState device, host;
  return target == OomTarget::kDevice ? device : host;
}

// splitmix64: a small, well-mixed generator; enough to pick which allocations fail.
uint64_t Next(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Result<uint64_t> ParsePositive(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || n == 0) {
    return Status::Invalid("bad number");
  }
  return static_cast<uint64_t>(n);
}

}  // namespace

Result<OomInjection> ParseOomInjection(const std::string& value) {
  const std::string v = AsciiLower(value);
  OomInjection out;
  if (v.empty() || v == "off" || v == "false" || v == "0") return out;
  if (v == "random" || v.rfind("random:", 0) == 0) {
    out.mode = OomInjection::Mode::kRandom;
    if (v != "random") {
      Result<uint64_t> seed = ParsePositive(v.substr(7));
      if (!seed.ok()) {
        return Status::Invalid(
            "setting tandem.test.injectOom: the seed after 'random:' must be "
            "a positive integer, got '" +
            value + "'");
      }
      out.seed = *seed;
    }
    return out;
  }
  Result<uint64_t> n = ParsePositive(v);
  if (!n.ok() || *n > static_cast<uint64_t>(INT64_MAX)) {
    return Status::Invalid(
        "setting tandem.test.injectOom takes off, a positive integer N (the "
        "Nth GPU allocation of each statement fails), random or random:SEED, "
        "got '" +
        value + "'");
  }
  out.mode = OomInjection::Mode::kNth;
  out.nth = static_cast<int64_t>(*n);
  return out;
}

std::string OomInjectionText(const OomInjection& injection) {
  switch (injection.mode) {
    case OomInjection::Mode::kOff:
      return "off";
    case OomInjection::Mode::kNth:
      return std::to_string(injection.nth);
    case OomInjection::Mode::kRandom:
      return "random:" + std::to_string(injection.seed);
  }
  return "off";
}

void ArmOomInjection(const OomInjection& injection, OomTarget target) {
  InjectionState& s = State(target);
  std::lock_guard<std::mutex> lock(s.mu);
  s.armed = injection;
  s.allocations = 0;
  s.rng = injection.seed;
  s.injected.store(0);
  s.active.store(injection.mode != OomInjection::Mode::kOff, std::memory_order_release);
}

bool ShouldInjectOom(OomTarget target) {
  InjectionState& s = State(target);
  if (!s.active.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(s.mu);
  const int64_t index = ++s.allocations;
  bool fail = false;
  if (s.armed.mode == OomInjection::Mode::kNth) {
    fail = index == s.armed.nth;
  } else if (s.armed.mode == OomInjection::Mode::kRandom) {
    // The host's allocations are many and small: one in 256 fails, and at most two a query,
    // so that an operator's retries can always get through.
    fail = target == OomTarget::kDevice
               ? Next(&s.rng) % 8 == 0
               : Next(&s.rng) % 256 == 0 && s.injected.load() < kMaxHostFailures;
  }
  if (fail) s.injected.fetch_add(1);
  return fail;
}

int64_t InjectedOomCount(OomTarget target) { return State(target).injected.load(); }

}  // namespace tandem
