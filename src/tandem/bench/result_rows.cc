// Parsing and comparing query results: see result_rows.h.
#include "tandem/bench/result_rows.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tandem::bench {
namespace {

// A decimal number written as a string ("12.30", "-0.05"), as JSON lines print decimals.
bool ParseNumericText(const std::string& text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  bool digits = false, dot = false;
  for (; i < text.size(); ++i) {
    if (text[i] >= '0' && text[i] <= '9') {
      digits = true;
    } else if (text[i] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  if (!digits) return false;
  *out = std::strtod(text.c_str(), nullptr);
  return true;
}

ResultValue ToValue(const nlohmann::ordered_json& v) {
  ResultValue out;
  if (v.is_null()) return out;
  if (v.is_number()) {
    out.kind = ResultValue::kNumber;
    out.number = v.get<double>();
    out.text = v.dump();
  } else if (v.is_string()) {
    out.text = v.get<std::string>();
    double number = 0;
    if (ParseNumericText(out.text, &number)) {
      out.kind = ResultValue::kNumber;
      out.number = number;
      const size_t dot = out.text.find('.');
      out.decimals = dot == std::string::npos ? 0 : static_cast<int>(out.text.size() - dot - 1);
    } else if (out.text == "NaN" || out.text == "Infinity" || out.text == "-Infinity") {
      out.kind = ResultValue::kNumber;
      out.number = out.text == "NaN" ? std::nan("") : (out.text[0] == '-' ? -HUGE_VAL : HUGE_VAL);
    } else {
      out.kind = ResultValue::kText;
    }
  } else {
    out.kind = ResultValue::kText;
    out.text = v.dump();
  }
  return out;
}

bool ValuesEqual(const ResultValue& a, const ResultValue& b, double relative) {
  if (a.kind != b.kind) return false;
  if (a.kind == ResultValue::kNull) return true;
  if (a.kind == ResultValue::kNumber) {
    if (NumbersClose(a.number, b.number, relative)) return true;
    // A decimal string against a value with more digits: equal when it rounds to it.
    const int digits = a.decimals >= 0 && b.decimals >= 0 ? -1 : std::max(a.decimals, b.decimals);
    return digits >= 0 &&
           std::fabs(a.number - b.number) <= 0.5 * std::pow(10.0, -digits) * (1 + 1e-9);
  }
  return a.text == b.text;
}

// Total order for sorting rows: NULL < numbers < text; numbers by value (NaN last).
bool ValueLess(const ResultValue& a, const ResultValue& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  if (a.kind == ResultValue::kNumber) {
    if (std::isnan(a.number) || std::isnan(b.number))
      return !std::isnan(a.number) && std::isnan(b.number);
    return a.number < b.number;
  }
  return a.text < b.text;
}

bool RowLess(const std::vector<ResultValue>& a, const std::vector<ResultValue>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), ValueLess);
}

std::string Shown(const ResultValue& v) { return v.kind == ResultValue::kNull ? "NULL" : v.text; }

// "" or the first difference, comparing rows in the order given.
std::string CompareInOrder(const ResultRows& expected,
                           const std::vector<std::vector<ResultValue>>& e,
                           const std::vector<std::vector<ResultValue>>& a, double relative) {
  for (size_t r = 0; r < e.size(); ++r) {
    if (e[r].size() != a[r].size()) {
      return "row " + std::to_string(r + 1) + ": " + std::to_string(e[r].size()) + " vs " +
             std::to_string(a[r].size()) + " values";
    }
    for (size_t c = 0; c < e[r].size(); ++c) {
      if (!ValuesEqual(e[r][c], a[r][c], relative)) {
        const std::string name =
            c < expected.columns.size() ? expected.columns[c] : "#" + std::to_string(c + 1);
        return "row " + std::to_string(r + 1) + ", column " + name + ": " + Shown(e[r][c]) +
               " vs " + Shown(a[r][c]);
      }
    }
  }
  return "";
}

}  // namespace

Result<ResultRows> ParseJsonLines(const std::string& text) {
  ResultRows out;
  std::istringstream in(text);
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::ordered_json row =
        nlohmann::ordered_json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (row.is_discarded() || !row.is_object()) {
      return Status::Invalid("result line " + std::to_string(number) + " is not a JSON object");
    }
    std::vector<std::string> names;
    std::vector<ResultValue> values;
    for (auto it = row.begin(); it != row.end(); ++it) {
      names.push_back(it.key());
      values.push_back(ToValue(it.value()));
    }
    if (out.rows.empty()) {
      out.columns = names;
    } else if (names != out.columns) {
      return Status::Invalid("result line " + std::to_string(number) + " has other columns");
    }
    out.rows.push_back(std::move(values));
  }
  return out;
}

bool NumbersClose(double a, double b, double relative) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= relative * scale || std::fabs(a - b) <= 1e-12;
}

std::string CompareResults(const ResultRows& expected, const ResultRows& actual, double relative) {
  if (expected.rows.size() != actual.rows.size()) {
    return std::to_string(expected.rows.size()) + " vs " + std::to_string(actual.rows.size()) +
           " rows";
  }
  if (!expected.rows.empty() && expected.columns.size() != actual.columns.size()) {
    return std::to_string(expected.columns.size()) + " vs " +
           std::to_string(actual.columns.size()) + " columns";
  }
  const std::string in_order = CompareInOrder(expected, expected.rows, actual.rows, relative);
  if (in_order.empty()) return "";
  auto e = expected.rows;
  auto a = actual.rows;
  std::sort(e.begin(), e.end(), RowLess);
  std::sort(a.begin(), a.end(), RowLess);
  return CompareInOrder(expected, e, a, relative).empty() ? "" : in_order;
}

}  // namespace tandem::bench
