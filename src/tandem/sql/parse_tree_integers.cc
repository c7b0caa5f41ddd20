// Restores the integer constants that libpg_query's JSON output loses.
//
// libpg_query 15-4.0.0 (Debian 12) writes an Integer node's value into the JSON only when it is
// greater than zero, so every negative integer constant (`-3`, `-(3)`, `- /*c*/ 3`, `LIMIT -1`,
// `SET threads = -1`) reads back as an empty object, that is as 0. The protobuf output of the
// same parse carries the true values. When the JSON holds an A_Const whose integer is missing,
// this parses the text once more into protobuf, collects every A_Const integer by its location
// and writes the values into the JSON, so everything downstream (binder, SET, LIMIT, column
// names) sees the parser's own values and nothing re-reads digits from the SQL text.
//
// The protobuf tree is walked generically (through protobuf-c's descriptors) and iteratively, so
// the walk needs no code per node type and cannot overflow the stack on deep queries.
#include "tandem/sql/parse_tree_integers.h"

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>

#include <cstring>
#include <unordered_map>
#include <vector>

namespace tandem::sql {
namespace {

// Integer constants by location; a location seen twice with different values is ambiguous
// (constants the grammar makes itself carry location -1) and is left out.
struct IntegerConstants {
  std::unordered_map<int, int32_t> by_location;
  std::unordered_map<int, bool> ambiguous;

  void Add(int location, int32_t value) {
    auto [it, inserted] = by_location.emplace(location, value);
    if (!inserted && it->second != value) ambiguous[location] = true;
  }
};

// Pushes the message-typed fields of `m` that are set (repeated ones element by element).
void PushChildren(const ProtobufCMessage* m, std::vector<const ProtobufCMessage*>* stack) {
  const ProtobufCMessageDescriptor* d = m->descriptor;
  const char* base = reinterpret_cast<const char*>(m);
  for (unsigned i = 0; i < d->n_fields; ++i) {
    const ProtobufCFieldDescriptor& f = d->fields[i];
    if (f.type != PROTOBUF_C_TYPE_MESSAGE) continue;
    if (f.label == PROTOBUF_C_LABEL_REPEATED) {
      const size_t n = *reinterpret_cast<const size_t*>(base + f.quantifier_offset);
      ProtobufCMessage* const* items =
          *reinterpret_cast<ProtobufCMessage* const* const*>(base + f.offset);
      for (size_t k = 0; k < n; ++k) {
        if (items[k]) stack->push_back(items[k]);
      }
      continue;
    }
    if (f.flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      const uint32_t set_case = *reinterpret_cast<const uint32_t*>(base + f.quantifier_offset);
      if (set_case != f.id) continue;
    }
    const ProtobufCMessage* child =
        *reinterpret_cast<const ProtobufCMessage* const*>(base + f.offset);
    if (child) stack->push_back(child);
  }
}

Status CollectIntegers(const std::string& text, IntegerConstants* out) {
  PgQueryProtobufParseResult r = pg_query_parse_protobuf(text.c_str());
  if (r.error) {
    pg_query_free_protobuf_parse_result(r);
    return Status::Internal("libpg_query could not parse its own input a second time");
  }
  PgQuery__ParseResult* tree = pg_query__parse_result__unpack(
      nullptr, r.parse_tree.len, reinterpret_cast<const uint8_t*>(r.parse_tree.data));
  pg_query_free_protobuf_parse_result(r);
  if (!tree) return Status::Internal("libpg_query returned a protobuf tree that does not decode");
  std::vector<const ProtobufCMessage*> stack = {&tree->base};
  while (!stack.empty()) {
    const ProtobufCMessage* m = stack.back();
    stack.pop_back();
    if (m->descriptor == &pg_query__a__const__descriptor) {
      const auto* c = reinterpret_cast<const PgQuery__AConst*>(m);
      if (c->val_case == PG_QUERY__A__CONST__VAL_IVAL && c->ival) {
        out->Add(c->location, c->ival->ival);
      }
    }
    PushChildren(m, &stack);
  }
  pg_query__parse_result__free_unpacked(tree, nullptr);
  return Status::OK();
}

// Whether `node` is an A_Const body whose integer the JSON left out: {"ival": {}, ...}.
bool LostInteger(const nlohmann::json& body) {
  auto it = body.find("ival");
  return it != body.end() && it->is_object() && !it->contains("ival");
}

}  // namespace

Status RestoreLostIntegers(const std::string& text, const char* raw_json, nlohmann::json* tree) {
  // The JSON text tells cheaply whether any integer was lost; most queries have none.
  if (!raw_json || !std::strstr(raw_json, "\"ival\":{}")) return Status::OK();
  IntegerConstants constants;
  TANDEM_RETURN_NOT_OK(CollectIntegers(text, &constants));
  std::vector<nlohmann::json*> stack = {tree};
  while (!stack.empty()) {
    nlohmann::json* node = stack.back();
    stack.pop_back();
    if (node->is_array()) {
      for (auto& child : *node) stack.push_back(&child);
      continue;
    }
    if (!node->is_object()) continue;
    auto a_const = node->find("A_Const");
    if (a_const != node->end() && a_const->is_object() && LostInteger(*a_const)) {
      const int location = a_const->value("location", -1);
      auto value = constants.by_location.find(location);
      if (value == constants.by_location.end() || constants.ambiguous.count(location)) {
        return Status::Internal("the parser's value of the integer constant at byte " +
                                std::to_string(location) + " could not be recovered");
      }
      (*a_const)["ival"]["ival"] = value->second;
    }
    for (auto& [key, child] : node->items()) {
      if (child.is_structured()) stack.push_back(&child);
    }
  }
  return Status::OK();
}

}  // namespace tandem::sql
