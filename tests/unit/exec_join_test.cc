// HashJoin against a brute-force nested-loop oracle written here: every join type, NULL keys,
// multi-column keys with strings, decimal and date keys, residual conditions, null-aware anti
// joins (NOT IN), mark joins (IN / EXISTS as a boolean column), cross joins, empty sides and
// inputs split over several batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem {
namespace {

struct Rows {  // row-major test table: values as Value
  Schema schema;
  std::vector<std::vector<Value>> rows;
};

Table ToTable(const Rows& r, int batches) {
  Table t;
  t.schema = r.schema;
  const int64_t n = static_cast<int64_t>(r.rows.size());
  const int64_t per = std::max<int64_t>(1, (n + batches - 1) / batches);
  for (int64_t begin = 0; begin < n; begin += per) {
    const int64_t end = std::min(n, begin + per);
    auto b = std::make_shared<Batch>();
    b->schema = r.schema;
    b->num_rows = end - begin;
    for (int c = 0; c < r.schema.num_fields(); ++c) {
      ColumnBuilder cb(r.schema.field(c).type);
      for (int64_t i = begin; i < end; ++i) {
        const Value& v = r.rows[i][c];
        if (v.is_null) {
          cb.AppendNull();
        } else if (v.type.id == TypeId::kString) {
          cb.AppendString(v.str);
        } else if (v.type.id == TypeId::kDate32 || v.type.id == TypeId::kInt32) {
          cb.Append<int32_t>(static_cast<int32_t>(v.i64));
        } else {
          cb.Append<int64_t>(v.i64);
        }
      }
      b->columns.push_back(cb.Finish());
    }
    t.batches.push_back(b);
  }
  return t;
}

std::vector<std::string> RowStrings(const Table& t) {
  std::vector<std::string> out;
  for (const auto& b : t.batches) {
    for (int64_t i = 0; i < b->num_rows; ++i) {
      std::string s;
      for (const auto& c : b->columns) s += GetValue(*c, i).ToString() + "|";
      out.push_back(s);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// key columns: 0 (int64), 1 (string), 2 (decimal(12,2)), 3 (date); payload 4 (int32).
Rows RandomSide(std::mt19937_64& rng, int64_t n, int domain, double null_rate) {
  Rows r;
  r.schema.fields = {{"k", DataType::Int64()},
                     {"s", DataType::String()},
                     {"d", DataType::Decimal(12, 2)},
                     {"t", DataType::Date32()},
                     {"v", DataType::Int32()}};
  std::uniform_int_distribution<int> key(0, domain - 1);
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t i = 0; i < n; ++i) {
    auto maybe_null = [&](Value v) { return u(rng) < null_rate ? Value::Null(v.type) : v; };
    const int k = key(rng);
    r.rows.push_back(
        {maybe_null(Value::Int64(k - domain / 2)),
         maybe_null(Value::String(k % 3 == 0 ? "long-string-prefix-" + std::to_string(k % 5)
                                             : std::to_string(k % 4))),
         maybe_null(Value::Decimal(k * 101 - 700, 12, 2)), maybe_null(Value::Date32(18000 + k % 6)),
         maybe_null(Value::Int32(static_cast<int32_t>(u(rng) * 100)))});
  }
  return r;
}

ExprPtr Col(const Schema& s, int i, int offset = 0) {
  return MakeColumnRef(i + offset, s.field(i).type, true, s.field(i).name);
}

PlanNode JoinNode(const Rows& l, const Rows& r, JoinType type, const std::vector<int>& keys,
                  bool with_condition, bool null_aware = false) {
  PlanNode node;
  node.kind = PlanKind::kJoin;
  node.join_type = type;
  node.null_aware = null_aware;
  for (int k : keys) {
    node.left_keys.push_back(Col(l.schema, k));
    node.right_keys.push_back(Col(r.schema, k));
  }
  if (with_condition) {  // left.v < right.v
    node.condition = MakeCall("lt", {Col(l.schema, 4), Col(r.schema, 4, l.schema.num_fields())},
                              DataType::Bool(), true);
  }
  node.schema = l.schema;
  if (type != JoinType::kSemi && type != JoinType::kAnti) {
    for (const auto& f : r.schema.fields) node.schema.fields.push_back(f);
  }
  return node;
}

// The oracle: nested loops over rows with SQL semantics.
std::vector<std::string> NaiveJoin(const Rows& l, const Rows& r, JoinType type,
                                   const std::vector<int>& keys, bool with_condition,
                                   bool null_aware) {
  auto matches = [&](const std::vector<Value>& a, const std::vector<Value>& b) {
    for (int k : keys) {
      if (a[k].is_null || b[k].is_null || !(a[k] == b[k])) return false;
    }
    if (with_condition && (a[4].is_null || b[4].is_null || !(a[4].i64 < b[4].i64))) return false;
    return true;
  };
  auto str = [](const std::vector<Value>* a, size_t na, const std::vector<Value>* b, size_t nb) {
    std::string s;
    for (size_t i = 0; i < na; ++i) s += (a ? (*a)[i].ToString() : "NULL") + "|";
    for (size_t i = 0; i < nb; ++i) s += (b ? (*b)[i].ToString() : "NULL") + "|";
    return s;
  };
  const size_t nl = l.schema.fields.size(), nr = r.schema.fields.size();
  std::vector<std::string> out;
  std::vector<bool> right_hit(r.rows.size(), false);
  bool right_has_null_key = false;
  for (const auto& b : r.rows) {
    for (int k : keys) right_has_null_key |= b[k].is_null;
  }
  for (const auto& a : l.rows) {
    bool hit = false;
    for (size_t j = 0; j < r.rows.size(); ++j) {
      if (!matches(a, r.rows[j])) continue;
      hit = true;
      right_hit[j] = true;
      if (type == JoinType::kInner || type == JoinType::kLeft || type == JoinType::kRight ||
          type == JoinType::kFull) {
        out.push_back(str(&a, nl, &r.rows[j], nr));
      }
    }
    if (!hit && (type == JoinType::kLeft || type == JoinType::kFull)) {
      out.push_back(str(&a, nl, nullptr, nr));
    }
    if (type == JoinType::kSemi && hit) out.push_back(str(&a, nl, nullptr, 0));
    if (type == JoinType::kAnti && !hit) {
      bool a_null = false;
      for (int k : keys) a_null |= a[k].is_null;
      if (null_aware && !r.rows.empty() && (right_has_null_key || a_null)) continue;
      out.push_back(str(&a, nl, nullptr, 0));
    }
  }
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (size_t j = 0; j < r.rows.size(); ++j) {
      if (!right_hit[j]) out.push_back(str(nullptr, nl, &r.rows[j], nr));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void CheckJoin(const Rows& l, const Rows& r, JoinType type, const std::vector<int>& keys, bool cond,
               bool null_aware, int lb, int rb) {
  PlanNode node = JoinNode(l, r, type, keys, cond, null_aware);
  ExecContext ctx;
  auto res = cpu::HashJoin(node, ToTable(l, lb), ToTable(r, rb), ctx);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  for (const auto& b : res->batches) ASSERT_TRUE(b->Validate().ok());
  EXPECT_EQ(RowStrings(*res), NaiveJoin(l, r, type, keys, cond, null_aware))
      << "type " << static_cast<int>(type) << " keys " << keys.size() << " cond " << cond;
}

const JoinType kAllTypes[] = {JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                              JoinType::kFull,  JoinType::kSemi, JoinType::kAnti};

TEST(ExecJoin, AllTypesSingleIntKey) {
  std::mt19937_64 rng(1);
  Rows l = RandomSide(rng, 700, 50, 0.1), r = RandomSide(rng, 400, 60, 0.1);
  for (JoinType t : kAllTypes) {
    for (bool cond : {false, true}) CheckJoin(l, r, t, {0}, cond, false, 3, 2);
  }
}

TEST(ExecJoin, AllTypesMultiKeyStringsDecimalsDates) {
  std::mt19937_64 rng(2);
  Rows l = RandomSide(rng, 500, 20, 0.05), r = RandomSide(rng, 300, 25, 0.05);
  for (JoinType t : kAllTypes) {
    for (bool cond : {false, true}) {
      CheckJoin(l, r, t, {1}, cond, false, 2, 3);
      CheckJoin(l, r, t, {0, 1}, cond, false, 1, 1);
      CheckJoin(l, r, t, {2, 3}, cond, false, 4, 2);
      CheckJoin(l, r, t, {3, 0, 2}, cond, false, 2, 2);
    }
  }
}

TEST(ExecJoin, NullAwareAnti) {
  std::mt19937_64 rng(3);
  Rows l = RandomSide(rng, 300, 30, 0.1);
  Rows r_with_null = RandomSide(rng, 100, 30, 0.1);
  Rows r_no_null = RandomSide(rng, 100, 30, 0.0);
  Rows r_empty = RandomSide(rng, 0, 30, 0.0);
  CheckJoin(l, r_with_null, JoinType::kAnti, {0}, false, true, 2, 2);
  CheckJoin(l, r_no_null, JoinType::kAnti, {0}, false, true, 2, 2);
  CheckJoin(l, r_empty, JoinType::kAnti, {0}, false, true, 2, 1);
  CheckJoin(l, r_no_null, JoinType::kAnti, {0}, false, false, 2, 2);
}

TEST(ExecJoin, CrossAndNonEquiJoins) {
  std::mt19937_64 rng(4);
  Rows l = RandomSide(rng, 60, 10, 0.1), r = RandomSide(rng, 40, 10, 0.1);
  for (JoinType t : kAllTypes) {
    for (bool cond : {false, true}) CheckJoin(l, r, t, {}, cond, false, 2, 3);
  }
}

TEST(ExecJoin, EmptySides) {
  std::mt19937_64 rng(5);
  Rows l = RandomSide(rng, 50, 10, 0.1), empty = RandomSide(rng, 0, 10, 0.1);
  for (JoinType t : kAllTypes) {
    CheckJoin(l, empty, t, {0}, false, false, 2, 1);
    CheckJoin(empty, l, t, {0}, true, false, 1, 2);
    CheckJoin(empty, empty, t, {1}, false, false, 1, 1);
  }
}

TEST(ExecJoin, LargeBuildManyDuplicates) {
  std::mt19937_64 rng(6);
  Rows l = RandomSide(rng, 1500, 300, 0.02), r = RandomSide(rng, 2500, 300, 0.02);
  CheckJoin(l, r, JoinType::kInner, {0}, false, false, 5, 7);
  CheckJoin(l, r, JoinType::kFull, {1, 3}, true, false, 3, 4);
}

// SEMI/ANTI joins whose left side is much smaller than the right build the left side and probe
// with the right one (with or without the residual condition left.v < right.v); their output
// must keep the left input order, so the oracle here is the left rows in order, filtered by
// whether any right row matches.
void CheckSmallLeftSemiAnti(const Rows& l, const Rows& r, JoinType type,
                            const std::vector<int>& keys, int lb, int rb,
                            bool with_condition = false) {
  CheckJoin(l, r, type, keys, with_condition, false, lb, rb);
  PlanNode node = JoinNode(l, r, type, keys, with_condition);
  ExecContext ctx;
  auto res = cpu::HashJoin(node, ToTable(l, lb), ToTable(r, rb), ctx);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  std::vector<std::string> got;
  for (const auto& b : res->batches) {
    for (int64_t i = 0; i < b->num_rows; ++i) {
      std::string s;
      for (const auto& c : b->columns) s += GetValue(*c, i).ToString() + "|";
      got.push_back(s);
    }
  }
  std::vector<std::string> want;
  for (const auto& a : l.rows) {
    bool hit = false;
    for (const auto& b : r.rows) {
      bool eq = true;
      for (int k : keys) eq = eq && !a[k].is_null && !b[k].is_null && a[k] == b[k];
      if (with_condition) eq = eq && !a[4].is_null && !b[4].is_null && a[4].i64 < b[4].i64;
      hit = hit || eq;
    }
    if (hit == (type == JoinType::kSemi)) {
      std::string s;
      for (const auto& v : a) s += v.ToString() + "|";
      want.push_back(s);
    }
  }
  EXPECT_EQ(got, want) << "type " << static_cast<int>(type) << " keys " << keys.size();
}

TEST(ExecJoin, SemiAntiSmallLeftBuildsLeft) {
  std::mt19937_64 rng(7);
  Rows small = RandomSide(rng, 120, 40, 0.1);
  Rows dup_small = RandomSide(rng, 200, 8, 0.05);  // many duplicate keys on the left
  Rows large = RandomSide(rng, 3000, 60, 0.1);
  Rows empty = RandomSide(rng, 0, 10, 0.1);
  for (JoinType t : {JoinType::kSemi, JoinType::kAnti}) {
    CheckSmallLeftSemiAnti(small, large, t, {0}, 3, 5);
    CheckSmallLeftSemiAnti(dup_small, large, t, {0}, 2, 4);
    CheckSmallLeftSemiAnti(small, large, t, {1}, 1, 3);
    CheckSmallLeftSemiAnti(small, large, t, {0, 1}, 2, 2);
    CheckSmallLeftSemiAnti(dup_small, large, t, {1, 3}, 3, 1);
    CheckSmallLeftSemiAnti(small, large, t, {3, 0, 2}, 1, 6);
    CheckSmallLeftSemiAnti(empty, large, t, {0}, 1, 3);
    CheckSmallLeftSemiAnti(empty, large, t, {1, 2}, 1, 2);
    // With the residual condition (TPC-H Q21's shape): only pairs where it is TRUE count.
    CheckSmallLeftSemiAnti(small, large, t, {0}, 3, 5, true);
    CheckSmallLeftSemiAnti(dup_small, large, t, {0}, 2, 4, true);
    CheckSmallLeftSemiAnti(small, large, t, {0, 1}, 2, 2, true);
    CheckSmallLeftSemiAnti(empty, large, t, {0}, 1, 3, true);
  }
}

// A LEFT join whose left side is far smaller than its right runs as the RIGHT join with the
// roles swapped (built on the left): unmatched and NULL-key left rows come out with NULLs.
TEST(ExecJoin, LeftSmallLeftBuildsLeft) {
  std::mt19937_64 rng(8);
  Rows small = RandomSide(rng, 120, 40, 0.1);
  Rows dup_small = RandomSide(rng, 200, 8, 0.05);
  Rows large = RandomSide(rng, 3000, 60, 0.1);
  Rows empty = RandomSide(rng, 0, 10, 0.1);
  for (bool cond : {false, true}) {
    CheckJoin(small, large, JoinType::kLeft, {0}, cond, false, 3, 5);
    CheckJoin(dup_small, large, JoinType::kLeft, {0}, cond, false, 2, 4);
    CheckJoin(small, large, JoinType::kLeft, {1}, cond, false, 1, 3);
    CheckJoin(small, large, JoinType::kLeft, {0, 1}, cond, false, 2, 2);
    CheckJoin(small, large, JoinType::kLeft, {3, 0, 2}, cond, false, 1, 6);
    CheckJoin(empty, large, JoinType::kLeft, {0}, cond, false, 1, 3);
  }
}

// Mark joins: every left row once plus its mark. The oracle follows SQL: the other keys and the
// condition select right rows (their NULLs select nothing); with null_aware, key 0 is the IN
// comparison: TRUE on an equal value, else NULL when a selected right row or the left row has a
// NULL there, else FALSE.
std::vector<std::string> NaiveMark(const Rows& l, const Rows& r, const std::vector<int>& keys,
                                   bool with_condition, bool null_aware) {
  std::vector<std::string> out;
  for (const auto& a : l.rows) {
    bool hit = false, unknown = false;
    for (const auto& b : r.rows) {
      bool selected = true;
      for (size_t k = null_aware ? 1 : 0; k < keys.size(); ++k) {
        const int c = keys[k];
        selected = selected && !a[c].is_null && !b[c].is_null && a[c] == b[c];
      }
      if (with_condition) {
        selected = selected && !a[4].is_null && !b[4].is_null && a[4].i64 < b[4].i64;
      }
      if (!selected) continue;
      if (!null_aware) {
        hit = true;
      } else if (a[keys[0]].is_null || b[keys[0]].is_null) {
        unknown = true;
      } else {
        hit = hit || a[keys[0]] == b[keys[0]];
      }
    }
    std::string s;
    for (const auto& v : a) s += v.ToString() + "|";
    const Value mark =
        hit ? Value::Bool(true) : (unknown ? Value::Null(DataType::Bool()) : Value::Bool(false));
    out.push_back(s + mark.ToString() + "|");
  }
  std::sort(out.begin(), out.end());
  return out;
}

void CheckMark(const Rows& l, const Rows& r, const std::vector<int>& keys, bool cond,
               bool null_aware, int lb, int rb) {
  PlanNode node = JoinNode(l, r, JoinType::kMark, keys, cond, null_aware);
  node.schema = l.schema;
  node.schema.fields.push_back({"mark", DataType::Bool(), null_aware});
  ExecContext ctx;
  auto res = cpu::HashJoin(node, ToTable(l, lb), ToTable(r, rb), ctx);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  for (const auto& b : res->batches) ASSERT_TRUE(b->Validate().ok());
  EXPECT_EQ(RowStrings(*res), NaiveMark(l, r, keys, cond, null_aware))
      << "keys " << keys.size() << " cond " << cond << " null_aware " << null_aware;
}

TEST(ExecJoin, MarkJoinWithKeysAndConditions) {
  std::mt19937_64 rng(7);
  Rows l = RandomSide(rng, 600, 40, 0.1), r = RandomSide(rng, 300, 50, 0.1);
  for (bool cond : {false, true}) {
    for (bool null_aware : {false, true}) {
      CheckMark(l, r, {0}, cond, null_aware, 3, 2);
      CheckMark(l, r, {1, 0}, cond, null_aware, 2, 3);
      CheckMark(l, r, {3, 0, 2}, cond, null_aware, 1, 1);
    }
  }
}

TEST(ExecJoin, MarkJoinNullsOnlyOnOneSide) {
  std::mt19937_64 rng(8);
  Rows l_nulls = RandomSide(rng, 200, 20, 0.2), l_clean = RandomSide(rng, 200, 20, 0.0);
  Rows r_nulls = RandomSide(rng, 80, 20, 0.2), r_clean = RandomSide(rng, 80, 20, 0.0);
  for (bool cond : {false, true}) {
    CheckMark(l_nulls, r_clean, {0}, cond, true, 2, 2);
    CheckMark(l_clean, r_nulls, {0}, cond, true, 2, 2);
    CheckMark(l_clean, r_clean, {0}, cond, true, 2, 2);
    CheckMark(l_nulls, r_clean, {0, 3}, cond, true, 2, 1);
  }
}

TEST(ExecJoin, MarkJoinWithoutKeysAndEmptySides) {
  std::mt19937_64 rng(9);
  Rows l = RandomSide(rng, 90, 10, 0.1), r = RandomSide(rng, 50, 10, 0.1);
  Rows empty = RandomSide(rng, 0, 10, 0.1);
  CheckMark(l, r, {}, true, false, 3, 2);   // EXISTS with a non-equality correlation
  CheckMark(l, r, {}, false, false, 2, 2);  // uncorrelated EXISTS
  CheckMark(l, empty, {}, false, false, 2, 1);
  for (bool cond : {false, true}) {
    CheckMark(l, empty, {0}, cond, true, 2, 1);  // x IN (empty) is FALSE, even for NULL x
    CheckMark(empty, r, {0}, cond, true, 1, 2);
  }
}

}  // namespace
}  // namespace tandem
