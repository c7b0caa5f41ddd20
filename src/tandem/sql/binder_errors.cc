// Binder errors and hints: positions "(line L:C)", "did you mean" by edit distance, and small
// helpers to read libpg_query JSON nodes.
#include <algorithm>

#include "tandem/common/large_stack.h"
#include "tandem/common/text.h"
#include "tandem/sql/binder_internal.h"
#include "tandem/sql/parser.h"

namespace tandem::sql::binder {

SourcePos Binder::Pos(int location) const {
  if (location < 0) return {};
  return index_->PositionOf(location);
}

std::string Binder::At(int location) const {
  if (location < 0) return "";
  return " (line " + Pos(location).ToString() + ")";
}

Status Binder::Error(const std::string& msg, int location) const {
  // A hint goes after the position: "column x not found (line 1:8); did you mean y?"
  const size_t hint = msg.find("; did you mean");
  if (hint != std::string::npos) {
    return Status::Invalid(msg.substr(0, hint) + At(location) + msg.substr(hint));
  }
  return Status::Invalid(msg + At(location));
}

thread_local int Binder::DepthGuard::depth_ = 0;

Status Binder::CheckDepth(const Json& node) const {
  // Past the limit, or with too little stack left for the passes after binding.
  constexpr size_t kStackReserve = 1 << 20;
  if (DepthGuard::depth() <= options_.max_depth && StackRemaining() >= kStackReserve) {
    return Status::OK();
  }
  return Error("the statement nests expressions and subqueries more than " +
                   std::to_string(options_.max_depth) +
                   " levels deep (the limit is tandem.sql.maxExpressionDepth)",
               LocationOf(node) >= 0 ? LocationOf(node) : FirstLocation(node));
}

Status Binder::ErrorAtPos(const std::string& msg, const SourcePos& pos) const {
  return Status::Invalid(msg + (pos.line > 0 ? " (line " + pos.ToString() + ")" : ""));
}

Status Binder::Unsupported(const std::string& feature, int location) const {
  return Status::Unsupported(feature + At(location));
}

std::string ClosestName(const std::string& name, const std::vector<std::string>& candidates) {
  // Close enough: at most a third of the name's characters differ (at least one may), and the
  // candidate is not just some other name of the same tiny length.
  const std::string lname = Lower(name);
  const size_t limit = std::max<size_t>(1, lname.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const size_t d = EditDistanceIgnoringCase(lname, c);
    if (d < best_distance && d < lname.size()) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

const std::string& NodeTag(const Json& node) {
  static const std::string kEmpty;
  if (!node.is_object() || node.empty()) return kEmpty;
  return node.begin().key();
}

const Json& NodeBody(const Json& node) {
  static const Json kEmpty = Json::object();
  if (!node.is_object() || node.empty()) return kEmpty;
  return node.begin().value();
}

int LocationOf(const Json& node) {
  const Json& body = NodeBody(node);
  if (body.is_object()) {
    auto it = body.find("location");
    if (it != body.end() && it->is_number_integer()) return it->get<int>();
  }
  return -1;
}

int FirstLocation(const Json& node) {
  if (node.is_object()) {
    auto it = node.find("location");
    if (it != node.end() && it->is_number_integer() && it->get<int>() >= 0) return it->get<int>();
    for (const auto& [key, child] : node.items()) {
      const int loc = FirstLocation(child);
      if (loc >= 0) return loc;
    }
  } else if (node.is_array()) {
    for (const auto& child : node) {
      const int loc = FirstLocation(child);
      if (loc >= 0) return loc;
    }
  }
  return -1;
}

std::string Lower(std::string s) { return AsciiLower(std::move(s)); }

const Json& Child(const Json& node, const char* key) {
  static const Json kNull;
  if (!node.is_object()) return kNull;
  auto it = node.find(key);
  return it == node.end() ? kNull : *it;
}

std::string Str(const Json& node, const char* key) {
  const Json& v = Child(node, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

int64_t Int(const Json& node, const char* key, int64_t def) {
  const Json& v = Child(node, key);
  return v.is_number_integer() ? v.get<int64_t>() : def;
}

bool Flag(const Json& node, const char* key) {
  const Json& v = Child(node, key);
  return v.is_boolean() && v.get<bool>();
}

std::string StringValue(const Json& node) { return Str(Child(node, "String"), "sval"); }

}  // namespace tandem::sql::binder
