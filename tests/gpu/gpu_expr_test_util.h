// Shared helpers of the GPU expression and filter/project tests: a random batch with every
// column type (NULLs, NaN, -0.0, infinities, extremes, UTF-8 text) and a comparison of a CPU
// column with a GPU result brought back to the host.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "tandem/column/batch.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"

namespace tandem::test_util {

// Columns: 0 i32, 1 i64, 2 f64, 3 dec(15,2), 4 dec(30,4), 5 string, 6 date, 7 timestamp, 8 bool,
// 9 i8, 10 f32, 11 i64 small (0..9, for divisors and digits), 12 string pattern-ish.
inline BatchPtr RandomBatch(int64_t n, uint32_t seed, double null_rate = 0.1) {
  std::mt19937_64 rng(seed);
  auto coin = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const DataType types[] = {
      DataType::Int32(),        DataType::Int64(),  DataType::Float64(), DataType::Decimal(15, 2),
      DataType::Decimal(30, 4), DataType::String(), DataType::Date32(),  DataType::Timestamp(false),
      DataType::Bool(),         DataType::Int8(),   DataType::Float32(), DataType::Int64(),
      DataType::String()};
  static const char* const kWords[] = {"",
                                       "a",
                                       "abc",
                                       "ABC",
                                       "PROMO box",
                                       "  padded  ",
                                       "caf\xc3\xa9",
                                       "\xc3\x89T\xc3\x89",
                                       "x%y_z",
                                       "hello world",
                                       "\xe6\x97\xa5\xe6\x9c\xac",
                                       "special requests"};
  auto batch = std::make_shared<Batch>();
  batch->num_rows = n;
  int idx = 0;
  for (const DataType& t : types) {
    ColumnBuilder b(t, n);
    for (int64_t i = 0; i < n; ++i) {
      if (coin(null_rate)) {
        b.AppendNull();
        continue;
      }
      switch (idx) {
        case 0:
          b.Append<int32_t>(coin(0.05) ? (coin(0.5) ? INT32_MAX : INT32_MIN)
                                       : static_cast<int32_t>(pick(-1000, 1000)));
          break;
        case 1:
          b.Append<int64_t>(coin(0.02) ? INT64_MAX : pick(-1000000, 1000000));
          break;
        case 2: {
          double v = static_cast<double>(pick(-100000, 100000)) / 64.0;
          if (coin(0.05)) v = NAN;
          if (coin(0.05)) v = -0.0;
          if (coin(0.02)) v = INFINITY;
          b.Append<double>(v);
          break;
        }
        case 3:
          b.Append<int64_t>(pick(-99999999, 99999999));
          break;
        case 4:
          b.Append<int128_t>(static_cast<int128_t>(pick(-1000000000000LL, 1000000000000LL)) *
                             1000003);
          break;
        case 5:
        case 12: {
          std::string s = kWords[pick(0, 11)];
          if (idx == 5 && coin(0.1)) s += std::string(static_cast<size_t>(pick(0, 300)), 'q');
          b.AppendString(s);
          break;
        }
        case 6:
          b.Append<int32_t>(static_cast<int32_t>(pick(-30000, 30000)));
          break;
        case 7:
          b.Append<int64_t>(pick(-2000000000000000LL, 2000000000000000LL));
          break;
        case 8:
          b.AppendBool(coin(0.5));
          break;
        case 9:
          b.Append<int8_t>(static_cast<int8_t>(pick(-128, 127)));
          break;
        case 10:
          b.Append<float>(coin(0.05) ? NAN : static_cast<float>(pick(-5000, 5000)) / 8.0f);
          break;
        case 11:
          b.Append<int64_t>(pick(0, 9));
          break;
      }
    }
    batch->columns.push_back(b.Finish());
    batch->schema.fields.push_back({"c" + std::to_string(idx), t, true});
    ++idx;
  }
  return batch;
}

inline bool CloseUlps(double a, double b, int ulps) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (ulps == 0 || std::isinf(a) || std::isinf(b)) return false;
  int64_t ia, ib;
  std::memcpy(&ia, &a, 8);
  std::memcpy(&ib, &b, 8);
  if ((ia < 0) != (ib < 0)) return false;
  return std::llabs(ia - ib) <= ulps;
}

// Row-by-row equality of two columns (NaN equals NaN; floats within `ulps`).
inline void ExpectSameColumn(const Column& cpu, const Column& gpu, const std::string& what,
                             int ulps = 0) {
  ASSERT_EQ(cpu.type(), gpu.type()) << what;
  ASSERT_EQ(cpu.length(), gpu.length()) << what;
  int reported = 0;
  for (int64_t i = 0; i < cpu.length() && reported < 5; ++i) {
    const Value a = GetValue(cpu, i), b = GetValue(gpu, i);
    bool same = a.is_null == b.is_null;
    if (same && !a.is_null) {
      same = a.type.is_floating() ? CloseUlps(a.f64, b.f64, ulps) : a == b;
    }
    if (!same) {
      ADD_FAILURE() << what << " row " << i << ": cpu " << a.ToString() << " gpu " << b.ToString();
      ++reported;
    }
  }
}

}  // namespace tandem::test_util
