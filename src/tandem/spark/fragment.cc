// Fragment parsing, validation and plan building (see fragment.h).
//
// One builder serves both uses. Validating, a node that cannot run is given a verdict with its
// reason and replaced, for its parent's sake, by a placeholder that produces the columns Spark
// says it produces, so every node is judged on its own. Building, the first such node is the
// error. A node's plan reads its scans' splits and its inputs' rows from TaskData (empty when
// validating: the plan is then judged on its shape and types alone).
#include "tandem/spark/fragment.h"

#include <functional>

#include "tandem/catalog/table_source.h"
#include "tandem/common/text.h"
#include "tandem/gpu/runtime.h"
#include "tandem/placement/support.h"
#include "tandem/spark/fragment_aggregate.h"
#include "tandem/spark/fragment_window.h"

namespace tandem::spark {
namespace {

Status Bad(const std::string& where, const std::string& what) {
  return Status::Invalid("fragment " + where + ": " + what);
}

// An Unsupported status's reason without its "not supported yet: " prefix.
std::string Reason(const Status& st) {
  static const std::string kPrefix = "not supported yet: ";
  const std::string& m = st.message();
  return m.rfind(kPrefix, 0) == 0 ? m.substr(kPrefix.size()) : m;
}

std::shared_ptr<const Table> EmptyTable(const Schema& schema) {
  auto t = std::make_shared<Table>();
  t->schema = schema;
  return t;
}

// A scan of rows that are not there: the placeholder of an unsupported node, and the shape of
// an input while validating.
PlanPtr EmptyScan(const std::string& name, const Schema& schema) {
  std::vector<int> columns;
  for (int i = 0; i < schema.num_fields(); ++i) columns.push_back(i);
  return MakeScan(TableSource::Memory(name, EmptyTable(schema)), columns);
}

Result<JoinType> JoinTypeOf(const std::string& t) {
  if (t == "inner" || t == "cross") return JoinType::kInner;
  if (t == "left") return JoinType::kLeft;
  if (t == "right") return JoinType::kRight;
  if (t == "full") return JoinType::kFull;
  if (t == "semi") return JoinType::kSemi;
  if (t == "anti") return JoinType::kAnti;
  return Status::Unsupported("join type " + t);
}

// Spark's declared output against what the Tandem plan makes: same width and types; the names
// become Spark's.
Result<PlanPtr> WithSparkOutput(PlanPtr plan, const Schema& declared) {
  const Schema& got = plan->schema;
  if (got.num_fields() != declared.num_fields()) {
    return Status::Unsupported("Spark expects " + std::to_string(declared.num_fields()) +
                               " columns, Tandem makes " + std::to_string(got.num_fields()));
  }
  for (int i = 0; i < got.num_fields(); ++i) {
    if (got.field(i).type != declared.field(i).type) {
      return Status::Unsupported("Spark's column " + declared.field(i).name + " is " +
                                 declared.field(i).type.ToString() + ", Tandem's " +
                                 got.field(i).type.ToString());
    }
  }
  auto renamed = std::make_shared<PlanNode>(*plan);
  for (int i = 0; i < got.num_fields(); ++i)
    renamed->schema.fields[i].name = declared.field(i).name;
  return PlanPtr(renamed);
}

class Builder {
 public:
  Builder(const Fragment& fragment, const TaskData* data, std::vector<NodeVerdict>* verdicts)
      : fragment_(fragment), settings_(fragment.settings), data_(data), verdicts_(verdicts) {}

  Result<PlanPtr> Build(const Json& node, const std::string& where) {
    TANDEM_ASSIGN_OR_RAISE(int64_t id, IntMember(node, "id", where));
    TANDEM_ASSIGN_OR_RAISE(std::string op, StringMember(node, "op", where));
    TANDEM_ASSIGN_OR_RAISE(const Json* output_json, Member(node, "output", where));
    TANDEM_ASSIGN_OR_RAISE(Schema output, SchemaFromJson(*output_json, where + ".output"));
    std::vector<PlanPtr> children;
    Result<PlanPtr> plan = BuildOp(node, op, where, &children);
    if (plan.ok()) plan = WithSparkOutput(*plan, output);
    if (!verdicts_) {
      if (!plan.ok() && plan.status().code() == StatusCode::kUnsupported &&
          Reason(plan.status()).find("cannot run on Tandem") == std::string::npos) {
        return Status(StatusCode::kUnsupported,
                      op + " (node " + std::to_string(id) +
                          ") cannot run on Tandem: " + Reason(plan.status()));
      }
      return plan;
    }
    NodeVerdict v;
    v.id = id;
    v.op = op;
    if (!plan.ok()) {
      if (plan.status().code() != StatusCode::kUnsupported) return plan.status();  // a bad document
      v.reason = Reason(plan.status());
      verdicts_->push_back(std::move(v));
      return EmptyScan("unsupported " + op, output);
    }
    v.supported = true;
    v.device = Device(**plan, children);
    verdicts_->push_back(std::move(v));
    return plan;
  }

 private:
  Result<PlanPtr> Child(const Json& node, const char* key, const std::string& where,
                        std::vector<PlanPtr>* children) {
    TANDEM_ASSIGN_OR_RAISE(const Json* c, Member(node, key, where));
    TANDEM_ASSIGN_OR_RAISE(PlanPtr p, Build(*c, where + "." + key));
    children->push_back(p);
    return p;
  }

  Result<PlanPtr> BuildOp(const Json& node, const std::string& op, const std::string& where,
                          std::vector<PlanPtr>* children) {
    if (op == "scan_parquet") return Scan(node, where);
    if (op == "input") return Input(node, where);
    if (op == "union") {
      TANDEM_ASSIGN_OR_RAISE(const Json* list, Member(node, "children", where));
      if (!list->is_array() || list->size() < 2) return Bad(where, "a union needs two children");
      std::vector<PlanPtr> inputs;
      for (size_t i = 0; i < list->size(); ++i) {
        TANDEM_ASSIGN_OR_RAISE(PlanPtr p,
                               Build((*list)[i], where + ".children[" + std::to_string(i) + "]"));
        children->push_back(p);
        inputs.push_back(p);
      }
      for (const PlanPtr& p : inputs) {
        for (int c = 0; c < inputs[0]->schema.num_fields() && c < p->schema.num_fields(); ++c) {
          if (p->schema.field(c).type != inputs[0]->schema.field(c).type) {
            return Status::Unsupported("a union of " + p->schema.field(c).type.ToString() +
                                       " and " + inputs[0]->schema.field(c).type.ToString());
          }
        }
      }
      return MakeSetOp(std::move(inputs), SetOpKind::kUnion, true);
    }
    if (op == "join") {
      TANDEM_ASSIGN_OR_RAISE(PlanPtr left, Child(node, "left", where, children));
      TANDEM_ASSIGN_OR_RAISE(PlanPtr right, Child(node, "right", where, children));
      return Join(node, left, right, where);
    }
    TANDEM_ASSIGN_OR_RAISE(PlanPtr child, Child(node, "child", where, children));
    const Schema& in = child->schema;
    if (op == "filter") {
      TANDEM_ASSIGN_OR_RAISE(const Json* c, Member(node, "condition", where));
      TANDEM_ASSIGN_OR_RAISE(ExprPtr cond, ExprFromJson(*c, in, settings_, where + ".condition"));
      if (cond->type.id != TypeId::kBool) return Status::Unsupported("a non-boolean filter");
      return MakeFilter(child, cond);
    }
    if (op == "project") {
      TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> exprs,
                             ExprList(node, "exprs", in, settings_, where));
      std::vector<std::string> names(exprs.size());
      for (size_t i = 0; i < names.size(); ++i) names[i] = "c" + std::to_string(i);
      return MakeProject(child, exprs, names);
    }
    if (op == "aggregate") return AggregateFromJson(node, child, settings_, where);
    if (op == "window") return WindowFromJson(node, child, settings_, where);
    if (op == "expand") return ExpandFromJson(node, child, settings_, where);
    if (op == "sort" || op == "top_n") {
      TANDEM_ASSIGN_OR_RAISE(std::vector<SortKey> keys,
                             SortKeys(node, "keys", in, settings_, where));
      PlanPtr sorted = MakeSort(child, keys);
      if (op == "sort") return sorted;
      TANDEM_ASSIGN_OR_RAISE(int64_t limit, IntMember(node, "limit", where));
      return MakeLimit(sorted, limit, node.value("offset", int64_t{0}));
    }
    if (op == "limit") {
      TANDEM_ASSIGN_OR_RAISE(int64_t limit, IntMember(node, "limit", where));
      return MakeLimit(child, limit, node.value("offset", int64_t{0}));
    }
    return Status::Unsupported("operator " + op);
  }

  Result<PlanPtr> Input(const Json& node, const std::string& where) {
    TANDEM_ASSIGN_OR_RAISE(int64_t index, IntMember(node, "index", where));
    if (index < 0 || index >= static_cast<int64_t>(fragment_.inputs.size())) {
      return Bad(where, "input " + std::to_string(index) + " is not declared");
    }
    const Schema& schema = fragment_.inputs[index].schema;
    std::shared_ptr<const Table> rows;
    if (data_ && static_cast<size_t>(index) < data_->inputs.size()) rows = data_->inputs[index];
    if (!rows) rows = EmptyTable(schema);
    std::vector<int> columns;
    for (int i = 0; i < schema.num_fields(); ++i) columns.push_back(i);
    return MakeScan(TableSource::Memory("spark input " + std::to_string(index), rows), columns);
  }

  Result<PlanPtr> Scan(const Json& node, const std::string& where);
  Result<PlanPtr> Join(const Json& node, PlanPtr left, PlanPtr right, const std::string& where);

  // "gpu" when the GPU runs every Tandem node made for this Spark node and may be used.
  std::string Device(const PlanNode& plan, const std::vector<PlanPtr>& children) const {
    // Spark's LEGACY arithmetic is implemented on the CPU path only (EvalContext).
    if (fragment_.device == "cpu" || !settings_.ansi || !GpuUsable()) return "cpu";
    std::function<bool(const PlanNode&)> on_gpu = [&](const PlanNode& n) {
      for (const PlanPtr& c : children) {
        if (&n == c.get()) return true;  // judged on its own
      }
      if (!placement::GpuUnsupportedReason(n, placement::Residency::kFiles).empty()) return false;
      for (const auto& c : n.children) {
        if (c && !on_gpu(*c)) return false;
      }
      return true;
    };
    return on_gpu(plan) ? "gpu" : "cpu";
  }

  static bool GpuUsable() {
    std::string why;
    return gpu::DeviceUsable(&why);
  }

  const Fragment& fragment_;
  const SparkSettings& settings_;
  const TaskData* data_;
  std::vector<NodeVerdict>* verdicts_;
};

// Columns of a Parquet file matched to the fields Spark reads: by name (exactly, else ignoring
// case as Spark does by default), with the same types.
Result<std::vector<int>> FileColumns(const TableSource& file, const Schema& wanted) {
  std::vector<int> columns;
  for (const Field& f : wanted.fields) {
    int index = file.schema.FieldIndex(f.name);
    if (index < 0) {
      for (int i = 0; i < file.schema.num_fields(); ++i) {
        if (AsciiLower(file.schema.field(i).name) == AsciiLower(f.name)) index = i;
      }
    }
    if (index < 0) {
      return Status::Invalid("file " + file.path + " has no column " + f.name);
    }
    if (file.schema.field(index).type != f.type) {
      return Status::Invalid("file " + file.path + ": column " + f.name + " is " +
                             file.schema.field(index).type.ToString() + ", Spark reads it as " +
                             f.type.ToString());
    }
    columns.push_back(index);
  }
  return columns;
}

Result<PlanPtr> Builder::Scan(const Json& node, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(int64_t id, IntMember(node, "id", where));
  TANDEM_ASSIGN_OR_RAISE(const Json* columns_json, Member(node, "columns", where));
  TANDEM_ASSIGN_OR_RAISE(Schema columns, SchemaFromJson(*columns_json, where + ".columns"));
  Schema partitions;
  if (node.contains("partition_columns")) {
    TANDEM_ASSIGN_OR_RAISE(partitions,
                           SchemaFromJson(node["partition_columns"], where + ".partition_columns"));
  }
  Schema all = columns;
  for (const Field& f : partitions.fields) all.fields.push_back(f);
  if (!data_) {
    // Judged on its types: a Parquet source of this schema (no files yet).
    auto source = std::make_shared<TableSource>();
    source->kind = TableSource::Kind::kParquet;
    source->name = "parquet";
    source->schema = all;
    std::vector<int> cols;
    for (int i = 0; i < all.num_fields(); ++i) cols.push_back(i);
    return MakeScan(source, cols);
  }
  auto it = data_->splits.find(id);
  if (it == data_->splits.end() || it->second.empty()) return EmptyScan("no files", all);
  std::vector<PlanPtr> pieces;
  for (const FileSplit& split : it->second) {
    TANDEM_ASSIGN_OR_RAISE(std::shared_ptr<TableSource> file,
                           TableSource::Parquet(split.path, split.path));
    file->split_start = split.start;
    file->split_length = split.length;
    TANDEM_ASSIGN_OR_RAISE(std::vector<int> cols, FileColumns(*file, columns));
    PlanPtr piece = MakeScan(file, cols);
    if (partitions.num_fields() > 0) {
      if (split.partition_values.size() != static_cast<size_t>(partitions.num_fields())) {
        return Bad(where, "a split of " + split.path + " has " +
                              std::to_string(split.partition_values.size()) +
                              " partition values for " + std::to_string(partitions.num_fields()) +
                              " partition columns");
      }
      std::vector<ExprPtr> exprs;
      std::vector<std::string> names;
      for (int c = 0; c < columns.num_fields(); ++c) {
        exprs.push_back(MakeColumnRef(c, piece->schema.field(c).type, true, columns.field(c).name));
        names.push_back(columns.field(c).name);
      }
      for (int p = 0; p < partitions.num_fields(); ++p) {
        exprs.push_back(MakeLiteral(split.partition_values[p]));
        names.push_back(partitions.field(p).name);
      }
      piece = MakeProject(piece, exprs, names);
    }
    pieces.push_back(std::move(piece));
  }
  if (pieces.size() == 1) return pieces[0];
  return MakeSetOp(std::move(pieces), SetOpKind::kUnion, true);
}

Result<PlanPtr> Builder::Join(const Json& node, PlanPtr left, PlanPtr right,
                              const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::string type_name, StringMember(node, "type", where));
  TANDEM_ASSIGN_OR_RAISE(JoinType type, JoinTypeOf(type_name));
  TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> lk,
                         ExprList(node, "left_keys", left->schema, settings_, where));
  TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> rk,
                         ExprList(node, "right_keys", right->schema, settings_, where));
  if (lk.size() != rk.size()) return Bad(where, "left and right keys differ in number");
  for (size_t i = 0; i < lk.size(); ++i) {
    if (lk[i]->type != rk[i]->type) {
      return Status::Unsupported("a join key of " + lk[i]->type.ToString() + " and " +
                                 rk[i]->type.ToString());
    }
  }
  ExprPtr condition;
  auto c = node.find("condition");
  if (c != node.end() && !c->is_null()) {
    Schema both = left->schema;
    for (const Field& f : right->schema.fields) both.fields.push_back(f);
    TANDEM_ASSIGN_OR_RAISE(condition, ExprFromJson(*c, both, settings_, where + ".condition"));
    if (condition->type.id != TypeId::kBool) return Status::Unsupported("a non-boolean condition");
  }
  if (lk.empty() && type != JoinType::kInner && type != JoinType::kLeft &&
      type != JoinType::kSemi && type != JoinType::kAnti) {
    return Status::Unsupported(type_name + " join without equality keys");
  }
  return MakeJoin(left, right, type, lk, rk, condition);
}

Result<FragmentInput> InputFromJson(const Json& j, const std::string& where) {
  FragmentInput in;
  TANDEM_ASSIGN_OR_RAISE(std::string kind, StringMember(j, "kind", where));
  if (kind == "rows") {
    in.kind = FragmentInput::Kind::kRows;
  } else if (kind == "broadcast") {
    in.kind = FragmentInput::Kind::kBroadcast;
  } else {
    return Bad(where, "unknown input kind '" + kind + "'");
  }
  TANDEM_ASSIGN_OR_RAISE(const Json* schema, Member(j, "schema", where));
  TANDEM_ASSIGN_OR_RAISE(in.schema, SchemaFromJson(*schema, where + ".schema"));
  return in;
}

// The partition columns (FIELDs) of every scan node by id, to type the splits' values.
void CollectScans(const Json& node, std::map<int64_t, Schema>* scans) {
  if (!node.is_object()) return;
  if (node.value("op", "") == "scan_parquet" && node.contains("id")) {
    Result<Schema> p = node.contains("partition_columns")
                           ? SchemaFromJson(node["partition_columns"], "partition_columns")
                           : Result<Schema>(Schema{});
    (*scans)[node.value("id", int64_t{-1})] = p.ok() ? *p : Schema{};
  }
  for (const char* key : {"child", "left", "right"}) {
    if (node.contains(key)) CollectScans(node[key], scans);
  }
  if (node.contains("children") && node["children"].is_array()) {
    for (const auto& c : node["children"]) CollectScans(c, scans);
  }
}

}  // namespace

Result<Fragment> ParseFragment(const std::string& text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Bad("document", "not a JSON object");
  TANDEM_ASSIGN_OR_RAISE(std::string format, StringMember(doc, "format", "document"));
  if (format != "tandem-fragment") return Bad("document", "format is '" + format + "'");
  TANDEM_ASSIGN_OR_RAISE(int64_t version, IntMember(doc, "version", "document"));
  if (version != kFragmentVersion) {
    return Bad("document", "version " + std::to_string(version) + " (this engine reads " +
                               std::to_string(kFragmentVersion) + ")");
  }
  Fragment f;
  TANDEM_ASSIGN_OR_RAISE(const Json* spark, Member(doc, "spark", "document"));
  f.settings.ansi = spark->value("ansi", true);
  f.settings.time_zone = spark->value("timeZone", "UTC");
  f.device = doc.value("device", "auto");
  if (f.device != "auto" && f.device != "gpu" && f.device != "cpu") {
    return Bad("document", "device '" + f.device + "' (auto, gpu or cpu)");
  }
  if (doc.contains("inputs")) {
    const Json& inputs = doc["inputs"];
    if (!inputs.is_array()) return Bad("document", "inputs must be a list");
    for (size_t i = 0; i < inputs.size(); ++i) {
      TANDEM_ASSIGN_OR_RAISE(FragmentInput in,
                             InputFromJson(inputs[i], "inputs[" + std::to_string(i) + "]"));
      f.inputs.push_back(std::move(in));
    }
  }
  if (doc.contains("roots")) {
    const Json& roots = doc["roots"];
    if (!roots.is_array() || roots.empty()) return Bad("document", "roots must be a nonempty list");
    if (doc.contains("root")) return Bad("document", "has both root and roots");
    for (const Json& r : roots) f.roots.push_back(r);
  } else {
    TANDEM_ASSIGN_OR_RAISE(const Json* root, Member(doc, "root", "document"));
    f.roots.push_back(*root);
  }
  return f;
}

Result<TaskData> TaskDataFromJson(const Fragment& fragment, const std::string& text) {
  TaskData data;
  data.inputs.resize(fragment.inputs.size());
  if (text.empty()) return data;
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Bad("task", "not a JSON object");
  std::map<int64_t, Schema> scans;
  for (const Json& root : fragment.roots) CollectScans(root, &scans);
  auto splits = doc.find("splits");
  if (splits == doc.end()) return data;
  if (!splits->is_object()) return Bad("task", "splits must be an object");
  for (const auto& [key, list] : splits->items()) {
    const int64_t id = std::atoll(key.c_str());
    auto scan = scans.find(id);
    if (scan == scans.end()) return Bad("task", "splits for " + key + ", which is no scan");
    if (!list.is_array()) return Bad("task.splits." + key, "expected a list");
    std::vector<FileSplit>& out = data.splits[id];
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = "task.splits." + key + "[" + std::to_string(i) + "]";
      FileSplit s;
      TANDEM_ASSIGN_OR_RAISE(s.path, StringMember(list[i], "path", where));
      s.start = list[i].value("start", int64_t{0});
      s.length = list[i].value("length", int64_t{-1});
      const Json values = list[i].value("partition_values", Json::array());
      if (!values.is_array() || values.size() != static_cast<size_t>(scan->second.num_fields())) {
        return Bad(where, "partition_values must list one value per partition column");
      }
      for (size_t p = 0; p < values.size(); ++p) {
        TANDEM_ASSIGN_OR_RAISE(
            Value v, ValueFromJson(values[p], scan->second.field(static_cast<int>(p)).type,
                                   where + ".partition_values"));
        s.partition_values.push_back(std::move(v));
      }
      out.push_back(std::move(s));
    }
  }
  return data;
}

std::vector<NodeVerdict> ValidateFragment(const Fragment& fragment) {
  std::vector<NodeVerdict> all;
  for (size_t i = 0; i < fragment.roots.size(); ++i) {
    const Json& root = fragment.roots[i];
    std::vector<NodeVerdict> verdicts;
    Builder builder(fragment, nullptr, &verdicts);
    const std::string where =
        fragment.roots.size() == 1 ? std::string("root") : "roots[" + std::to_string(i) + "]";
    Result<PlanPtr> plan = builder.Build(root, where);
    if (!plan.ok()) {
      // The tree itself is malformed: one verdict saying so, for its root.
      NodeVerdict v;
      v.id = root.is_object() ? root.value("id", int64_t{-1}) : -1;
      v.op = root.is_object() ? root.value("op", "") : "";
      v.reason = plan.status().message();
      verdicts = {v};
    }
    all.insert(all.end(), verdicts.begin(), verdicts.end());
  }
  return all;
}

Json VerdictsToJson(const std::vector<NodeVerdict>& verdicts) {
  Json nodes = Json::array();
  for (const NodeVerdict& v : verdicts) {
    Json n = {{"id", v.id}, {"op", v.op}, {"supported", v.supported}};
    if (v.supported) {
      n["device"] = v.device;
    } else {
      n["reason"] = v.reason;
    }
    nodes.push_back(std::move(n));
  }
  return Json{{"nodes", nodes}};
}

Result<PlanPtr> BuildFragmentPlan(const Fragment& fragment, const TaskData& data) {
  if (fragment.roots.size() != 1) {
    return Status::Invalid("Spark fragment: a task runs one tree (root), not " +
                           std::to_string(fragment.roots.size()) + " (roots)");
  }
  Builder builder(fragment, &data, nullptr);
  return builder.Build(fragment.root(), "root");
}

}  // namespace tandem::spark
