// String kernels: concat, substring, upper, lower, trim family, length, octet_length, replace,
// strpos, starts_with / ends_with / contains, lpad / rpad, split_part, left, right, reverse,
// repeat. Positions and lengths count UTF-8 characters (code points), 1-based, with DuckDB's
// conventions for negative positions. Outputs are built once per batch (no per-row allocation:
// one scratch string is reused). lpad / rpad with an empty fill return the string cut to the
// length, as Spark does (UTF8String.lpad).
#include <cstring>

#include "tandem/column/column_builder.h"
#include "tandem/expr/cpu/kernels.h"

namespace tandem::cpu::internal {
namespace {

constexpr int64_t kMaxStringResult = int64_t{1} << 30;  // 1 GiB per value: refuse beyond

inline std::string_view Str(const Datum& d, int64_t i) {
  return d.is_scalar() ? std::string_view(d.scalar.str) : d.column->GetString(i);
}
inline int64_t Int(const Datum& d, int64_t i) {
  return d.is_scalar() ? d.scalar.i64 : d.column->values_as<int64_t>()[i];
}
inline bool IsCont(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += !IsCont(c);
  return n;
}

// Byte offset of character `k` (0-based), clamped to s.size().
size_t ByteOfChar(std::string_view s, int64_t k) {
  if (k <= 0) return 0;
  size_t i = 0;
  int64_t seen = 0;
  for (; i < s.size(); ++i) {
    if (!IsCont(s[i])) {
      if (seen == k) return i;
      ++seen;
    }
  }
  return s.size();
}

bool AllAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// Runs f(i, &scratch) -> Status for each non-NULL row (rows NULL in any argument are NULL) and
// appends scratch. f may set *null_out to make the row NULL.
template <typename F>
Result<ColumnPtr> StringRows(const CallContext& cc, const std::vector<Datum>& args, F f) {
  const int64_t n = cc.rows;
  std::vector<const Datum*> ops;
  for (const Datum& d : args) ops.push_back(&d);
  Validity v = CombineValidity(ops, n);
  ColumnBuilder b(DataType::String(), n);
  std::string scratch;
  const uint8_t* valid = v.null_count ? v.bits->data() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    if (valid && !bit_util::GetBit(valid, i)) {
      b.AppendNull();
      continue;
    }
    scratch.clear();
    bool null_out = false;
    TANDEM_RETURN_NOT_OK(f(i, &scratch, &null_out));
    if (null_out) {
      b.AppendNull();
    } else {
      b.AppendString(scratch);
    }
  }
  return b.Finish();
}

template <typename T, typename F>
Result<ColumnPtr> FixedRows(const CallContext& cc, const std::vector<Datum>& args, F f) {
  const int64_t n = cc.rows;
  std::vector<const Datum*> ops;
  for (const Datum& d : args) ops.push_back(&d);
  Validity v = CombineValidity(ops, n);
  auto values = AllocateValues(cc.expr.type, n);
  if constexpr (std::is_same_v<T, bool>) {
    FillBits(values->mutable_data(), n, f);
  } else {
    T* out = values->mutable_data_as<T>();
    for (int64_t i = 0; i < n; ++i) out[i] = f(i);
  }
  return MakeColumn(cc.expr.type, n, v, std::move(values));
}

Status TooLong(const CallContext& cc) { return ExprError(cc.expr, "string result too long"); }

Result<ColumnPtr> Concat(const CallContext& cc, const std::vector<Datum>& args) {
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    for (const Datum& d : args) out->append(Str(d, i));
    return out->size() > static_cast<size_t>(kMaxStringResult) ? TooLong(cc) : Status::OK();
  });
}

Result<ColumnPtr> Substring(const CallContext& cc, const std::vector<Datum>& args) {
  const bool has_len = args.size() > 2;
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i);
    const bool ascii = AllAscii(s);
    const int64_t chars = ascii ? static_cast<int64_t>(s.size()) : CharCount(s);
    int64_t start = Int(args[1], i);
    if (start < 0) start = chars + start + 1;
    int64_t begin, end;  // 1-based, [begin, end)
    if (!has_len) {
      begin = start;
      end = chars + 1;
    } else {
      const int64_t len = Int(args[2], i);
      if (len >= 0) {
        begin = start;
        if (__builtin_add_overflow(start, len, &end)) end = INT64_MAX;
      } else {
        if (__builtin_add_overflow(start, len, &begin)) begin = INT64_MIN;
        end = start;
      }
    }
    begin = std::max<int64_t>(begin, 1);
    end = std::min<int64_t>(end, chars + 1);
    if (begin >= end) return Status::OK();
    const size_t b = ascii ? static_cast<size_t>(begin - 1) : ByteOfChar(s, begin - 1);
    const size_t e = ascii ? static_cast<size_t>(end - 1) : ByteOfChar(s, end - 1);
    out->assign(s.substr(b, e - b));
    return Status::OK();
  });
}

Result<ColumnPtr> Case(const CallContext& cc, const std::vector<Datum>& args) {
  const bool upper = cc.expr.name == "upper";
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    out->assign(Str(args[0], i));
    FoldCase(out, upper);
    return Status::OK();
  });
}

// Whether the character starting at s[pos] (length len bytes) is in `chars`.
bool InSet(std::string_view chars, std::string_view ch) {
  for (size_t k = 0; k < chars.size();) {
    size_t l = 1;
    while (k + l < chars.size() && IsCont(chars[k + l])) ++l;
    if (chars.substr(k, l) == ch) return true;
    k += l;
  }
  return false;
}

Result<ColumnPtr> Trim(const CallContext& cc, const std::vector<Datum>& args) {
  const bool left = cc.expr.name != "rtrim", right = cc.expr.name != "ltrim";
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    std::string_view s = Str(args[0], i);
    const std::string_view chars = args.size() > 1 ? Str(args[1], i) : std::string_view(" ");
    if (left) {
      while (!s.empty()) {
        size_t l = 1;
        while (l < s.size() && IsCont(s[l])) ++l;
        if (!InSet(chars, s.substr(0, l))) break;
        s.remove_prefix(l);
      }
    }
    if (right) {
      while (!s.empty()) {
        size_t st = s.size() - 1;
        while (st > 0 && IsCont(s[st])) --st;
        if (!InSet(chars, s.substr(st))) break;
        s.remove_suffix(s.size() - st);
      }
    }
    out->assign(s);
    return Status::OK();
  });
}

Result<ColumnPtr> Length(const CallContext& cc, const std::vector<Datum>& args) {
  const bool bytes = cc.expr.name == "octet_length";
  return FixedRows<int32_t>(cc, args, [&](int64_t i) {
    const std::string_view s = Str(args[0], i);
    return static_cast<int32_t>(bytes ? static_cast<int64_t>(s.size()) : CharCount(s));
  });
}

Result<ColumnPtr> Replace(const CallContext& cc, const std::vector<Datum>& args) {
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i), from = Str(args[1], i), to = Str(args[2], i);
    if (from.empty()) {
      out->assign(s);
      return Status::OK();
    }
    size_t pos = 0;
    while (true) {
      const size_t hit = s.find(from, pos);
      if (hit == std::string_view::npos) break;
      out->append(s.substr(pos, hit - pos));
      out->append(to);
      if (out->size() > static_cast<size_t>(kMaxStringResult)) return TooLong(cc);
      pos = hit + from.size();
    }
    out->append(s.substr(pos));
    return Status::OK();
  });
}

Result<ColumnPtr> Strpos(const CallContext& cc, const std::vector<Datum>& args) {
  return FixedRows<int32_t>(cc, args, [&](int64_t i) {
    const std::string_view s = Str(args[0], i), sub = Str(args[1], i);
    const size_t hit = s.find(sub);
    if (hit == std::string_view::npos) return int32_t{0};
    return static_cast<int32_t>(CharCount(s.substr(0, hit)) + 1);
  });
}

Result<ColumnPtr> Affix(const CallContext& cc, const std::vector<Datum>& args) {
  const std::string& n = cc.expr.name;
  const int kind = n == "starts_with" ? 0 : n == "ends_with" ? 1 : 2;
  return FixedRows<bool>(cc, args, [&](int64_t i) {
    const std::string_view s = Str(args[0], i), t = Str(args[1], i);
    if (kind == 0) return s.substr(0, t.size()) == t;
    if (kind == 1) return s.size() >= t.size() && s.substr(s.size() - t.size()) == t;
    return t.empty() ||
           (s.size() >= t.size() && memmem(s.data(), s.size(), t.data(), t.size()) != nullptr);
  });
}

Result<ColumnPtr> Pad(const CallContext& cc, const std::vector<Datum>& args) {
  const bool left = cc.expr.name == "lpad";
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i);
    const std::string_view fill = args.size() > 2 ? Str(args[2], i) : std::string_view(" ");
    const int64_t len = Int(args[1], i);
    if (len <= 0) return Status::OK();
    if (len > kMaxStringResult / 4) return TooLong(cc);
    const int64_t chars = CharCount(s);
    if (chars >= len) {
      out->assign(s.substr(0, ByteOfChar(s, len)));
      return Status::OK();
    }
    if (fill.empty()) {  // Spark's rule (UTF8String.lpad): no padding at all
      out->assign(s);
      return Status::OK();
    }
    std::string pad;
    const int64_t fill_chars = CharCount(fill);
    int64_t need = len - chars;
    while (need > 0) {
      if (need >= fill_chars) {
        pad.append(fill);
        need -= fill_chars;
      } else {
        pad.append(fill.substr(0, ByteOfChar(fill, need)));
        need = 0;
      }
    }
    if (left) {
      out->append(pad).append(s);
    } else {
      out->append(s).append(pad);
    }
    return Status::OK();
  });
}

Result<ColumnPtr> SplitPart(const CallContext& cc, const std::vector<Datum>& args) {
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i), d = Str(args[1], i);
    const int64_t k = Int(args[2], i);
    std::vector<std::string_view> parts;
    if (d.empty()) {
      for (size_t p = 0; p < s.size();) {
        size_t l = 1;
        while (p + l < s.size() && IsCont(s[p + l])) ++l;
        parts.push_back(s.substr(p, l));
        p += l;
      }
      if (s.empty()) parts.push_back(s);
    } else {
      size_t pos = 0;
      while (true) {
        const size_t hit = s.find(d, pos);
        if (hit == std::string_view::npos) {
          parts.push_back(s.substr(pos));
          break;
        }
        parts.push_back(s.substr(pos, hit - pos));
        pos = hit + d.size();
      }
    }
    const int64_t np = static_cast<int64_t>(parts.size());
    if (k > 0 && k <= np) out->assign(parts[k - 1]);
    if (k < 0 && k >= -np) out->assign(parts[np + k]);  // never negates k (INT64_MIN)
    return Status::OK();
  });
}

Result<ColumnPtr> LeftRight(const CallContext& cc, const std::vector<Datum>& args) {
  const bool left = cc.expr.name == "left";
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i);
    const int64_t chars = CharCount(s);
    int64_t k = Int(args[1], i);
    if (k < 0) k = std::max<int64_t>(0, chars + k);
    k = std::min(k, chars);
    if (left) {
      out->assign(s.substr(0, ByteOfChar(s, k)));
    } else {
      out->assign(s.substr(ByteOfChar(s, chars - k)));
    }
    return Status::OK();
  });
}

Result<ColumnPtr> Reverse(const CallContext& cc, const std::vector<Datum>& args) {
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i);
    for (size_t end = s.size(); end > 0;) {
      size_t st = end - 1;
      while (st > 0 && IsCont(s[st])) --st;
      out->append(s.substr(st, end - st));
      end = st;
    }
    return Status::OK();
  });
}

Result<ColumnPtr> Repeat(const CallContext& cc, const std::vector<Datum>& args) {
  return StringRows(cc, args, [&](int64_t i, std::string* out, bool*) {
    const std::string_view s = Str(args[0], i);
    const int64_t k = Int(args[1], i);
    if (k <= 0 || s.empty()) return Status::OK();
    if (k > kMaxStringResult / static_cast<int64_t>(s.size())) return TooLong(cc);
    for (int64_t r = 0; r < k; ++r) out->append(s);
    return Status::OK();
  });
}

}  // namespace

void FoldCase(std::string* text, bool upper) {
  std::string& s = *text;
  for (char& c : s) {
    if (upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z')) {
      c = static_cast<char>(upper ? c - 32 : c + 32);
    }
  }
  // Two-byte Latin-1 supplement letters (U+00C0..U+00FE) fold too.
  for (size_t k = 0; k + 1 < s.size(); ++k) {
    if (static_cast<unsigned char>(s[k]) != 0xC3) continue;
    unsigned char& c2 = reinterpret_cast<unsigned char&>(s[k + 1]);
    if (upper && c2 >= 0xA0 && c2 <= 0xBE && c2 != 0xB7) c2 = static_cast<unsigned char>(c2 - 0x20);
    if (!upper && c2 >= 0x80 && c2 <= 0x9E && c2 != 0x97)
      c2 = static_cast<unsigned char>(c2 + 0x20);
    ++k;
  }
}

void RegisterStringKernels(KernelMap* map) {
  (*map)["concat"] = {Concat, true};
  (*map)["substring"] = {Substring, true};
  (*map)["upper"] = {Case, true};
  (*map)["lower"] = {Case, true};
  for (const char* n : {"trim", "ltrim", "rtrim"}) (*map)[n] = {Trim, true};
  (*map)["length"] = {Length, true};
  (*map)["octet_length"] = {Length, true};
  (*map)["replace"] = {Replace, true};
  (*map)["strpos"] = {Strpos, true};
  for (const char* n : {"starts_with", "ends_with", "contains"}) (*map)[n] = {Affix, true};
  (*map)["lpad"] = {Pad, true};
  (*map)["rpad"] = {Pad, true};
  (*map)["split_part"] = {SplitPart, true};
  (*map)["left"] = {LeftRight, true};
  (*map)["right"] = {LeftRight, true};
  (*map)["reverse"] = {Reverse, true};
  (*map)["repeat"] = {Repeat, true};
}

}  // namespace tandem::cpu::internal
