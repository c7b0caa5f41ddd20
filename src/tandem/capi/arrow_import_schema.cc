// Arrow C schema import: format strings to Tandem types, with the Arrow-side layout each column
// keeps (offset width, decimal storage width, timestamp unit) for the array import.
#include <charconv>
#include <string_view>

#include "tandem/capi/arrow_import.h"

namespace tandem::capi {
namespace {

Status UnsupportedFormat(std::string_view format, const std::string& name) {
  return Status::Unsupported("Arrow format '" + std::string(format) + "' (column " + name + ")");
}

// Parses a decimal integer that must fill `text` exactly.
bool ParseInt(std::string_view text, int* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// "d:precision,scale[,bitwidth]".
Status ParseDecimal(std::string_view format, const std::string& name, DataType* type,
                    ArrowColumnLayout* layout) {
  std::string_view rest = format.substr(2);
  int parts[3] = {0, 0, 128};  // precision, scale, bit width (128 unless given)
  int count = 0;
  bool well_formed = true;
  while (well_formed) {
    const size_t comma = rest.find(',');
    well_formed = count < 3 && ParseInt(rest.substr(0, comma), &parts[count]);
    ++count;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (!well_formed || count < 2) {
    return Status::Invalid("malformed Arrow decimal format '" + std::string(format) + "' (column " +
                           name + ")");
  }
  const int precision = parts[0], scale = parts[1], bits = parts[2];
  const int max_precision = bits == 32 ? 9 : bits == 64 ? 18 : bits == 128 ? 38 : 0;
  if (max_precision == 0 || precision < 1 || precision > max_precision || scale < 0 ||
      scale > precision) {
    return UnsupportedFormat(format, name);
  }
  *type = DataType::Decimal(precision, scale);
  layout->source_width = bits / 8;
  return Status::OK();
}

// "ts<unit>:<timezone>"; only no time zone or UTC.
Status ParseTimestamp(std::string_view format, const std::string& name, DataType* type,
                      ArrowColumnLayout* layout) {
  if (format.size() < 4 || format[3] != ':') return UnsupportedFormat(format, name);
  const std::string_view tz = format.substr(4);
  const bool utc = tz == "UTC" || tz == "utc" || tz == "Etc/UTC" || tz == "+00:00" || tz == "Z";
  if (!tz.empty() && !utc) return UnsupportedFormat(format, name);
  switch (format[2]) {
    case 's':
      layout->us_multiplier = 1000000;
      break;
    case 'm':
      layout->us_multiplier = 1000;
      break;
    case 'u':
      break;
    case 'n':
      layout->us_divisor = 1000;
      break;
    default:
      return UnsupportedFormat(format, name);
  }
  *type = DataType::Timestamp(utc);
  layout->source_width = 8;
  return Status::OK();
}

Status ParseFormat(std::string_view format, const std::string& name, DataType* type,
                   ArrowColumnLayout* layout) {
  if (format.size() == 1) {
    switch (format[0]) {
      case 'b':
        *type = DataType::Bool();
        return Status::OK();
      case 'c':
        *type = DataType::Int8();
        return Status::OK();
      case 's':
        *type = DataType::Int16();
        return Status::OK();
      case 'i':
        *type = DataType::Int32();
        return Status::OK();
      case 'l':
        *type = DataType::Int64();
        return Status::OK();
      case 'C':
        *type = DataType::UInt8();
        return Status::OK();
      case 'S':
        *type = DataType::UInt16();
        return Status::OK();
      case 'I':
        *type = DataType::UInt32();
        return Status::OK();
      case 'L':
        *type = DataType::UInt64();
        return Status::OK();
      case 'f':
        *type = DataType::Float32();
        return Status::OK();
      case 'g':
        *type = DataType::Float64();
        return Status::OK();
      case 'u':
        *type = DataType::String();
        layout->source_width = 4;
        return Status::OK();
      case 'U':
        *type = DataType::String();
        layout->source_width = 8;
        return Status::OK();
      case 'z':
        *type = DataType::Binary();
        layout->source_width = 4;
        return Status::OK();
      case 'Z':
        *type = DataType::Binary();
        layout->source_width = 8;
        return Status::OK();
      default:
        return UnsupportedFormat(format, name);
    }
  }
  if (format == "tdD") {
    *type = DataType::Date32();
    return Status::OK();
  }
  if (format.starts_with("d:")) return ParseDecimal(format, name, type, layout);
  if (format.starts_with("ts")) return ParseTimestamp(format, name, type, layout);
  return UnsupportedFormat(format, name);
}

}  // namespace

Result<ImportedSchema> ParseArrowSchema(const ArrowSchema& schema) {
  if (schema.release == nullptr) return Status::Invalid("Arrow schema was already released");
  const std::string_view top = schema.format ? schema.format : "";
  if (top != "+s") {
    return Status::Unsupported("Arrow format '" + std::string(top) +
                               "' at the top level (expected a struct, '+s')");
  }
  if (schema.n_children < 0 || (schema.n_children > 0 && schema.children == nullptr)) {
    return Status::Invalid("Arrow struct schema has a bad child list");
  }
  ImportedSchema out;
  for (int64_t i = 0; i < schema.n_children; ++i) {
    const ArrowSchema* child = schema.children[i];
    if (child == nullptr || child->format == nullptr) {
      return Status::Invalid("Arrow schema child " + std::to_string(i) + " has no format");
    }
    Field field;
    field.name = child->name ? child->name : "";
    field.nullable = (child->flags & ARROW_FLAG_NULLABLE) != 0;
    ArrowColumnLayout layout;
    layout.format = child->format;
    if (child->dictionary != nullptr) {
      const char* values = child->dictionary->format ? child->dictionary->format : "?";
      return Status::Unsupported("Arrow format '" + layout.format + "' with a dictionary of '" +
                                 values + "' (column " + field.name + ")");
    }
    TANDEM_RETURN_NOT_OK(ParseFormat(layout.format, field.name, &field.type, &layout));
    if (child->n_children != 0) return UnsupportedFormat(layout.format, field.name);
    out.schema.fields.push_back(std::move(field));
    out.layouts.push_back(std::move(layout));
  }
  return out;
}

Result<Schema> ImportSchema(ArrowSchema* schema) {
  Result<ImportedSchema> parsed = ParseArrowSchema(*schema);
  if (schema->release != nullptr) schema->release(schema);
  if (!parsed.ok()) return parsed.status();
  return std::move(parsed).value().schema;
}

}  // namespace tandem::capi
