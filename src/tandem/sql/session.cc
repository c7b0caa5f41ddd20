// Session: runs SQL statements against a catalog. Each statement goes parse -> bind -> optimize ->
// execute; the session itself handles the statements that change state (views, tables written
// as Parquet, settings) and EXPLAIN. Statements are bound against the whole script text, so
// every error position (line:column) is relative to the script, not to the statement.
#include "tandem/sql/session.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/common/large_stack.h"
#include "tandem/common/text.h"
#include "tandem/exec/cached_table_columns.h"
#include "tandem/exec/cached_table_moves.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/result_file_sink.h"
#include "tandem/exec/cpu/spool_sink.h"
#include "tandem/exec/executor.h"
#include "tandem/exec/plan_text.h"
#include "tandem/gpu/device_column.h"
#include "tandem/gpu/device_limit.h"
#include "tandem/gpu/device_size.h"
#include "tandem/gpu/memory_config.h"
#include "tandem/gpu/runtime.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/memory/host_memory.h"
#include "tandem/placement/cost_model.h"
#include "tandem/placement/devices_line.h"
#include "tandem/placement/explain.h"
#include "tandem/placement/placement.h"
#include "tandem/placement/settings.h"
#include "tandem/plan/optimizer.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"
#include "tandem/udf/sql_statements.h"

namespace tandem::sql {
namespace {

using Json = nlohmann::json;

// Skips whitespace and SQL comments (-- to end of line, nested /* */) from `i`.
size_t SkipSpaceAndComments(const std::string& s, size_t i, size_t end) {
  while (i < end) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.compare(i, 2, "--") == 0) {
      while (i < end && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      int depth = 0;
      while (i < end) {
        if (s.compare(i, 2, "/*") == 0) {
          ++depth;
          i += 2;
        } else if (s.compare(i, 2, "*/") == 0) {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
    } else {
      break;
    }
  }
  return i;
}

// Byte offset where the text of a CREATE VIEW's query starts: just after the first AS keyword
// outside parentheses, quotes and comments (the view name and column list cannot hold one).
// npos when there is none.
size_t FindViewQueryStart(const std::string& s, size_t begin, size_t end) {
  int depth = 0;
  size_t i = begin;
  while (true) {
    i = SkipSpaceAndComments(s, i, end);
    if (i >= end) return std::string::npos;
    const char c = s[i];
    if (c == '"' || c == '\'') {
      for (++i; i < end; ++i) {
        if (s[i] == c) {
          if (i + 1 < end && s[i + 1] == c) {
            ++i;
          } else {
            break;
          }
        }
      }
      ++i;
    } else if (c == '(') {
      ++depth;
      ++i;
    } else if (c == ')') {
      --depth;
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i;
      while (i < end && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                         s[i] == '$' || static_cast<unsigned char>(s[i]) >= 0x80)) {
        ++i;
      }
      if (depth == 0 && i - start == 2 && AsciiLower(s.substr(start, 2)) == "as") return i;
    } else {
      ++i;
    }
  }
}

// "name" quoted as a SQL identifier.
std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string StringField(const Json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool BoolField(const Json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_boolean() && it->get<bool>();
}

// Names in a list of {"String": {"sval": ...}} nodes.
std::vector<std::string> StringList(const Json& list) {
  std::vector<std::string> names;
  if (!list.is_array()) return names;
  for (const Json& item : list) {
    if (item.contains("String")) names.push_back(StringField(item["String"], "sval"));
  }
  return names;
}

// The text of a SET value: an A_Const (string, integer, float, boolean) or a bare word.
Result<std::string> SettingValueText(const Json& args) {
  if (!args.is_array() || args.size() != 1) {
    return Status::Invalid("SET takes exactly one value");
  }
  const Json& arg = args[0];
  if (arg.contains("A_Const")) {
    const Json& c = arg["A_Const"];
    if (c.contains("sval")) return StringField(c["sval"], "sval");
    if (c.contains("ival")) {
      const Json& v = c["ival"];
      return std::to_string(v.contains("ival") ? v["ival"].get<int64_t>() : 0);
    }
    if (c.contains("fval")) return StringField(c["fval"], "fval");
    if (c.contains("boolval")) {
      return std::string(BoolField(c["boolval"], "boolval") ? "true" : "false");
    }
  }
  return Status::Invalid("SET value must be a constant");
}

Result<bool> ParseBoolSetting(const std::string& name, const std::string& text) {
  const std::string v = AsciiLower(text);
  if (v == "true" || v == "on" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "off" || v == "0" || v == "no") return false;
  return Status::Invalid("setting " + name + " takes true or false, got '" + text + "'");
}

// A table of one string column named `column`, one row per line of `text`.
Table LinesTable(const std::string& column, const std::string& text) {
  ColumnBuilder builder(DataType::String());
  int64_t rows = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    builder.AppendString(std::string_view(text).substr(start, nl - start));
    ++rows;
    start = nl + 1;
  }
  Table table;
  table.schema.fields.push_back({column, DataType::String(), false});
  auto batch = std::make_shared<Batch>();
  batch->schema = table.schema;
  batch->columns.push_back(builder.Finish());
  batch->num_rows = rows;
  table.batches.push_back(std::move(batch));
  return table;
}

// Table names become file names: keep them to a safe alphabet.
bool IsFileSafeName(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '.') return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

// A statement rewritten before parsing (see session.h): CACHE TABLE, UNCACHE TABLE, or
// SET key = ALL (ALL is reserved in PostgreSQL's grammar; tandem.sql.explain takes it).
struct CacheDirective {
  bool uncache = false;
  bool if_exists = false;
  bool set_all = false;
};
using CacheDirectives = std::map<size_t, CacheDirective>;

size_t WordEnd(const std::string& s, size_t i) {
  while (i < s.size() &&
         (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '$')) {
    ++i;
  }
  return i;
}

std::string LowerWord(const std::string& s, size_t begin, size_t end) {
  return AsciiLower(s.substr(begin, end - begin));
}

// One past the ';' that ends the statement starting at `i` (quotes, dollar quotes and comments
// skipped), or the end of the text. Only used to find where CACHE statements may start.
size_t StatementEnd(const std::string& s, size_t i) {
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      for (++i; i < s.size(); ++i) {
        if (s[i] == c) {
          if (i + 1 < s.size() && s[i + 1] == c) {
            ++i;
          } else {
            break;
          }
        }
      }
      ++i;
    } else if (s.compare(i, 2, "--") == 0 || s.compare(i, 2, "/*") == 0) {
      i = SkipSpaceAndComments(s, i, s.size());
    } else if (c == '$') {
      const size_t tag_end = WordEnd(s, i + 1);
      if (tag_end < s.size() && s[tag_end] == '$' &&
          (tag_end == i + 1 || !std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
        const std::string tag = s.substr(i, tag_end + 1 - i);
        const size_t close = s.find(tag, tag_end + 1);
        i = close == std::string::npos ? s.size() : close + tag.size();
      } else {
        ++i;
      }
    } else if (c == ';') {
      return i + 1;
    } else {
      ++i;
    }
  }
  return i;
}

// Blanks [begin, end) but its newlines, so positions after it stay where they were.
void Blank(std::string* s, size_t begin, size_t end) {
  for (size_t k = begin; k < end; ++k) {
    if ((*s)[k] != '\n') (*s)[k] = ' ';
  }
}

// SET name = ALL / SET name TO ALL: the bare ALL becomes a same-length identifier.
void RewriteSetAll(std::string* text, size_t start, size_t first_end, CacheDirectives* directives) {
  const std::string& s = *text;
  size_t p = SkipSpaceAndComments(s, first_end, s.size());
  const size_t name_begin = p;
  while (p < s.size() &&
         (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_' || s[p] == '.')) {
    ++p;
  }
  if (p == name_begin) return;
  p = SkipSpaceAndComments(s, p, s.size());
  if (p < s.size() && s[p] == '=') {
    ++p;
  } else if (LowerWord(s, p, WordEnd(s, p)) == "to") {
    p = WordEnd(s, p);
  } else {
    return;
  }
  const size_t value = SkipSpaceAndComments(s, p, s.size());
  const size_t value_end = WordEnd(s, value);
  if (LowerWord(s, value, value_end) != "all") return;
  const size_t after = SkipSpaceAndComments(s, value_end, s.size());
  if (after < s.size() && s[after] != ';') return;
  (*text)[value + 2] = '_';  // "all" -> "al_": an identifier of the same length
  CacheDirective d;
  d.set_all = true;
  (*directives)[start] = d;
}

// Rewrites a CACHE [LAZY] TABLE / UNCACHE TABLE [IF EXISTS] statement starting at `start`.
void RewriteCacheStatement(std::string* text, size_t start, CacheDirectives* directives) {
  const std::string& s = *text;
  const size_t first_end = WordEnd(s, start);
  const std::string first = LowerWord(s, start, first_end);
  if (first == "set") {
    RewriteSetAll(text, start, first_end, directives);
    return;
  }
  if (first != "cache" && first != "uncache") return;
  size_t p = SkipSpaceAndComments(s, first_end, s.size());
  size_t e = WordEnd(s, p);
  if (first == "cache" && LowerWord(s, p, e) == "lazy") {
    p = SkipSpaceAndComments(s, e, s.size());
    e = WordEnd(s, p);
  }
  if (p == first_end || LowerWord(s, p, e) != "table") return;
  CacheDirective d;
  d.uncache = first == "uncache";
  if (d.uncache) {
    const size_t q = SkipSpaceAndComments(s, e, s.size());
    const size_t q_end = WordEnd(s, q);
    if (LowerWord(s, q, q_end) == "if") {
      const size_t r = SkipSpaceAndComments(s, q_end, s.size());
      const size_t r_end = WordEnd(s, r);
      if (LowerWord(s, r, r_end) == "exists") {
        d.if_exists = true;
        Blank(text, q, r_end);
      }
    }
  }
  const std::string replacement = d.uncache ? "UNLISTEN" : "LISTEN";
  Blank(text, start, e);
  text->replace(start, replacement.size(), replacement);
  (*directives)[start] = d;
}

std::string RewriteCacheStatements(const std::string& sql, CacheDirectives* directives) {
  std::string text = sql;
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = SkipSpaceAndComments(text, i, text.size());
    if (start >= text.size()) break;
    RewriteCacheStatement(&text, start, directives);
    i = StatementEnd(text, start);
  }
  return text;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

// The per-statement work: one instance per statement.
class StatementRunner {
 public:
  StatementRunner(Session& session, const std::string& script, const ParsedStatement& stmt,
                  const CacheDirectives& directives)
      : session_(session),
        script_(script),
        stmt_(stmt),
        directives_(directives),
        output_(std::exchange(session.next_output_, std::string())) {
    begin_ = static_cast<size_t>(std::clamp<int64_t>(stmt.location, 0, script.size()));
    end_ = stmt.length > 0 ? std::min<size_t>(begin_ + stmt.length, script.size()) : script.size();
    begin_ = SkipSpaceAndComments(script, begin_, end_);
  }

  Result<StatementResult> Run() {
    const Json& tree = stmt_.tree;
    if (!tree.is_object() || tree.size() != 1) return Status::Internal("malformed parse tree");
    const std::string kind = tree.begin().key();
    const Json& node = tree.begin().value();
    if (kind == "SelectStmt") return Query(node);
    if (kind == "ExplainStmt") return Explain(node);
    if (kind == "ViewStmt") return CreateView(node);
    if (kind == "CreateTableAsStmt") return CreateTableAs(node);
    if (kind == "DropStmt") return Drop(node);
    if (kind == "VariableSetStmt") return Set(node);
    if (kind == "CreateFunctionStmt") return CreateFunction(node);
    if (kind == "ListenStmt" || kind == "UnlistenStmt") {
      auto it = directives_.find(begin_);
      if (it != directives_.end() && !it->second.set_all) return CacheStatement(node, it->second);
    }
    std::string what = kind;
    if (what.size() > 4 && what.compare(what.size() - 4, 4, "Stmt") == 0) {
      what.resize(what.size() - 4);
    }
    return At(Status::Unsupported(what + " statements"), begin_);
  }

 private:
  // Adds " (line L:C)" for a byte offset of the script.
  Status At(const Status& st, size_t offset) const {
    return Status(st.code(), st.message() + " (line " +
                                 PositionOf(script_, static_cast<int>(offset)).ToString() + ")");
  }
  size_t LocationOf(const Json& node) const {
    auto it = node.find("location");
    if (it != node.end() && it->is_number_integer()) {
      const int64_t loc = it->get<int64_t>();
      if (loc >= 0 && static_cast<size_t>(loc) < script_.size()) return static_cast<size_t>(loc);
    }
    return begin_;
  }

  Result<PlanPtr> Plan(const Json& select) {
    BindOptions bind_options;
    bind_options.ansi = session_.options().ansi;
    bind_options.max_depth =
        static_cast<int>(session_.config().GetInt(config_keys::kMaxExpressionDepth));
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan,
                           BindSelect(select, script_, session_.catalog(), bind_options));
    OptimizerOptions optimizer_options;
    optimizer_options.join_order_by_bytes =
        session_.config().GetBool(config_keys::kJoinOrderByBytes);
    optimizer_options.join_order_enumerate = session_.config().Get(config_keys::kJoinOrder) == "dp";
    return Optimize(std::move(plan), optimizer_options);
  }

  void Configure(ExecContext& ctx) const {
    const Config& config = session_.config();
    ctx.eval.ansi = config.GetBool(config_keys::kAnsi);
    ctx.eval.gpu_kernels = GpuKernelsSetting(config.Get(config_keys::kGpuGeneratedKernels));
    ctx.eval.kernel_cache_dir = config.Get(config_keys::kGpuKernelCacheDir);
    ctx.eval.gpu_launches = std::make_shared<GpuExpressionLaunches>();
    ctx.num_threads = static_cast<int>(config.GetInt(config_keys::kThreads));
    ctx.pipelines = config.GetBool(config_keys::kPipelines);
    ctx.dictionary_conditions = config.GetBool(config_keys::kDictionaryConditions);
    ctx.spill_dir = config.Get(config_keys::kSpillDir);
    ctx.gpu_memory = gpu::DeviceMemoryConfigFrom(config);
    ctx.gpu_limit_bytes = config.GetInt(config_keys::kGpuLimit);
    ctx.gpu_chunk_bytes = config.GetInt(config_keys::kGpuChunkBytes);
    ctx.gpu_hash_partitions = static_cast<int>(config.GetInt(config_keys::kGpuHashPartitions));
    ctx.gpu_prefetch_slices = config.GetBool(config_keys::kGpuPrefetchSlices);
    ctx.gpu_parquet_decompress = config.GetBool(config_keys::kParquetGpuDecompress);
    ctx.gpu_input_spill = config.GetBool(config_keys::kGpuSpillInputs);
    ctx.cpu_batch_rows = config.GetInt(config_keys::kCpuBatchRows);
    ctx.scan_piece_rows = config.GetInt(config_keys::kCpuScanPieceRows);
    ctx.gpu_max_queries = config.GetInt(config_keys::kConcurrentGpuTasks);
    ctx.host_admission = config.GetBool(config_keys::kHostAdmission);
    ctx.table_cache = &session_.cache_;
    // Validated when it was set.
    Result<OomInjection> injection = ParseOomInjection(config.Get(config_keys::kInjectOom));
    if (injection.ok()) ctx.oom_injection = *injection;
    Result<OomInjection> host = ParseOomInjection(config.Get(config_keys::kInjectHostOom));
    if (host.ok()) ctx.host_oom_injection = *host;
  }

  void Notice(const std::string& text) const {
    if (session_.options().notice) session_.options().notice(text);
  }

  struct Placed {
    placement::PlacementSetup setup;
    placement::PlacementResult result;
  };

  // Chooses devices for an optimized plan; prints the placement report (tandem.sql.explain)
  // and, once per session, the CPU fallback notice.
  Result<Placed> Place(const PlanPtr& plan, placement::PlanPurpose purpose) const {
    const Config& config = session_.config();
    Placed placed;
    TANDEM_ASSIGN_OR_RAISE(placed.setup, placement::SetupPlacement(config, purpose));
    const TableCache* cache = &session_.cache_;
    placed.setup.options.residency = [cache](const PlanNode& scan) {
      const CachedTable* c = cache->FindHolding(scan.source.get(), scan.scan_columns);
      if (!c) return placement::Residency::kFiles;
      return c->device ? placement::Residency::kDevice : placement::Residency::kHost;
    };
    TANDEM_ASSIGN_OR_RAISE(placed.result, placement::Place(plan, placed.setup.options));
    const std::string level = config.Get(config_keys::kExplain);
    if (!placed.setup.fallback_notice.empty() && !session_.fallback_noticed_ &&
        (session_.options().notify_cpu_fallback || config.IsSet(config_keys::kDevice) ||
         level != "NONE")) {
      session_.fallback_noticed_ = true;
      Notice("tandem: " + placed.setup.fallback_notice);
    }
    if (level != "NONE") {
      const std::string report = placement::PlacementReport(placed.result, placed.setup, level);
      if (!report.empty()) Notice(report.substr(0, report.size() - 1));
    }
    return placed;
  }

  Result<const Json*> SelectOf(const Json& query, const char* statement) const {
    if (!query.is_object() || !query.contains("SelectStmt")) {
      return At(Status::Unsupported(std::string(statement) + " of anything but a query"), begin_);
    }
    return &query["SelectStmt"];
  }

  Result<StatementResult> Query(const Json& select) {
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(select));
    return RunQuery(plan, output_, nullptr);
  }

  // Runs a placed plan through `execute` in a fresh context (*context). Out of host memory with
  // tables cached in host memory that the query does not read: those used longest ago go back to
  // their files (as much as the query held when it failed, each time) and the query runs again;
  // *dropped names them.
  Result<Table> RunDroppingCachedTables(const PlanNode& root,
                                        const std::function<Result<Table>(ExecContext&)>& execute,
                                        bool time_gpu_operators,
                                        std::unique_ptr<ExecContext>* context,
                                        std::vector<std::string>* dropped) {
    auto fresh = [&] {
      *context = std::make_unique<ExecContext>();
      Configure(**context);
      (*context)->time_gpu_operators = time_gpu_operators;
    };
    fresh();
    Result<Table> run = execute(**context);
    while (!run.ok() && run.status().code() == StatusCode::kOutOfMemory &&
           !(*context)->Cancelled()) {
      const std::vector<std::string> names = session_.cache_.DropFromHost(
          ScannedSources(root), std::max<int64_t>((*context)->peak_host_bytes, 1));
      if (names.empty()) break;
      dropped->insert(dropped->end(), names.begin(), names.end());
      fresh();
      run = execute(**context);
    }
    return run;
  }

  static std::string DroppedNote(const std::vector<std::string>& dropped) {
    std::string note = "out of host memory: dropped cached tables";
    for (size_t i = 0; i < dropped.size(); ++i) note += (i ? ", " : " ") + dropped[i];
    return note + " from host memory (read from their files again) and ran again";
  }

  // Places and runs a query's plan. With `output`, its rows go to that Parquet or CSV file as
  // they are made (named by `names` when given) and the result holds none; a run that fails
  // leaves no file (each run writes a fresh one).
  Result<StatementResult> RunQuery(const PlanPtr& plan, const std::string& output,
                                   const Schema* names, const std::string& what = "") {
    TANDEM_ASSIGN_OR_RAISE(Placed placed, Place(plan, placement::PlanPurpose::kExecute));
    const PlanNode& root = *placed.result.plan;
    int64_t rows_written = -1;
    auto execute = [&](ExecContext& ctx) -> Result<Table> {
      if (output.empty()) return ::tandem::Execute(root, ctx);
      TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<cpu::ResultFileSink> sink,
                             cpu::ResultFileSink::Open(output, names ? *names : root.schema, what));
      TANDEM_ASSIGN_OR_RAISE(Table none, ::tandem::Execute(root, ctx, *sink));
      rows_written = sink->rows();
      return none;
    };
    std::unique_ptr<ExecContext> context;
    std::vector<std::string> dropped;
    Result<Table> run = RunDroppingCachedTables(root, execute, false, &context, &dropped);
    // Still out of host memory, with its rows bound for the caller: when the session allows it
    // and the rows may be what did not fit (estimated at an eighth of the budget or more), the
    // query runs again with its rows going to a spill file (tandem.spill.dir) as they are made,
    // which the caller reads back a batch at a time.
    std::shared_ptr<SpillFile> spooled;
    bool spooled_after_oom = false;
    if (!run.ok() && run.status().code() == StatusCode::kOutOfMemory && output.empty() &&
        session_.spool_large_results_ && !context->Cancelled() &&
        placement::EstimatedOutputBytes(root) * 8 >= static_cast<double>(host_memory::Limit())) {
      context = std::make_unique<ExecContext>();
      Configure(*context);
      spooled_after_oom = true;
      run = [&]() -> Result<Table> {
        TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<cpu::SpoolSink> sink,
                               cpu::SpoolSink::Open(context->spill_dir));
        TANDEM_ASSIGN_OR_RAISE(Table none, ::tandem::Execute(root, *context, *sink));
        spooled = sink->TakeFile();
        none.schema = root.schema;
        return none;
      }();
    }
    ExecContext& ctx = *context;
    StatementResult result;
    TANDEM_ASSIGN_OR_RAISE(result.table, std::move(run));
    result.spooled = std::move(spooled);
    result.rows_written = rows_written;
    result.devices = placement::DevicesLine(*placed.result.plan);
    if (!dropped.empty()) result.devices += "; " + DroppedNote(dropped);
    if (ctx.host_oom_retries > 0) {
      result.devices += "; out of host memory: " + std::to_string(ctx.host_oom_retries) +
                        " operator(s) ran again";
    }
    if (spooled_after_oom) {
      result.devices +=
          "; out of host memory: the query ran again with its rows going to a spill file "
          "(tandem.spill.dir), read back a batch at a time";
    }
    if (ctx.gpu_oom_fallbacks > 0) {
      result.devices += "; out of GPU memory: " + std::to_string(ctx.gpu_oom_fallbacks) +
                        " part(s) of the plan ran again on the CPU (EXPLAIN ANALYZE shows which)";
    }
    if (ctx.gpu_chunked_parts > 0) {
      result.devices +=
          "; GPU input in slices: " + std::to_string(ctx.gpu_chunked_parts) + " part(s)";
      if (ctx.gpu_split_retries > 0) {
        result.devices +=
            ", " + std::to_string(ctx.gpu_split_retries) + " after running out of GPU memory whole";
      }
    }
    if (ctx.gpu_partitioned_parts > 0) {
      result.devices +=
          "; GPU parts in hash partitions: " + std::to_string(ctx.gpu_partitioned_parts);
      if (ctx.gpu_partition_retries > 0) {
        result.devices += ", " + std::to_string(ctx.gpu_partition_retries) +
                          " after running out of GPU memory whole";
      }
    }
    if (ctx.gpu_input_spills > 0) {
      result.devices +=
          "; GPU operator inputs moved to host memory and back while another ran "
          "out of GPU memory: " +
          std::to_string(ctx.gpu_input_spills) + " time(s), " +
          FormatByteSize(ctx.gpu_input_spill_bytes);
    }
    if (ctx.gpu_admission_wait_ms >= 1) {
      char waited[32];
      std::snprintf(waited, sizeof(waited), "%.0f ms", ctx.gpu_admission_wait_ms);
      result.devices += std::string("; waited ") + waited + " for the GPU (est. peak " +
                        FormatByteSize(ctx.gpu_estimated_bytes) + ")";
    }
    if (ctx.host_admission_wait_ms >= 1) {
      char waited[32];
      std::snprintf(waited, sizeof(waited), "%.0f ms", ctx.host_admission_wait_ms);
      result.devices += std::string("; waited ") + waited + " for host memory (est. peak " +
                        FormatByteSize(ctx.host_estimated_bytes) + ")";
    }
    if (!ctx.cached_tables_moved.empty()) {
      result.devices += "; moved cached tables to host memory to make room on the GPU:";
      for (size_t i = 0; i < ctx.cached_tables_moved.size(); ++i) {
        result.devices += (i ? ", " : " ") + ctx.cached_tables_moved[i];
      }
    }
    result.peak_host_bytes = ctx.peak_host_bytes;
    result.spilled_bytes = ctx.spilled_bytes;
    result.peak_device_bytes = ctx.peak_device_bytes;
    result.gpu_admitted_bytes = ctx.gpu_estimated_bytes;
    return result;
  }

 public:
  // EXPLAIN [ANALYZE] of a SelectStmt: the placed plan with devices (or one JSON document).
  Result<StatementResult> ExplainSelect(const Json& select, bool analyze, bool json) {
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(select));
    TANDEM_ASSIGN_OR_RAISE(Placed placed, Place(plan, analyze ? placement::PlanPurpose::kExecute
                                                              : placement::PlanPurpose::kExplain));
    const PlanNode& root = *placed.result.plan;
    StatementResult result;
    if (!analyze) {
      ExecContext ctx;
      Configure(ctx);
      const PhysicalPlan physical = PlanPhysical(root, ctx);
      if (json) {
        result.table = LinesTable(
            "plan", placement::PlanToJson(placed.result, placed.setup, nullptr, &physical).dump(2));
      } else {
        result.table =
            LinesTable("plan", placement::PlacementHeader(placed.result, placed.setup) + "\n" +
                                   placement::PlanWithDevices(root, placed.setup, &physical));
      }
      return result;
    }
    std::unique_ptr<ExecContext> context;
    std::vector<std::string> dropped;
    const auto start = std::chrono::steady_clock::now();
    Result<Table> run = RunDroppingCachedTables(
        root, [&](ExecContext& c) { return ::tandem::Execute(root, c); }, true, &context, &dropped);
    TANDEM_ASSIGN_OR_RAISE(Table rows, std::move(run));
    const double millis = MillisSince(start);
    const ExecContext& ctx = *context;
    if (json) {
      nlohmann::json j = placement::PlanToJson(placed.result, placed.setup, &ctx);
      j["total"] = {{"rows", rows.num_rows()}, {"ms", millis}};
      if (!dropped.empty()) j["memory"] = DroppedNote(dropped);
      result.table = LinesTable("plan", j.dump(2));
      return result;
    }
    char total[96];
    std::snprintf(total, sizeof(total), "Total: %lld rows, %.3f ms",
                  static_cast<long long>(rows.num_rows()), millis);
    const std::string dropped_line =
        dropped.empty() ? ""
                        : "Memory: " + DroppedNote(dropped) +
                              " (the metrics are the last run's; the total counts every run)\n";
    result.table =
        LinesTable("plan", placement::PlacementHeader(placed.result, placed.setup) + "\n" +
                               PlanToStringWithMetrics(root, ctx) + dropped_line + total);
    return result;
  }

 private:
  Result<StatementResult> Explain(const Json& node) {
    bool analyze = false;
    bool json = false;
    if (node.contains("options")) {
      for (const Json& option : node["options"]) {
        if (!option.contains("DefElem")) continue;
        const Json& def = option["DefElem"];
        const std::string name = AsciiLower(StringField(def, "defname"));
        std::string value;
        if (def.contains("arg")) {
          const Json& arg = def["arg"];
          if (arg.contains("String")) {
            value = StringField(arg["String"], "sval");
          } else if (Result<std::string> text = SettingValueText(Json::array({arg})); text.ok()) {
            value = *text;
          }
        }
        bool on = true;
        if (name != "format" && !value.empty()) {
          Result<bool> b = ParseBoolSetting(name, value);
          if (!b.ok()) return At(b.status(), LocationOf(def));
          on = *b;
        }
        if (name == "analyze") {
          analyze = on;
        } else if (name == "format") {
          const std::string f = AsciiLower(value);
          if (f != "json" && f != "text") {
            return At(Status::Unsupported("EXPLAIN format " + value + " (text or json)"),
                      LocationOf(def));
          }
          json = f == "json";
        } else if (name != "verbose" && name != "costs") {
          return At(Status::Unsupported("EXPLAIN option " + name), LocationOf(def));
        }
      }
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* select, SelectOf(node["query"], "EXPLAIN"));
    return ExplainSelect(*select, analyze, json);
  }

  // CACHE TABLE name: the table's columns in GPU memory when a GPU is usable and
  // tandem.sql.device is not cpu, else in host memory. UNCACHE TABLE [IF EXISTS] name.
  Result<StatementResult> CacheStatement(const Json& node, const CacheDirective& d) {
    const std::string name = StringField(node, "conditionname");
    Catalog& catalog = session_.catalog();
    std::shared_ptr<TableSource> source = catalog.FindTable(name);
    const char* statement = d.uncache ? "UNCACHE TABLE" : "CACHE TABLE";
    if (!source) {
      if (d.uncache && d.if_exists) return Message("no table named " + name);
      if (catalog.FindView(name)) {
        return At(Status::Unsupported(std::string(statement) + " of a view (" + name + ")"),
                  begin_);
      }
      return At(Status::Invalid("no table named " + name), begin_);
    }
    TableCache& cache = session_.cache_;
    if (d.uncache) {
      return Message(cache.Remove(source.get()) ? "uncached table " + name
                                                : "table " + name + " was not cached");
    }
    cache.Remove(source.get());
    std::vector<int> columns;
    for (int i = 0; i < source->schema.num_fields(); ++i) columns.push_back(i);
    PlanPtr scan = MakeScan(source, columns);
    ExecContext ctx;
    Configure(ctx);
    ctx.table_cache = nullptr;
    std::vector<ProjectedColumn> projected;  // each column's decoded size, when refused whole
    Result<Table> read = ReadToCache(*scan, *source, ctx, &projected);
    std::string left_out;  // the columns a table cached in part leaves in its files, and why
    std::string fingerprint;
    const Config& config = session_.config();
    std::string why_not;
    const bool on_device = config.Get(config_keys::kDevice) != "cpu" && gpu::DeviceUsable(&why_not);
    if (!read.ok() && read.status().code() == StatusCode::kOutOfMemory && !ctx.Cancelled() &&
        !projected.empty() && !on_device) {
      // Too large whole: the narrower columns, if they fit beside a share left for queries.
      // Only where the table goes to host memory: a table in part in GPU memory is untested.
      const int64_t limit = host_memory::Limit();
      const int64_t room =
          limit - host_memory::InUse() -
          static_cast<int64_t>(kHostShareLeftForQueries * static_cast<double>(limit));
      const ColumnsToCache cut = NarrowColumnsThatFit(projected, room);
      if (!cut.kept.empty()) {
        for (int c : cut.left_out) {
          left_out += (left_out.empty() ? "" : ", ") + source->schema.field(c).name;
        }
        left_out += cut.left_out.size() == 1
                        ? " stays in its files (scans read it from there): whole, "
                        : " stay in its files (scans read them from there): whole, ";
        left_out += read.status().message();
        columns = cut.kept;
        fingerprint = FilesFingerprint(*source);  // before reading: a later change shows
        scan = MakeScan(source, columns);
        read = ReadToCache(*scan, *source, ctx, nullptr);
      }
    }
    if (!read.ok() && read.status().code() == StatusCode::kOutOfMemory && !ctx.Cancelled()) {
      // Caching is an optimisation: a table that host memory cannot hold stays in its files.
      StatementResult warning =
          Message("table " + name +
                  " not cached (queries read it from its files): " + read.status().message());
      warning.warning = true;
      return warning;
    }
    TANDEM_ASSIGN_OR_RAISE(Table table, std::move(read));
    CachedTable entry;
    entry.name = name;
    entry.source = source;
    if (!left_out.empty()) {
      entry.columns = columns;
      entry.files_fingerprint = fingerprint;
    }
    const int64_t table_rows = table.num_rows();
    entry.rows = table_rows;
    std::string note;
    if (on_device) {
      TANDEM_RETURN_NOT_OK(gpu::InitRuntime(ctx.gpu_memory));
      if (!session_.cache_stream_) {
        TANDEM_ASSIGN_OR_RAISE(gpu::Stream stream, gpu::Stream::Create());
        session_.cache_stream_.emplace(std::move(stream));
      }
      // The copy is part of the statement: injected failures and tandem.memory.gpu.limit apply
      // to it too.
      gpu::SetDeviceLimit(ctx.gpu_limit_bytes);
      ArmOomInjection(ctx.oom_injection);
      Result<gpu::DeviceBatchPtr> copied = CacheOnDevice(table, ctx.gpu_limit_bytes, &note);
      ArmOomInjection(OomInjection{});
      TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr batch, std::move(copied));
      if (batch) {
        entry.bytes = gpu::DeviceBytes(*batch);
        entry.device = std::move(batch);
      }
    }
    if (!entry.device) {
      entry.bytes = cpu::opx::TableBytes(table);
      entry.host = std::make_shared<const Table>(std::move(table));
    }
    const std::string where =
        FormatByteSize(entry.bytes) + " in " + (entry.device ? "GPU" : "host") + " memory" + note;
    const int total_columns = source->schema.num_fields();
    cache.Put(std::move(entry));
    if (left_out.empty()) {
      return Message("cached table " + name + " (" + std::to_string(table_rows) + " rows, " +
                     where + ")");
    }
    StatementResult warning =
        Message("table " + name + " cached in part (" + std::to_string(table_rows) + " rows, " +
                std::to_string(columns.size()) + " of " + std::to_string(total_columns) +
                " columns, " + where + "): " + left_out);
    warning.warning = true;
    return warning;
  }

  // Reads a table to cache. Parquet files are watched as they are decoded: once 2 % of the
  // footers' rows are in, a table whose decoded size, projected from them, passes what the host
  // budget has free by more than 10 % fails at once (out of memory) instead of after reading
  // most of itself (TPC-H SF100's lineitem beside the seven other tables: 134 s).
  // When it refuses the table, `projected_columns` (if given) gets each column's share of the
  // projection.
  Result<Table> ReadToCache(const PlanNode& scan, const TableSource& source, ExecContext& ctx,
                            std::vector<ProjectedColumn>* projected_columns) {
    const int64_t expected_rows = source.estimated_rows;
    if (source.kind != TableSource::Kind::kParquet || expected_rows <= 0) {
      return ::tandem::Execute(scan, ctx);
    }
    const int64_t free = host_memory::Limit() - host_memory::InUse();
    std::atomic<int64_t> rows{0}, bytes{0};
    const size_t ncols = scan.scan_columns.size();
    std::unique_ptr<std::atomic<int64_t>[]> column_bytes(new std::atomic<int64_t>[ncols]());
    std::mutex refusing;
    cpu::ScanPieceFn watch = [&](BatchPtr piece) -> Result<std::vector<BatchPtr>> {
      int64_t piece_bytes = 0;
      for (size_t c = 0; c < ncols && c < piece->columns.size(); ++c) {
        const int64_t n = cpu::opx::ColumnBytes(*piece->columns[c]);
        column_bytes[c] += n;
        piece_bytes += n;
      }
      const int64_t r = rows += piece->num_rows;
      const int64_t b = bytes += piece_bytes;
      if (r * 50 >= expected_rows) {
        const double projected =
            static_cast<double>(b) / static_cast<double>(r) * static_cast<double>(expected_rows);
        if (projected > 1.1 * static_cast<double>(free)) {
          if (projected_columns) {
            std::lock_guard<std::mutex> lock(refusing);
            int64_t sum = 0;
            for (size_t c = 0; c < ncols; ++c) sum += column_bytes[c].load();
            projected_columns->assign(ncols, ProjectedColumn{});
            for (size_t c = 0; c < ncols; ++c) {
              ProjectedColumn& p = (*projected_columns)[c];
              if (sum > 0) {
                p.bytes =
                    static_cast<int64_t>(projected * static_cast<double>(column_bytes[c].load()) /
                                         static_cast<double>(sum));
              }
              p.variable_width = scan.schema.field(static_cast<int>(c)).type.is_string_like();
            }
          }
          return Status::OutOfMemory(
              "it decodes to about " + FormatByteSize(static_cast<int64_t>(projected)) +
              " (projected from its first " + std::to_string(r) + " rows), more than the " +
              FormatByteSize(std::max<int64_t>(free, 0)) +
              " host memory has free under tandem.memory.host.limit");
        }
      }
      return std::vector<BatchPtr>{std::move(piece)};
    };
    return cpu::ScanStreaming(scan, ctx, watch);
  }

  // Copies a table to be cached into GPU memory. When the GPU is full, the cached tables used
  // longest ago move to host memory to make room for it (TablesToMoveForRoom), and the copy is
  // tried again once; when no such tables exist (even moving every one would not make room, or
  // host memory cannot take them), nothing moves. Where the pool's figures show room but the copy
  // failed all the same (fragmentation, an injected failure), the tables move one at a time, the
  // copy tried after each, until those moved held as much as the new table needs. A table that does
  // not go to the GPU stays in host memory (nullptr; `note` says why and what moved). Never an
  // error for lack of memory.
  Result<gpu::DeviceBatchPtr> CacheOnDevice(const Table& table, int64_t gpu_limit,
                                            std::string* note) {
    const gpu::Stream& stream = *session_.cache_stream_;
    auto copy = [&]() -> Result<gpu::DeviceBatchPtr> {
      Result<gpu::DeviceBatchPtr> batch = gpu::ToDevice(table, stream);
      // Frees of a failed copy are stream-ordered: let them land before trying again.
      TANDEM_RETURN_NOT_OK(stream.Synchronize());
      return batch;
    };
    Result<gpu::DeviceBatchPtr> batch = copy();
    if (batch.ok() || batch.status().code() != StatusCode::kOutOfMemory) return batch;
    std::string why_not;
    const int64_t need = gpu::DeviceBytesOf(table);
    const gpu::PoolStats pool = gpu::GetPoolStats();
    GpuRoom room;
    room.capacity = pool.pool_limit_bytes;  // set once the runtime started
    if (gpu_limit > 0 && (room.capacity <= 0 || gpu_limit < room.capacity)) {
      room.capacity = gpu_limit;
    }
    room.used = pool.used_bytes;
    room.host_room = host_memory::Limit() - host_memory::InUse();
    const std::vector<CachedTable*> make_way =
        TablesToMoveForRoom(need, room, session_.cache_.OnDeviceLeastRecentlyUsedFirst(), &why_not);
    if (!why_not.empty()) {
      *note = "; kept in host memory: " + why_not;
      return gpu::DeviceBatchPtr();
    }
    std::string moved;  // names of the tables moved to host memory
    auto kept = [&](const std::string& why) {
      *note = (moved.empty() ? "" : "; moved to host memory: " + moved) +
              "; kept in host memory, " + why;
      return gpu::DeviceBatchPtr();
    };
    // Moves one table off the GPU; false (with `note` set) when host memory cannot take it.
    auto move = [&](CachedTable* t) -> Result<bool> {
      const Status done = MoveCachedTableToHost(t, stream);
      if (done.code() == StatusCode::kOutOfMemory) {
        kept("the GPU has no room and moving " + t->name +
             " out of it does not fit host memory: " + done.message());
        return false;
      }
      TANDEM_RETURN_NOT_OK(done);
      moved += (moved.empty() ? "" : ", ") + t->name;
      return true;
    };
    if (!make_way.empty()) {
      for (CachedTable* t : make_way) {
        TANDEM_ASSIGN_OR_RAISE(bool done, move(t));
        if (!done) return gpu::DeviceBatchPtr();
      }
      batch = copy();
      if (batch.ok()) *note = "; moved to host memory: " + moved;
      if (batch.ok() || batch.status().code() != StatusCode::kOutOfMemory) return batch;
      return kept("the GPU still had no room: " + batch.status().message());
    }
    // One at a time, until the tables moved held as much as the new table needs.
    int64_t moved_bytes = 0;
    for (;;) {
      CachedTable* oldest = session_.cache_.LeastRecentlyUsedOnDevice();
      if (!oldest || moved_bytes >= need) {
        return kept("the GPU has no room: " + batch.status().message());
      }
      moved_bytes += oldest->bytes;
      TANDEM_ASSIGN_OR_RAISE(bool done, move(oldest));
      if (!done) return gpu::DeviceBatchPtr();
      batch = copy();
      if (batch.ok()) *note = "; moved to host memory: " + moved;
      if (batch.ok() || batch.status().code() != StatusCode::kOutOfMemory) return batch;
    }
  }

  Result<StatementResult> CreateView(const Json& node) {
    const Json& view = node["view"];
    const std::string name = StringField(view, "relname");
    if (!StringField(view, "schemaname").empty()) {
      return At(Status::Unsupported("schema-qualified view names"), LocationOf(view));
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* select, SelectOf(node["query"], "CREATE VIEW"));
    const bool replace = BoolField(node, "replace");
    if (!replace && (session_.catalog().FindTable(name) || session_.catalog().FindView(name))) {
      return At(Status::Invalid("table or view " + name + " already exists"), LocationOf(view));
    }
    const size_t query_start = FindViewQueryStart(script_, begin_, end_);
    if (query_start == std::string::npos) {
      return At(Status::Invalid("CREATE VIEW without AS"), begin_);
    }
    std::string text = script_.substr(query_start, end_ - query_start);
    const std::vector<std::string> aliases = StringList(node.value("aliases", Json::array()));
    if (!aliases.empty()) {
      std::string wrapped = "SELECT * FROM (" + text + "\n) AS " + QuoteIdentifier(name) + "(";
      for (size_t i = 0; i < aliases.size(); ++i) {
        wrapped += (i ? ", " : "") + QuoteIdentifier(aliases[i]);
      }
      text = wrapped + ")";
    }
    // Bind now, so a broken view is reported where it is written (positions in the script).
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(*select));
    if (!aliases.empty() && aliases.size() > static_cast<size_t>(plan->schema.num_fields())) {
      return At(Status::Invalid("view " + name + " names " + std::to_string(aliases.size()) +
                                " columns but its query has " +
                                std::to_string(plan->schema.num_fields())),
                LocationOf(view));
    }
    TANDEM_RETURN_NOT_OK(session_.catalog().AddView(name, text, replace));
    return Message("created view " + name);
  }

  Result<StatementResult> CreateTableAs(const Json& node) {
    if (StringField(node, "objtype") != "OBJECT_TABLE") {
      return At(Status::Unsupported("CREATE MATERIALIZED VIEW"), begin_);
    }
    const Json& into = node["into"];
    const Json& rel = into["rel"];
    const std::string name = StringField(rel, "relname");
    if (!StringField(rel, "schemaname").empty()) {
      return At(Status::Unsupported("schema-qualified table names"), LocationOf(rel));
    }
    if (!IsFileSafeName(name)) {
      return At(Status::Invalid("table name '" + name +
                                "' cannot be a file name (use letters, digits, _ - .)"),
                LocationOf(rel));
    }
    Catalog& catalog = session_.catalog();
    const bool or_replace = BoolField(node, "tandem_or_replace");
    const std::string path =
        (std::filesystem::path(session_.options().table_dir) / (name + ".parquet")).string();
    std::error_code ec;
    const bool file_exists = std::filesystem::exists(path, ec);
    if (catalog.FindView(name)) {
      return At(Status::Invalid("a view named " + name + " exists"), LocationOf(rel));
    }
    if (!or_replace && (catalog.FindTable(name) || file_exists)) {
      if (BoolField(node, "if_not_exists")) return Message("table " + name + " already exists");
      const std::string what = catalog.FindTable(name) ? "table " + name : "the file " + path;
      return At(Status::Invalid(what + " already exists (CREATE OR REPLACE TABLE " + name +
                                " overwrites it)"),
                LocationOf(rel));
    }
    if (or_replace && BoolField(node, "if_not_exists")) {
      return At(Status::Invalid("CREATE OR REPLACE TABLE cannot also say IF NOT EXISTS"),
                LocationOf(rel));
    }
    if (BoolField(into, "skipData")) {
      return At(Status::Unsupported("CREATE TABLE ... WITH NO DATA"), begin_);
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* select, SelectOf(node["query"], "CREATE TABLE AS"));
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(*select));
    // The table's columns, checked before any row is made.
    Schema schema = plan->schema;
    const std::vector<std::string> names = StringList(into.value("colNames", Json::array()));
    if (names.size() > static_cast<size_t>(schema.num_fields())) {
      return At(
          Status::Invalid("table " + name + " names " + std::to_string(names.size()) +
                          " columns but its query has " + std::to_string(schema.num_fields())),
          LocationOf(rel));
    }
    for (size_t i = 0; i < names.size(); ++i) schema.fields[i].name = names[i];
    std::set<std::string> seen;
    for (const Field& f : schema.fields) {
      if (!seen.insert(AsciiLower(f.name)).second) {
        return At(Status::Invalid("table " + name + " would have two columns named " + f.name +
                                  "; give them different aliases"),
                  LocationOf(rel));
      }
    }
    // The rows go to the file as the query makes them (a table larger than memory is written).
    TANDEM_ASSIGN_OR_RAISE(StatementResult written,
                           RunQuery(plan, path, &schema, "CREATE TABLE " + name));
    TANDEM_ASSIGN_OR_RAISE(auto source, TableSource::Parquet(name, path));
    TANDEM_RETURN_NOT_OK(catalog.AddTable(name, std::move(source), or_replace));
    return Message("created table " + name + " (" + std::to_string(written.rows_written) +
                   " rows, " + path + ")");
  }

  // CREATE FUNCTION / DROP FUNCTION: user-defined functions (udf/sql_statements.h).
  Result<StatementResult> CreateFunction(const Json& node) {
    TANDEM_ASSIGN_OR_RAISE(
        std::string message,
        udf::CreateFunctionStatement(node, script_, static_cast<int>(begin_), session_.catalog()));
    return Message(std::move(message));
  }

  Result<StatementResult> Drop(const Json& node) {
    const std::string type = StringField(node, "removeType");
    if (type == "OBJECT_FUNCTION") {
      TANDEM_ASSIGN_OR_RAISE(std::string message,
                             udf::DropFunctionStatement(node, script_, static_cast<int>(begin_)));
      return Message(std::move(message));
    }
    const bool is_view = type == "OBJECT_VIEW";
    if (!is_view && type != "OBJECT_TABLE") {
      return At(Status::Unsupported("DROP of anything but tables and views"), begin_);
    }
    const bool if_exists = BoolField(node, "missing_ok");
    Catalog& catalog = session_.catalog();
    std::string dropped;
    for (const Json& object : node.value("objects", Json::array())) {
      const std::vector<std::string> parts = StringList(
          object.contains("List") ? object["List"].value("items", Json::array()) : Json::array());
      if (parts.size() != 1) {
        return At(Status::Unsupported("schema-qualified names in DROP"), begin_);
      }
      const std::string& name = parts[0];
      const bool has_table = catalog.FindTable(name) != nullptr;
      const bool has_view = catalog.FindView(name) != nullptr;
      if (!has_table && !has_view) {
        if (if_exists) continue;
        return At(
            Status::Invalid(std::string("no ") + (is_view ? "view" : "table") + " named " + name),
            begin_);
      }
      if (is_view ? has_table : has_view) {
        return At(Status::Invalid(name + " is a " + (has_view ? "view" : "table") + "; use DROP " +
                                  (has_view ? "VIEW" : "TABLE")),
                  begin_);
      }
      if (has_table) session_.cache_.Remove(catalog.FindTable(name).get());
      TANDEM_RETURN_NOT_OK(catalog.Drop(name, false));
      dropped += (dropped.empty() ? "" : ", ") + name;
    }
    return Message(dropped.empty()
                       ? "nothing dropped"
                       : std::string("dropped ") + (is_view ? "view " : "table ") + dropped);
  }

  Result<StatementResult> Set(const Json& node) {
    const std::string kind = StringField(node, "kind");
    const std::string name = StringField(node, "name");
    const bool reset = kind == "VAR_RESET";
    if (!reset && kind != "VAR_SET_VALUE") {
      return At(Status::Unsupported("SET " + kind), begin_);
    }
    Config& config = session_.config();
    Status st;
    if (reset) {
      st = config.Reset(name);
    } else {
      Result<std::string> text = SettingValueText(node.value("args", Json::array()));
      if (!text.ok()) return At(text.status(), begin_);
      auto it = directives_.find(begin_);
      const bool all = it != directives_.end() && it->second.set_all;
      st = config.Set(name, all ? std::string("ALL") : *text);
    }
    if (!st.ok()) return At(st, begin_);
    SessionOptions& options = session_.options();
    host_memory::SetLimit(config.GetInt(config_keys::kHostMemoryLimit));
    options.ansi = config.GetBool(config_keys::kAnsi);
    options.num_threads = static_cast<int>(config.GetInt(config_keys::kThreads));
    const std::string canonical = Config::CanonicalName(name);
    // "threads" keeps its short name in the message, as before the registry.
    const std::string shown = AsciiLower(name) == "threads" ? std::string("threads") : canonical;
    return Message("set " + shown + " = " + config.Get(canonical));
  }

  static StatementResult Message(std::string text) {
    StatementResult result;
    result.kind = StatementResult::Kind::kMessage;
    result.message = std::move(text);
    return result;
  }

  Session& session_;
  const std::string& script_;
  const ParsedStatement& stmt_;
  const CacheDirectives& directives_;
  std::string output_;  // Session::WriteNextQueryTo: where a query's rows go, when set
  size_t begin_ = 0;    // first byte of the statement's text (after leading comments)
  size_t end_ = 0;
};

Session::Session(SessionOptions options) : options_(std::move(options)) {
  Config& config = options_.config;
  if (!config.IsSet(config_keys::kAnsi) && options_.ansi) {
    (void)config.Set(config_keys::kAnsi, "true");
  }
  if (!config.IsSet(config_keys::kThreads) && options_.num_threads > 0) {
    (void)config.Set(config_keys::kThreads, std::to_string(options_.num_threads));
  }
  options_.ansi = config.GetBool(config_keys::kAnsi);
  options_.num_threads = static_cast<int>(config.GetInt(config_keys::kThreads));
  host_memory::SetLimit(config.GetInt(config_keys::kHostMemoryLimit));
}

Session::~Session() {
  cache_.Clear();  // device batches are freed on cache_stream_, destroyed after
}

namespace {

// Runs a statement's work on a stack deep enough for it (common/large_stack.h): the parser
// recurses once per level of the SQL's nesting (up to a level per two bytes of text), the
// binder and the passes after it up to tandem.sql.maxExpressionDepth levels.
template <typename T>
Result<T> OnStatementStack(const Config& config, size_t text_bytes,
                           const std::function<Result<T>()>& run) {
  const size_t depth = static_cast<size_t>(config.GetInt(config_keys::kMaxExpressionDepth));
  const size_t bytes = std::max({size_t{256} << 20, depth * (size_t{16} << 10), text_bytes * 512});
  std::optional<Result<T>> result;
  RunOnLargeStack(bytes, [&] { result.emplace(run()); });
  return std::move(*result);
}

}  // namespace

Result<std::vector<ParsedStatement>> SplitScript(const std::string& sql) {
  return OnStatementStack<std::vector<ParsedStatement>>(Config(), sql.size(), [&] {
    CacheDirectives directives;
    return ParseSql(RewriteCacheStatements(sql, &directives));
  });
}

Status Session::RegisterTable(const std::string& name, const std::string& path) {
  Result<std::shared_ptr<TableSource>> source = EndsWithIgnoringCase(path, ".csv")
                                                    ? TableSource::Csv(name, path)
                                                    : TableSource::Parquet(name, path);
  if (!source.ok()) return source.status().WithContext("table " + name);
  return catalog_.AddTable(name, *source, true);
}

Result<std::vector<StatementResult>> Session::ExecuteScript(const std::string& sql) {
  return OnStatementStack<std::vector<StatementResult>>(config(), sql.size(),
                                                        [&] { return ExecuteScriptHere(sql); });
}

Result<StatementResult> Session::Execute(const std::string& sql) {
  return OnStatementStack<StatementResult>(config(), sql.size(), [&] { return ExecuteHere(sql); });
}

Result<StatementResult> Session::ExplainQuery(const std::string& query, bool analyze, bool json) {
  return OnStatementStack<StatementResult>(config(), query.size(),
                                           [&] { return ExplainQueryHere(query, analyze, json); });
}

Result<std::vector<StatementResult>> Session::ExecuteScriptHere(const std::string& sql) {
  CacheDirectives directives;
  const std::string script = RewriteCacheStatements(sql, &directives);
  TANDEM_ASSIGN_OR_RAISE(std::vector<ParsedStatement> statements, ParseSql(script));
  std::vector<StatementResult> results;
  for (const ParsedStatement& stmt : statements) {
    const auto start = std::chrono::steady_clock::now();
    TANDEM_ASSIGN_OR_RAISE(StatementResult result,
                           StatementRunner(*this, script, stmt, directives).Run());
    result.millis = MillisSince(start);
    results.push_back(std::move(result));
  }
  return results;
}

Result<StatementResult> Session::ExecuteHere(const std::string& sql) {
  CacheDirectives directives;
  const std::string script = RewriteCacheStatements(sql, &directives);
  TANDEM_ASSIGN_OR_RAISE(std::vector<ParsedStatement> statements, ParseSql(script));
  if (statements.size() != 1) {
    return Status::Invalid("expected one SQL statement, got " + std::to_string(statements.size()));
  }
  const auto start = std::chrono::steady_clock::now();
  TANDEM_ASSIGN_OR_RAISE(StatementResult result,
                         StatementRunner(*this, script, statements[0], directives).Run());
  result.millis = MillisSince(start);
  return result;
}

Result<StatementResult> Session::ExplainQueryHere(const std::string& query, bool analyze,
                                                  bool json) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<ParsedStatement> statements, ParseSql(query));
  if (statements.size() != 1) {
    return Status::Invalid("explain takes one SQL statement, got " +
                           std::to_string(statements.size()));
  }
  const nlohmann::json& tree = statements[0].tree;
  if (!tree.is_object() || !tree.contains("SelectStmt")) {
    return Status::Invalid("explain takes a query (SELECT, WITH, VALUES or a set operation)");
  }
  const CacheDirectives none;
  const auto start = std::chrono::steady_clock::now();
  TANDEM_ASSIGN_OR_RAISE(StatementResult result,
                         StatementRunner(*this, query, statements[0], none)
                             .ExplainSelect(tree["SelectStmt"], analyze, json));
  result.millis = MillisSince(start);
  return result;
}

}  // namespace tandem::sql
