// `tandem meta FILE [--json]`: prints a Parquet file's footer the way parquet-tools meta does:
// file facts, key-value metadata, the schema (Parquet physical / logical / converted types next
// to the Tandem type each leaf becomes), then per row group every column chunk's type, encodings,
// codec, sizes, page offsets and decoded statistics. --json prints the same as one JSON object.
#include <cstdio>
#include <string>
#include <vector>

#include "tandem/cli/command.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/statistics.h"
#include "tandem/io/parquet/type_mapping.h"

namespace tandem::cli {
namespace {

using namespace tandem::parquet;

constexpr const char* kUsage = "meta FILE [--json]";
constexpr const char* kHelpLine =
    "meta FILE [--json]      Parquet footer: schema, row groups, statistics";

// ---- JSON output helpers -------------------------------------------------------------------

bool IsValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (extra < 0 || i + extra >= s.size() + (extra == 0 ? 1 : 0)) return extra == 0;
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += extra + 1;
  }
  return true;
}

std::string Json(const std::string& s) {
  const bool utf8 = IsValidUtf8(s);
  std::string out = "\"";
  char buf[8];
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || (c >= 0x80 && !utf8)) {
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

// ---- the report ----------------------------------------------------------------------------

struct Printer {
  bool json;
  std::string out;

  void Line(const std::string& s) { out += s + "\n"; }
};

std::string Truncated(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  return s.substr(0, max) + "... (" + std::to_string(s.size()) + " bytes)";
}

std::string EncodingList(const std::vector<Encoding>& encodings, bool json) {
  std::string s = json ? "[" : "";
  for (size_t i = 0; i < encodings.size(); ++i) {
    if (i) s += json ? "," : " ";
    s += json ? Json(EncodingName(encodings[i])) : EncodingName(encodings[i]);
  }
  return json ? s + "]" : s;
}

// Text of one schema element (leaf or group) without its name.
std::string ElementDescription(const SchemaElement& e) {
  std::string s = e.repetition ? RepetitionName(*e.repetition) : "";
  if (!s.empty()) s += ' ';
  if (!e.type) {
    s += "group";
  } else {
    s += PhysicalTypeName(*e.type);
    if (*e.type == PhysicalType::FIXED_LEN_BYTE_ARRAY && e.type_length) {
      s += "(" + std::to_string(*e.type_length) + ")";
    }
  }
  if (e.logical_type && e.logical_type->kind != LogicalType::Kind::kNone) {
    s += " logical=" + LogicalTypeName(*e.logical_type);
  }
  if (e.converted_type) {
    s += " converted=" + ConvertedTypeName(*e.converted_type);
    if (*e.converted_type == ConvertedType::DECIMAL) {
      s += "(" + std::to_string(e.precision.value_or(0)) + "," +
           std::to_string(e.scale.value_or(0)) + ")";
    }
  }
  return s;
}

// The Tandem type of leaf i, or why it cannot be read.
std::string TandemTypeOf(const std::vector<parquet::LeafColumn>& leaves, const Schema& schema,
                         size_t i) {
  if (i < leaves.size() && !leaves[i].unsupported.empty()) {
    return "not supported yet: " + leaves[i].unsupported;
  }
  if (i < static_cast<size_t>(schema.num_fields()))
    return schema.field(static_cast<int>(i)).type.ToString();
  return "?";
}

void PrintSchemaText(const FileMetaData& meta, const std::vector<parquet::LeafColumn>& leaves,
                     const Schema& schema, Printer* p) {
  p->Line("schema:");
  // Depth-first walk with an explicit stack of remaining children per open group.
  std::vector<int64_t> open;
  if (meta.schema.empty()) return;
  p->Line("  " + meta.schema[0].name + " (root, " +
          std::to_string(meta.schema[0].num_children.value_or(0)) + " children)");
  open.push_back(meta.schema[0].num_children.value_or(0));
  size_t leaf = 0;
  for (size_t i = 1; i < meta.schema.size() && !open.empty(); ++i) {
    while (!open.empty() && open.back() <= 0) open.pop_back();
    if (open.empty()) break;
    --open.back();
    const SchemaElement& e = meta.schema[i];
    const std::string indent(2 + 2 * open.size(), ' ');
    std::string line = indent + e.name + ": " + ElementDescription(e);
    if (e.num_children.value_or(0) > 0) {
      p->Line(line);
      open.push_back(*e.num_children);
    } else if (e.type) {
      p->Line(line + " -> " + TandemTypeOf(leaves, schema, leaf++));
    } else {
      p->Line(line);
    }
  }
}

std::string StatisticsText(const ColumnMetaData& md, const SchemaElement* element,
                           const DataType* type, bool json) {
  if (!md.statistics) return json ? "null" : "none";
  const Statistics& s = *md.statistics;
  ColumnStatistics decoded;
  if (element && type) decoded = DecodeStatistics(s, *element, *type);
  std::vector<std::pair<std::string, std::string>> fields;
  if (decoded.min) {
    const std::string lo = FormatStatValue(*decoded.min, *type);
    const std::string hi = FormatStatValue(*decoded.max, *type);
    fields.push_back({"min", json ? Json(lo) : lo});
    fields.push_back({"max", json ? Json(hi) : hi});
    if (decoded.from_deprecated_fields) fields.push_back({"from_deprecated_fields", "true"});
  } else if (s.min_value || s.max_value || s.min || s.max) {
    fields.push_back({"min_max", json ? Json("present but not usable") : "present but not usable"});
  }
  if (s.null_count) fields.push_back({"nulls", std::to_string(*s.null_count)});
  if (s.distinct_count) fields.push_back({"distinct", std::to_string(*s.distinct_count)});
  std::string out = json ? "{" : "";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += json ? "," : ", ";
    out += json ? Json(fields[i].first) : fields[i].first;
    out += json ? ":" : " ";
    out += fields[i].second;
  }
  if (!json && fields.empty()) out = "empty";
  return json ? out + "}" : out;
}

std::string Optional64(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "null"; }

int RunMeta(const std::vector<std::string>& args) {
  std::string path;
  bool json = false;
  for (const auto& a : args) {
    if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "tandem: unknown option %s\nusage: tandem %s\n", a.c_str(), kUsage);
      return 2;
    } else if (path.empty()) {
      path = a;
    } else {
      std::fprintf(stderr, "tandem: one file at a time\nusage: tandem %s\n", kUsage);
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: tandem %s\n", kUsage);
    return 2;
  }
  auto opened = ParquetFile::Open(path);
  if (!opened.ok()) return Fail(opened.status().ToString());
  const ParquetFile& file = **opened;
  const FileMetaData& meta = file.metadata();
  const Schema& schema = file.schema();
  auto mapped = MapParquetSchema(meta.schema);
  const std::vector<parquet::LeafColumn> leaves =
      mapped.ok() ? std::move(mapped).value() : std::vector<parquet::LeafColumn>{};
  const std::vector<LeafPath> paths = LeafPaths(meta);

  Printer p{json, {}};
  if (!json) {
    p.Line("file:        " + path);
    p.Line("created_by:  " + meta.created_by.value_or("(none)"));
    p.Line("version:     " + std::to_string(meta.version));
    p.Line("rows:        " + std::to_string(meta.num_rows));
    p.Line("row groups:  " + std::to_string(meta.row_groups.size()));
    if (!meta.key_value_metadata.empty()) {
      p.Line("key-value metadata:");
      for (const auto& kv : meta.key_value_metadata) {
        p.Line("  " + kv.key + " = " + (kv.value ? Truncated(*kv.value, 120) : "(null)"));
      }
    }
    PrintSchemaText(meta, leaves, schema, &p);
  } else {
    p.out += "{\"file\":" + Json(path) +
             ",\"created_by\":" + (meta.created_by ? Json(*meta.created_by) : "null") +
             ",\"version\":" + std::to_string(meta.version) +
             ",\"num_rows\":" + std::to_string(meta.num_rows) + ",\"key_value_metadata\":{";
    for (size_t i = 0; i < meta.key_value_metadata.size(); ++i) {
      const auto& kv = meta.key_value_metadata[i];
      p.out += (i ? "," : "") + Json(kv.key) + ":" + (kv.value ? Json(*kv.value) : "null");
    }
    p.out += "},\"columns\":[";
    for (size_t i = 0; i < paths.size(); ++i) {
      const SchemaElement& e = meta.schema[paths[i].schema_index];
      p.out += std::string(i ? "," : "") + "{\"path\":" + Json(paths[i].path) +
               ",\"physical_type\":" + Json(e.type ? PhysicalTypeName(*e.type) : "") +
               ",\"repetition\":" + Json(e.repetition ? RepetitionName(*e.repetition) : "") +
               ",\"logical_type\":" + Json(e.logical_type ? LogicalTypeName(*e.logical_type) : "") +
               ",\"converted_type\":" +
               Json(e.converted_type ? ConvertedTypeName(*e.converted_type) : "") +
               ",\"tandem_type\":" + Json(TandemTypeOf(leaves, schema, i)) + "}";
    }
    p.out += "],\"row_groups\":[";
  }

  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const RowGroup& rg = meta.row_groups[g];
    if (!json) {
      p.Line("row group " + std::to_string(g) + ": " + std::to_string(rg.num_rows) + " rows, " +
             std::to_string(rg.total_byte_size) + " bytes" +
             (rg.total_compressed_size
                  ? " (" + std::to_string(*rg.total_compressed_size) + " compressed)"
                  : ""));
    } else {
      p.out += std::string(g ? "," : "") + "{\"num_rows\":" + std::to_string(rg.num_rows) +
               ",\"total_byte_size\":" + std::to_string(rg.total_byte_size) +
               ",\"total_compressed_size\":" + Optional64(rg.total_compressed_size) +
               ",\"columns\":[";
    }
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& chunk = rg.columns[c];
      std::string name = c < paths.size() ? paths[c].path : std::string("#");
      if (c >= paths.size()) name += std::to_string(c);
      const SchemaElement* element =
          c < paths.size() ? &meta.schema[paths[c].schema_index] : nullptr;
      const DataType* type = c < static_cast<size_t>(schema.num_fields()) &&
                                     (c >= leaves.size() || leaves[c].unsupported.empty())
                                 ? &schema.field(static_cast<int>(c)).type
                                 : nullptr;
      if (!chunk.meta_data) {
        if (json) {
          p.out += std::string(c ? "," : "") + "{\"path\":" + Json(name) + "}";
        } else {
          p.Line("  " + name + ": no column metadata" +
                 (chunk.has_crypto_metadata ? " (encrypted)" : ""));
        }
        continue;
      }
      const ColumnMetaData& md = *chunk.meta_data;
      if (!json) {
        std::string offsets = "data page @" + std::to_string(md.data_page_offset);
        if (md.dictionary_page_offset) {
          offsets =
              "dictionary page @" + std::to_string(*md.dictionary_page_offset) + ", " + offsets;
        }
        p.Line("  " + name + ": " + PhysicalTypeName(md.type) + " " + CodecName(md.codec) + " [" +
               EncodingList(md.encodings, false) + "] " + std::to_string(md.num_values) +
               " values, " + std::to_string(md.total_compressed_size) + " B compressed / " +
               std::to_string(md.total_uncompressed_size) + " B uncompressed, " + offsets);
        p.Line("      stats: " + StatisticsText(md, element, type, false));
      } else {
        p.out += std::string(c ? "," : "") + "{\"path\":" + Json(name) +
                 ",\"physical_type\":" + Json(PhysicalTypeName(md.type)) +
                 ",\"codec\":" + Json(CodecName(md.codec)) +
                 ",\"encodings\":" + EncodingList(md.encodings, true) +
                 ",\"num_values\":" + std::to_string(md.num_values) +
                 ",\"total_compressed_size\":" + std::to_string(md.total_compressed_size) +
                 ",\"total_uncompressed_size\":" + std::to_string(md.total_uncompressed_size) +
                 ",\"data_page_offset\":" + std::to_string(md.data_page_offset) +
                 ",\"dictionary_page_offset\":" + Optional64(md.dictionary_page_offset) +
                 ",\"statistics\":" + StatisticsText(md, element, type, true) + "}";
      }
    }
    if (json) p.out += "]}";
  }
  if (json) p.out += "]}\n";
  std::fwrite(p.out.data(), 1, p.out.size(), stdout);
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(meta, "meta", kHelpLine, RunMeta);

}  // namespace tandem::cli
