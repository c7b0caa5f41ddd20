// LIKE / ILIKE kernels. A constant pattern is compiled once into literal segments split at '%'
// ('_' matches one UTF-8 character; an optional ESCAPE character makes the next one literal;
// no escape character unless given, as DuckDB). Matching is then: exact compare, prefix,
// suffix, or a left-to-right search per middle segment ('%special%requests%'), which is correct
// because each '%' may absorb anything. When the first segment floats ('%special...'), one
// search runs over the string bytes of the whole column and only rows holding it are looked at
// further. ILIKE lower-cases both sides as lower() does (FoldCase).
#include <algorithm>
#include <cstring>
#include <vector>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "tandem/expr/cpu/kernels.h"

namespace tandem::cpu::internal {
namespace {

struct Segment {
  std::string text;       // bytes to match; '_' positions are recorded in `any`
  std::vector<bool> any;  // per byte of text: matches any one character
  bool has_any = false;
};

struct Pattern {
  std::vector<Segment> segments;  // separated by '%'
  bool anchored_start = true;     // no '%' before the first segment
  bool anchored_end = true;       // no '%' after the last segment
};

// ILIKE compares lower() of both sides.
void FoldLower(std::string_view in, std::string* out) {
  out->assign(in.data(), in.size());
  FoldCase(out, /*upper=*/false);
}

Status Compile(const CallContext& cc, std::string_view p, std::string_view escape, bool fold,
               Pattern* out) {
  std::string folded_pattern, folded_escape;
  if (fold) {  // ILIKE: the pattern (and an ASCII letter as escape) folded as the text is
    FoldLower(p, &folded_pattern);
    FoldLower(escape, &folded_escape);
    p = folded_pattern;
    escape = folded_escape;
  }
  if (escape.size() > 1) return ExprError(cc.expr, "ESCAPE must be a single character");
  const bool has_escape = escape.size() == 1;
  Pattern pat;
  Segment cur;
  bool first = true;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (has_escape && c == escape[0]) {
      if (i + 1 >= p.size())
        return ExprError(cc.expr, "LIKE pattern ends with its escape character");
      c = p[++i];
      cur.text.push_back(c);
      cur.any.push_back(false);
      continue;
    }
    if (c == '%') {
      if (first) pat.anchored_start = !cur.text.empty();
      if (!cur.text.empty()) pat.segments.push_back(std::move(cur));
      cur = Segment();
      first = false;
      continue;
    }
    if (c == '_') {
      cur.text.push_back('_');
      cur.any.push_back(true);
      cur.has_any = true;
      continue;
    }
    cur.text.push_back(c);
    cur.any.push_back(false);
  }
  if (!first) {
    pat.anchored_end = !cur.text.empty();
    if (!cur.text.empty()) pat.segments.push_back(std::move(cur));
  } else {
    pat.segments.push_back(std::move(cur));  // no '%': the whole pattern, both ends anchored
  }
  *out = std::move(pat);
  return Status::OK();
}

inline size_t Utf8Len(unsigned char c) {
  return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

// Matches segment `seg` at s[pos...]; returns bytes consumed or -1.
int64_t MatchAt(const Segment& seg, std::string_view s, size_t pos) {
  if (!seg.has_any) {
    const size_t m = seg.text.size();
    if (pos > s.size() || m > s.size() - pos) return -1;
    return std::memcmp(s.data() + pos, seg.text.data(), m) == 0 ? static_cast<int64_t>(m) : -1;
  }
  size_t j = pos;
  for (size_t k = 0; k < seg.text.size(); ++k) {
    if (j >= s.size()) return -1;
    if (seg.any[k]) {
      j += Utf8Len(static_cast<unsigned char>(s[j]));
      if (j > s.size()) return -1;
    } else {
      if (s[j] != seg.text[k]) return -1;
      ++j;
    }
  }
  return static_cast<int64_t>(j - pos);
}

// Leftmost occurrence of needle[0, m) in h[0, n), or nullptr. With SSE2, 16 candidate starts at a
// time are filtered on the needle's first and last bytes and confirmed with memcmp.
const char* SearchBytes(const char* h, size_t n, const char* needle, size_t m) {
  if (m == 0) return h;
  if (n < m) return nullptr;
  if (m == 1) return static_cast<const char*>(std::memchr(h, needle[0], n));
  const size_t starts = n - m + 1;
  size_t i = 0;
#ifdef __SSE2__
  const __m128i first = _mm_set1_epi8(needle[0]);
  const __m128i last = _mm_set1_epi8(needle[m - 1]);
  for (; i + 16 <= starts; i += 16) {
    const __m128i bf = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i));
    const __m128i bl = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i + m - 1));
    unsigned mask = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(bf, first), _mm_cmpeq_epi8(bl, last))));
    while (mask != 0) {
      const size_t at = i + static_cast<size_t>(__builtin_ctz(mask));
      if (std::memcmp(h + at + 1, needle + 1, m - 2) == 0) return h + at;
      mask &= mask - 1;
    }
  }
#endif
  for (; i < starts; ++i) {
    if (h[i] == needle[0] && h[i + m - 1] == needle[m - 1] &&
        std::memcmp(h + i + 1, needle + 1, m - 2) == 0) {
      return h + i;
    }
  }
  return nullptr;
}

// Leftmost occurrence of seg in s at or after pos: start offset and length, or false.
bool Find(const Segment& seg, std::string_view s, size_t pos, size_t* at, size_t* len) {
  if (!seg.has_any) {
    if (seg.text.size() > s.size() - std::min(pos, s.size())) return false;
    const size_t m = seg.text.size();
    const char* hit = SearchBytes(s.data() + pos, s.size() - pos, seg.text.data(), m);
    if (!hit) return false;
    *at = static_cast<size_t>(hit - s.data());
    *len = m;
    return true;
  }
  for (size_t p = pos; p <= s.size();
       p += p < s.size() ? Utf8Len(static_cast<unsigned char>(s[p])) : 1) {
    const int64_t m = MatchAt(seg, s, p);
    if (m >= 0) {
      *at = p;
      *len = static_cast<size_t>(m);
      return true;
    }
  }
  return false;
}

bool MatchRest(const Pattern& pat, std::string_view s, size_t first, size_t pos);

bool Matches(const Pattern& pat, std::string_view s) {
  const auto& segs = pat.segments;
  if (segs.size() == 1 && pat.anchored_start && pat.anchored_end) {
    const Segment& seg = segs[0];
    if (!seg.has_any) return s == seg.text;
    const int64_t m = MatchAt(seg, s, 0);
    return m >= 0 && static_cast<size_t>(m) == s.size();
  }
  if (pat.anchored_start && !segs.empty()) {
    const int64_t m = MatchAt(segs[0], s, 0);
    if (m < 0) return false;
    return MatchRest(pat, s, 1, static_cast<size_t>(m));
  }
  return MatchRest(pat, s, 0, 0);
}

// Matches segments [first, end) of pat in s from byte pos on, the segments before `first`
// having matched s[0, pos) (at their leftmost places).
bool MatchRest(const Pattern& pat, std::string_view s, size_t first, size_t pos) {
  const auto& segs = pat.segments;
  size_t last = segs.size();
  // Suffix anchored: match it at the end (for a segment without '_' its byte length is known;
  // with '_', try every start from the right).
  size_t end = s.size();
  if (pat.anchored_end && last > first) {
    const Segment& seg = segs[last - 1];
    bool ok = false;
    if (!seg.has_any) {
      if (seg.text.size() <= s.size() - pos && std::memcmp(s.data() + s.size() - seg.text.size(),
                                                           seg.text.data(), seg.text.size()) == 0) {
        end = s.size() - seg.text.size();
        ok = true;
      }
    } else {
      for (size_t p = s.size() + 1; p-- > pos;) {
        const int64_t m = MatchAt(seg, s, p);
        if (m >= 0 && p + static_cast<size_t>(m) == s.size()) {
          end = p;
          ok = true;
          break;
        }
      }
    }
    if (!ok) return false;
    --last;
  }
  const std::string_view middle = s.substr(0, end);
  for (size_t k = first; k < last; ++k) {
    size_t at, len;
    if (!Find(segs[k], middle, pos, &at, &len)) return false;
    pos = at + len;
  }
  return pos <= end;
}

// Rows of a column whose pattern starts with a floating literal segment ('%seg...'): one search
// for seg over the bytes of all rows; a hit inside row r (not straddling its end) is the
// leftmost in r, so r matches iff the rest of the pattern matches after it. bits start zeroed.
template <typename Off>
void ScanColumn(const Pattern& pat, const Off* off, const char* base, int64_t n, uint8_t* bits) {
  const std::string& seg = pat.segments[0].text;
  const int64_t m = static_cast<int64_t>(seg.size());
  const int64_t total_end = off[n];
  int64_t row = 0;
  int64_t pos = off[0];
  while (row < n && pos < total_end) {
    const char* hit =
        SearchBytes(base + pos, static_cast<size_t>(total_end - pos), seg.data(), seg.size());
    if (!hit) break;
    const int64_t h = hit - base;
    // The row holding byte h: the last row starting at or before h (off is non-decreasing).
    row = std::upper_bound(off + row + 1, off + n + 1, static_cast<Off>(h)) - off - 1;
    const int64_t begin = off[row], end = off[row + 1];
    if (h + m <= end) {
      const std::string_view s(base + begin, static_cast<size_t>(end - begin));
      if (MatchRest(pat, s, 1, static_cast<size_t>(h - begin + m))) bit_util::SetBit(bits, row);
    }
    pos = end;
    ++row;
  }
}

// LIKE of every row of a string column against one compiled pattern.
template <typename Off>
void LikeColumn(const Pattern& pat, const Off* off, const char* base, int64_t n, uint8_t* bits) {
  if (n == 0) return;  // no rows, and no bits to write to
  const auto& segs = pat.segments;
  if (!pat.anchored_start && !segs.empty() && !segs[0].has_any &&
      (segs.size() >= 2 || !pat.anchored_end)) {
    std::memset(bits, 0, static_cast<size_t>(bit_util::BytesForBits(n)));
    ScanColumn(pat, off, base, n, bits);
    return;
  }
  if (segs.size() == 1 && pat.anchored_start && !pat.anchored_end && !segs[0].has_any) {
    const std::string& prefix = segs[0].text;  // 'PROMO%'
    const int64_t m = static_cast<int64_t>(prefix.size());
    FillBits(bits, n, [&](int64_t i) {
      return off[i + 1] - off[i] >= m && base[off[i]] == prefix[0] &&
             std::memcmp(base + off[i], prefix.data(), prefix.size()) == 0;
    });
    return;
  }
  FillBits(bits, n, [&](int64_t i) {
    return Matches(pat, std::string_view(base + off[i], static_cast<size_t>(off[i + 1] - off[i])));
  });
}

Result<ColumnPtr> Like(const CallContext& cc, const std::vector<Datum>& args) {
  const bool fold = cc.expr.name == "ilike";
  const int64_t n = cc.rows;
  const Datum& s = args[0];
  const Datum& p = args[1];
  const Datum* esc = args.size() > 2 ? &args[2] : nullptr;
  Validity v = esc ? CombineValidity({&s, &p, esc}, n) : CombineValidity({&s, &p}, n);
  std::string folded;
  if (p.is_scalar() && (!esc || esc->is_scalar())) {
    Pattern pat;
    TANDEM_RETURN_NOT_OK(
        Compile(cc, p.scalar.str, esc ? std::string_view(esc->scalar.str) : "", fold, &pat));
    auto values = AllocateOutput(DataType::Bool(), n);
    uint8_t* bits = values->mutable_data();
    const Column& col = *s.column;
    const char* base = col.data() ? reinterpret_cast<const char*>(col.data()->data()) : "";
    if (fold) {  // ILIKE: the column's bytes folded once
      FoldLower(std::string_view(base, static_cast<size_t>(col.string_bytes())), &folded);
      base = folded.data();
    }
    if (col.large_offsets()) {
      LikeColumn(pat, col.values_as<int64_t>(), base, n, bits);
    } else {
      LikeColumn(pat, col.values_as<int32_t>(), base, n, bits);
    }
    return MakeColumn(DataType::Bool(), n, v, std::move(values));
  }
  auto values = AllocateValues(DataType::Bool(), n);
  uint8_t* bits = values->mutable_data();
  // Patterns that vary by row: compile per row.
  for (int64_t i = 0; i < n; ++i) {
    if (!s.IsValid(i) || !p.IsValid(i) || (esc && !esc->IsValid(i))) continue;
    const Value pv = DatumValue(p, i);
    const std::string ev = esc ? DatumValue(*esc, i).str : std::string();
    Pattern pat;
    TANDEM_RETURN_NOT_OK(Compile(cc, pv.str, ev, fold, &pat));
    const Value sv = DatumValue(s, i);
    if (fold) {
      FoldLower(sv.str, &folded);
      bit_util::SetBitTo(bits, i, Matches(pat, folded));
    } else {
      bit_util::SetBitTo(bits, i, Matches(pat, sv.str));
    }
  }
  return MakeColumn(DataType::Bool(), n, v, std::move(values));
}

}  // namespace

void RegisterLikeKernels(KernelMap* map) {
  (*map)["like"] = {Like, true};
  (*map)["ilike"] = {Like, true};
}

}  // namespace tandem::cpu::internal
