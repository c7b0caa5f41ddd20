// Device string helpers for the interpreter: views (pointer, length and a lazy case fold for
// upper/lower, applied byte by byte exactly as the CPU kernel folds: ASCII letters and the
// two-byte Latin-1 letters after 0xC3), UTF-8 character arithmetic, and the string functions
// that only select bytes (substring, trim, left/right) or read them (compare, strpos, LIKE ...).
// Semantics follow expr/cpu/kernels_string.cc and kernels_like.cc (valid UTF-8 assumed).
#pragma once

#include <cstdint>

#include "tandem/expr/gpu/program_code.h"

namespace tandem::gpu::internal {

struct StrView {
  const uint8_t* p;
  int64_t len;
  uint8_t fold;  // 0 none, 1 upper, 2 lower
};

__device__ inline uint8_t FoldByte(uint8_t c, uint8_t prev, uint8_t fold) {
  if (fold == 1) {
    if (c >= 'a' && c <= 'z') return static_cast<uint8_t>(c - 32);
    if (prev == 0xC3 && c >= 0xA0 && c <= 0xBE && c != 0xB7) return static_cast<uint8_t>(c - 0x20);
  } else if (fold == 2) {
    if (c >= 'A' && c <= 'Z') return static_cast<uint8_t>(c + 32);
    if (prev == 0xC3 && c >= 0x80 && c <= 0x9E && c != 0x97) return static_cast<uint8_t>(c + 0x20);
  }
  return c;
}

__device__ inline uint8_t ByteAt(const StrView& s, int64_t k) {
  const uint8_t c = s.p[k];
  if (s.fold == 0) return c;
  return FoldByte(c, k > 0 ? s.p[k - 1] : 0, s.fold);
}

__device__ inline bool IsCont(uint8_t c) { return (c & 0xC0) == 0x80; }

__device__ inline int64_t CharCount(const StrView& s) {
  int64_t n = 0;
  for (int64_t i = 0; i < s.len; ++i) n += !IsCont(s.p[i]);
  return n;
}

__device__ inline bool AllAscii(const StrView& s) {
  for (int64_t i = 0; i < s.len; ++i) {
    if (s.p[i] >= 0x80) return false;
  }
  return true;
}

// Byte offset of character k (0-based), clamped to the length.
__device__ inline int64_t ByteOfChar(const StrView& s, int64_t k) {
  if (k <= 0) return 0;
  int64_t seen = 0;
  for (int64_t i = 0; i < s.len; ++i) {
    if (!IsCont(s.p[i])) {
      if (seen == k) return i;
      ++seen;
    }
  }
  return s.len;
}

__device__ inline StrView Sub(const StrView& s, int64_t begin, int64_t end) {
  return StrView{s.p + begin, end - begin, s.fold};
}

// memcmp-order comparison: <0, 0, >0.
__device__ inline int CompareStr(const StrView& a, const StrView& b) {
  const int64_t m = a.len < b.len ? a.len : b.len;
  for (int64_t k = 0; k < m; ++k) {
    const uint8_t x = ByteAt(a, k), y = ByteAt(b, k);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.len < b.len ? -1 : (a.len > b.len ? 1 : 0);
}

__device__ inline bool EqualAt(const StrView& s, int64_t at, const StrView& t) {
  if (at < 0 || t.len > s.len - at) return false;
  for (int64_t k = 0; k < t.len; ++k) {
    if (ByteAt(s, at + k) != ByteAt(t, k)) return false;
  }
  return true;
}

// Leftmost byte position of t in s, or -1 (t empty: 0).
__device__ inline int64_t Find(const StrView& s, const StrView& t) {
  for (int64_t at = 0; at + t.len <= s.len; ++at) {
    if (EqualAt(s, at, t)) return at;
  }
  return -1;
}

__device__ inline StrView Substring(const StrView& s, int64_t start, bool has_len, int64_t len) {
  const bool ascii = AllAscii(s);
  const int64_t chars = ascii ? s.len : CharCount(s);
  if (start < 0) start = chars + start + 1;
  int64_t begin, end;
  if (!has_len) {
    begin = start;
    end = chars + 1;
  } else if (len >= 0) {
    begin = start;
    end = (start > 0 && len > INT64_MAX - start) ? INT64_MAX : start + len;
  } else {
    begin = (start < 0 && len < INT64_MIN - start) ? INT64_MIN : start + len;
    end = start;
  }
  if (begin < 1) begin = 1;
  if (end > chars + 1) end = chars + 1;
  if (begin >= end) return StrView{s.p, 0, s.fold};
  const int64_t b = ascii ? begin - 1 : ByteOfChar(s, begin - 1);
  const int64_t e = ascii ? end - 1 : ByteOfChar(s, end - 1);
  return Sub(s, b, e);
}

// Whether the character ch is one of the characters of `chars`.
__device__ inline bool InSet(const StrView& chars, const StrView& ch) {
  for (int64_t k = 0; k < chars.len;) {
    int64_t l = 1;
    while (k + l < chars.len && IsCont(chars.p[k + l])) ++l;
    if (l == ch.len) {
      bool same = true;
      for (int64_t j = 0; j < l && same; ++j) same = ByteAt(chars, k + j) == ByteAt(ch, j);
      if (same) return true;
    }
    k += l;
  }
  return false;
}

__device__ inline StrView Trim(StrView s, const StrView& chars, bool left, bool right) {
  if (left) {
    while (s.len > 0) {
      int64_t l = 1;
      while (l < s.len && IsCont(s.p[l])) ++l;
      if (!InSet(chars, Sub(s, 0, l))) break;
      s = Sub(s, l, s.len);
    }
  }
  if (right) {
    while (s.len > 0) {
      int64_t st = s.len - 1;
      while (st > 0 && IsCont(s.p[st])) --st;
      if (!InSet(chars, Sub(s, st, s.len))) break;
      s = Sub(s, 0, st);
    }
  }
  return s;
}

__device__ inline StrView LeftRight(const StrView& s, int64_t k, bool left) {
  const int64_t chars = CharCount(s);
  if (k < 0) k = chars + k > 0 ? chars + k : 0;
  if (k > chars) k = chars;
  if (left) return Sub(s, 0, ByteOfChar(s, k));
  return Sub(s, ByteOfChar(s, chars - k), s.len);
}

__device__ inline int64_t Utf8Len(uint8_t c) {
  return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

// LIKE: tokens are bytes, kLikeAny ('_', one UTF-8 character) and kLikeStar ('%'). Greedy
// matching that backtracks to the last '%' (advancing one character), which decides the same
// language as the CPU's segment matcher. `fold_lower` lower-cases the text as lower() does (ILIKE).
__device__ inline bool LikeMatch(const StrView& s, const uint16_t* tok, int64_t m,
                                 bool fold_lower) {
  int64_t si = 0, pi = 0, star_pi = -1, star_si = 0;
  auto text = [&](int64_t k) {
    const uint8_t c = ByteAt(s, k);
    return fold_lower ? FoldByte(c, k > 0 ? s.p[k - 1] : 0, 2) : c;  // ILIKE: as lower()
  };
  while (si < s.len || pi < m) {
    if (pi < m) {
      const uint16_t t = tok[pi];
      if (t == kLikeStar) {
        star_pi = pi++;
        star_si = si;
        continue;
      }
      if (si < s.len) {
        if (t == kLikeAny) {
          const int64_t l = Utf8Len(s.p[si]);
          if (si + l <= s.len) {
            si += l;
            ++pi;
            continue;
          }
        } else if (text(si) == t) {
          ++si;
          ++pi;
          continue;
        }
      }
    }
    // Mismatch (or pattern exhausted before the text): let the last '%' absorb one more char.
    if (star_pi < 0 || star_si >= s.len) return false;
    star_si += Utf8Len(s.p[star_si]);
    if (star_si > s.len) return false;
    si = star_si;
    pi = star_pi + 1;
  }
  return true;
}

}  // namespace tandem::gpu::internal
