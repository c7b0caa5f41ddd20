// Tandem's snappy block decoder against libsnappy (the independent encoder and oracle): blocks of
// every shape libsnappy writes decode to the original bytes; hand-made tag streams reach every
// tag form and both copy paths (fast and near the end of the output); damaged blocks are
// rejected exactly where libsnappy rejects them and otherwise decode to libsnappy's output.
#include <gtest/gtest.h>
#include <snappy.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tandem/io/parquet/snappy_decode.h"

namespace tandem::parquet {
namespace {

std::string Compress(const std::string& in) {
  std::string out;
  snappy::Compress(in.data(), in.size(), &out);
  return out;
}

// Decodes with Tandem's decoder; nullopt-like false in ok when the block is rejected.
std::string Decode(const std::string& block, bool* ok) {
  int64_t len = 0;
  const auto* in = reinterpret_cast<const uint8_t*>(block.data());
  *ok = SnappyUncompressedLength(in, block.size(), &len);
  if (!*ok) return "";
  std::string out(static_cast<size_t>(len), '\0');
  *ok = SnappyDecompressBlock(in, block.size(), reinterpret_cast<uint8_t*>(out.data()), len);
  return out;
}

// libsnappy's verdict and output for the same block.
std::string Oracle(const std::string& block, bool* ok) {
  size_t len = 0;
  *ok = snappy::GetUncompressedLength(block.data(), block.size(), &len);
  if (!*ok) return "";
  std::string out(len, '\0');
  *ok = snappy::RawUncompress(block.data(), block.size(), out.data());
  return out;
}

std::vector<std::string> Samples() {
  std::mt19937_64 rng(42);
  std::vector<std::string> s;
  for (size_t n : {0, 1, 7, 15, 16, 17, 63, 64, 65, 79, 80, 81, 1000, 70000}) {
    std::string random(n, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    s.push_back(random);
    s.push_back(std::string(n, 'x'));
  }
  for (int period = 1; period <= 70; ++period) {  // every small copy offset
    std::string p;
    for (int i = 0; i < 5000; ++i) p += static_cast<char>('a' + (i % period) * 7 % 26);
    s.push_back(p);
  }
  auto int64s = [&](auto next) {
    std::string b(8 * 20000, '\0');
    for (int i = 0; i < 20000; ++i) {
      const int64_t v = next(i);
      std::memcpy(b.data() + 8 * i, &v, 8);
    }
    return b;
  };
  s.push_back(int64s([](int i) { return int64_t{i} * 4 + 1; }));               // sorted keys
  s.push_back(int64s([&](int) { return static_cast<int64_t>(rng() % 11); }));  // few values
  s.push_back(int64s([&](int) { return static_cast<int64_t>(rng() % 10000000); }));
  s.push_back(int64s([](int i) { return int64_t{i / 7}; }));  // runs
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "row " + std::to_string(i % 313) + " of the table;";
  s.push_back(text);
  return s;
}

TEST(SnappyDecode, DecodesWhatLibsnappyEncodes) {
  for (const std::string& in : Samples()) {
    bool ok = false;
    EXPECT_EQ(Decode(Compress(in), &ok), in) << "input of " << in.size() << " bytes";
    EXPECT_TRUE(ok);
  }
}

// A block built tag by tag: the preamble, then the given bytes.
std::string Block(size_t length, const std::string& tags) {
  std::string b;
  for (size_t v = length;; v >>= 7) {
    if (v < 128) {
      b += static_cast<char>(v);
      break;
    }
    b += static_cast<char>((v & 127) | 128);
  }
  return b + tags;
}

std::string Literal(const std::string& bytes) {
  const size_t n = bytes.size() - 1;
  std::string t;
  if (n < 60) {
    t += static_cast<char>(n << 2);
  } else {
    int extra = 0;
    for (size_t v = n; v > 0; v >>= 8) ++extra;
    t += static_cast<char>((59 + extra) << 2);
    for (int i = 0; i < extra; ++i) t += static_cast<char>(n >> (8 * i));
  }
  return t + bytes;
}

std::string Copy2(size_t length, size_t offset) {  // 1-64 bytes, 16-bit offset
  return std::string{static_cast<char>(((length - 1) << 2) | 2), static_cast<char>(offset),
                     static_cast<char>(offset >> 8)};
}

std::string Copy4(size_t length, size_t offset) {  // 1-64 bytes, 32-bit offset
  std::string t{static_cast<char>(((length - 1) << 2) | 3)};
  for (int i = 0; i < 4; ++i) t += static_cast<char>(offset >> (8 * i));
  return t;
}

std::string Copy1(size_t length, size_t offset) {  // 4-11 bytes, 11-bit offset
  return std::string{static_cast<char>(((offset >> 8) << 5) | ((length - 4) << 2) | 1),
                     static_cast<char>(offset)};
}

TEST(SnappyDecode, EveryTagFormAndBothCopyPaths) {
  const std::string head = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (size_t offset = 1; offset <= head.size(); ++offset) {
    for (size_t length : {1, 4, 8, 11, 16, 17, 33, 64}) {
      for (size_t tail : {0, 100}) {  // tail 0: the copy ends the block (the checked path)
        std::string tags = Literal(head);
        std::string expected = head;
        const std::string copy = length >= 4 && length <= 11 && offset < 2048
                                     ? Copy1(length, offset)
                                     : (length % 2 ? Copy2(length, offset) : Copy4(length, offset));
        tags += copy;
        for (size_t k = 0; k < length; ++k) expected += expected[expected.size() - offset];
        const std::string pad(tail, 'p');
        if (tail > 0) {
          tags += Literal(pad);
          expected += pad;
        }
        bool ok = false;
        EXPECT_EQ(Decode(Block(expected.size(), tags), &ok), expected)
            << "offset " << offset << " length " << length << " tail " << tail;
        EXPECT_TRUE(ok);
      }
    }
  }
  // Literals whose length takes 1, 2 and 3 extra bytes.
  for (size_t n : {61, 300, 70000}) {
    const std::string bytes(n, 'q');
    bool ok = false;
    EXPECT_EQ(Decode(Block(n, Literal(bytes)), &ok), bytes);
    EXPECT_TRUE(ok);
  }
}

TEST(SnappyDecode, RejectsMalformedBlocks) {
  bool ok = true;
  Decode(Block(5, Literal("abc")), &ok);  // fewer bytes than announced
  EXPECT_FALSE(ok);
  Decode(Block(2, Literal("abc")), &ok);  // more
  EXPECT_FALSE(ok);
  Decode(Block(8, Literal("abcd") + Copy2(4, 0)), &ok);  // offset 0
  EXPECT_FALSE(ok);
  Decode(Block(8, Literal("abcd") + Copy2(4, 5)), &ok);  // before the start
  EXPECT_FALSE(ok);
  Decode(Block(4, Literal("abcd").substr(0, 3)), &ok);  // literal cut short
  EXPECT_FALSE(ok);
  Decode(Block(8, Literal("abcd") + Copy4(4, 4).substr(0, 3)), &ok);  // offset cut short
  EXPECT_FALSE(ok);
  Decode(std::string("\xff\xff\xff\xff\x1f", 5), &ok);  // length beyond 32 bits
  EXPECT_FALSE(ok);
  Decode(std::string("\x80\x80", 2), &ok);  // unterminated length
  EXPECT_FALSE(ok);
  Decode(Block(0, ""), &ok);
  EXPECT_TRUE(ok);
  Decode(Block(8, Literal("abcd") + Copy4(4, 0x01000001)), &ok);  // all four offset bytes count
  EXPECT_FALSE(ok);
  Decode(Block(6, Literal("abcd") + Copy2(4, 1)), &ok);  // a copy past the announced end
  EXPECT_FALSE(ok);
  Decode(Block(4, Literal("abcd") + Copy2(1, 1)), &ok);  // a tag after the output is complete
  EXPECT_FALSE(ok);
}

TEST(SnappyDecode, OddButLegalEncodingsAsLibsnappy) {
  const std::vector<std::string> blocks = {
      // A literal of 2^32 bytes wraps to an empty one in libsnappy's 32-bit arithmetic.
      Block(0, std::string("\xfc\xff\xff\xff\xff", 5)),
      // Lengths in more bytes than needed (1 and 4 extra bytes).
      Block(1, std::string("\xf0\x00", 2) + "a"),
      Block(1, std::string("\xfc\x00\x00\x00\x00", 5) + "a"),
      Block(300, Literal(std::string(300, 'z'))),
      Block(0, ""),
  };
  for (const std::string& b : blocks) {
    bool ours = false, theirs = false;
    const std::string a = Decode(b, &ours);
    const std::string o = Oracle(b, &theirs);
    EXPECT_TRUE(theirs);
    EXPECT_EQ(ours, theirs);
    EXPECT_EQ(a, o);
  }
}

TEST(SnappyDecode, CopiesAtTheFastPathsMargin) {
  // A 64-byte repeating copy with exactly 79, 80 and 81 bytes of output left (the fast path
  // needs 80), for every offset below 8 (the pattern-widening path writes furthest ahead).
  const std::string head = "0123456789";
  for (size_t offset = 1; offset <= 8; ++offset) {
    for (size_t tail : {15, 16, 17}) {
      std::string expected = head;
      for (size_t k = 0; k < 64; ++k) expected += expected[expected.size() - offset];
      const std::string pad(tail, 'p');
      expected += pad;
      bool ok = false;
      EXPECT_EQ(
          Decode(Block(expected.size(), Literal(head) + Copy2(64, offset) + Literal(pad)), &ok),
          expected)
          << "offset " << offset << " room " << 64 + tail;
      EXPECT_TRUE(ok);
    }
  }
}

TEST(SnappyDecode, DamagedBlocksMatchLibsnappysVerdict) {
  std::mt19937_64 rng(7);
  int rejected = 0, accepted = 0;
  for (const std::string& in : Samples()) {
    if (in.size() > 20000) continue;
    const std::string good = Compress(in);
    for (int trial = 0; trial < 40; ++trial) {
      std::string bad = good;
      if (trial % 4 == 0 && !bad.empty()) {
        bad.resize(rng() % bad.size());
      } else if (!bad.empty()) {
        for (int k = 0; k < 1 + trial % 3; ++k) bad[rng() % bad.size()] ^= 1 << (rng() % 8);
      }
      size_t announced = 0;
      if (snappy::GetUncompressedLength(bad.data(), bad.size(), &announced) &&
          announced > (size_t{1} << 24)) {
        continue;  // a damaged preamble asking for a huge buffer
      }
      bool ours = false, theirs = false;
      const std::string a = Decode(bad, &ours);
      const std::string b = Oracle(bad, &theirs);
      ASSERT_EQ(ours, theirs) << "sample of " << in.size() << " bytes, trial " << trial;
      if (ours) {
        ASSERT_EQ(a, b);
        ++accepted;
      } else {
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 100);  // the damage is real, and some damaged blocks still decode
  EXPECT_GT(accepted, 10);
}

}  // namespace
}  // namespace tandem::parquet
