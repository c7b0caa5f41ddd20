// Event log decoding against what Spark writes: the fixtures in tests/qualify/fixtures come from
// Spark's own codec classes (MakeCodecFixtures.java), and this file rebuilds their text by the
// same rule. Every codec must give back exactly that text; a file cut anywhere must give back the
// lines before the cut and say it was truncated (never crash or loop); bytes no codec wrote must
// give a one-line error naming the file.
#include "tandem/qualify/event_log_codec.h"

#include <gtest/gtest.h>
#include <lz4frame.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tandem/qualify/event_log_line_reader.h"
#include "tandem/qualify/lzf.h"
#include "tandem/qualify/xxhash32.h"

namespace tandem::qualify {
namespace {

namespace fs = std::filesystem;

fs::path FixtureDir() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "qualify" / "fixtures";
}

// The lines MakeCodecFixtures.java writes (keep the two in step).
std::vector<std::string> EventLines() {
  const std::string non_ascii =  // "naïve café ☃ 🚀 日本語"
      "na\xc3\xaf"
      "ve caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x9a\x80 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e";
  std::vector<std::string> lines;
  lines.push_back(R"({"Event":"SparkListenerLogStart","Spark Version":"4.0.1"})");
  for (int i = 0; i < 100; ++i) {
    lines.push_back(R"({"Event":"SparkListenerTaskEnd","Stage ID":)" + std::to_string(i / 50) +
                    R"(,"Task Info":{"Task ID":)" + std::to_string(i) + R"(,"Launch Time":)" +
                    std::to_string(1700000000000LL + 37LL * i) + R"(},"Note":")" + non_ascii +
                    " #" + std::to_string(i) + "\"}");
  }
  std::string plan;
  for (int i = 0; i < 55300; ++i) plan += "Filter (id > \xf0\x9f\x9a\x80) ";
  lines.push_back(R"({"Event":"SparkListenerSQLExecutionStart","physicalPlanDescription":")" +
                  plan + "\"}");
  lines.push_back(R"({"Event":"SparkListenerApplicationEnd","Timestamp":1700000099999})");
  return lines;
}

std::string Join(const std::vector<std::string>& lines, size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i) text += lines[i] + "\n";
  return text;
}

const std::vector<std::string>& Lines() {
  static const std::vector<std::string> lines = EventLines();
  return lines;
}

const std::string& FullText() {
  static const std::string text = Join(Lines(), Lines().size());
  return text;
}

std::string ReadBinary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBinary(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Everything the stream decodes, read `chunk` bytes at a time.
Result<std::string> DecodeAll(const std::string& path, size_t chunk) {
  TANDEM_ASSIGN_OR_RAISE(auto stream, EventLogStream::Open(path));
  std::string text;
  std::vector<uint8_t> buffer(chunk);
  while (true) {
    TANDEM_ASSIGN_OR_RAISE(size_t n, stream->Read(buffer.data(), buffer.size()));
    if (n == 0) break;
    text.append(reinterpret_cast<const char*>(buffer.data()), n);
  }
  if (stream->truncated())
    return Status::Invalid("unexpectedly truncated: " + stream->truncation_message());
  return text;
}

struct Fixture {
  const char* suffix;
  EventLogCodec codec;
  bool has_end_marker;  // a cut anywhere before the end is always seen as truncation
};

const Fixture kFixtures[] = {
    {"lz4", EventLogCodec::kLz4, true},        {"lzf", EventLogCodec::kLzf, false},
    {"snappy", EventLogCodec::kSnappy, false}, {"zstd", EventLogCodec::kZstd, true},
    {"gz", EventLogCodec::kGzip, true},
};

class EventLogCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tandem_event_log_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(EventLogCodecName, FromFileName) {
  EXPECT_EQ(CodecFromFileName("app-20240101-0001.zstd"), EventLogCodec::kZstd);
  EXPECT_EQ(CodecFromFileName("/logs/eventlog_v2_app/events_1_app.zstd.inprogress"),
            EventLogCodec::kZstd);
  EXPECT_EQ(CodecFromFileName("local-1700000000000.lz4"), EventLogCodec::kLz4);
  EXPECT_EQ(CodecFromFileName("events_2_app.lz4.inprogress"), EventLogCodec::kLz4);
  EXPECT_EQ(CodecFromFileName("app.snappy"), EventLogCodec::kSnappy);
  EXPECT_EQ(CodecFromFileName("app.lzf"), EventLogCodec::kLzf);
  EXPECT_EQ(CodecFromFileName("app.gz"), EventLogCodec::kGzip);
  EXPECT_EQ(CodecFromFileName("APP.ZSTD.INPROGRESS"), EventLogCodec::kZstd);
  EXPECT_EQ(CodecFromFileName("app.zst"), EventLogCodec::kZstd);
  EXPECT_EQ(CodecFromFileName("app-123"), EventLogCodec::kNone);
  EXPECT_EQ(CodecFromFileName("app-123.inprogress"), EventLogCodec::kNone);
  EXPECT_EQ(CodecFromFileName("events.json"), EventLogCodec::kNone);
  EXPECT_EQ(CodecFromFileName("dir.lz4/app-123"), EventLogCodec::kNone);
  EXPECT_EQ(CodecFromFileName(""), EventLogCodec::kNone);
  EXPECT_STREQ(EventLogCodecName(EventLogCodec::kSnappy), "snappy");
}

TEST(EventLogCodecName, XxHash32KnownValues) {
  EXPECT_EQ(XxHash32(nullptr, 0, 0), 0x02CC5D05u);
  const std::string abc = "abc";
  EXPECT_EQ(XxHash32(reinterpret_cast<const uint8_t*>(abc.data()), abc.size(), 0), 0x32D153FFu);
}

TEST(EventLogLzf, DecodesLiteralsAndOverlappingReferences) {
  // "abc", then a reference 3 back of 3 + 2 = 5 bytes (overlapping), then a long reference
  // (length field 7 + 1 extra = 8, + 2 = 10 bytes) 1 back: a run of the last byte.
  const uint8_t in[] = {2, 'a', 'b', 'c', (3 << 5) | 0, 2, (7 << 5) | 0, 1, 0};
  std::string out(3 + 5 + 10, '\0');
  ASSERT_TRUE(
      LzfDecompress(in, sizeof(in), reinterpret_cast<uint8_t*>(out.data()), out.size()).ok());
  EXPECT_EQ(out, "abcabcabbbbbbbbbbb");
}

TEST(EventLogLzf, RefusesDamage) {
  uint8_t out[16];
  const uint8_t before_start[] = {0, 'a', (1 << 5) | 0, 5};  // 6 back from byte 1
  Status st = LzfDecompress(before_start, sizeof(before_start), out, 4);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("before the start"), std::string::npos) << st.message();
  const uint8_t short_literal[] = {5, 'a', 'b'};
  EXPECT_FALSE(LzfDecompress(short_literal, sizeof(short_literal), out, 6).ok());
  const uint8_t overflow[] = {0, 'a', (6 << 5) | 0, 0};  // 8 bytes into room for 4
  EXPECT_FALSE(LzfDecompress(overflow, sizeof(overflow), out, 4).ok());
  const uint8_t cut_reference[] = {0, 'a', (7 << 5) | 0};
  EXPECT_FALSE(LzfDecompress(cut_reference, sizeof(cut_reference), out, 16).ok());
}

TEST_F(EventLogCodecTest, EveryCodecDecodesSparkOutputExactly) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    const fs::path path = FixtureDir() / (std::string("events.") + f.suffix);
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_LT(fs::file_size(path), 100u * 1024);
    EXPECT_EQ(CodecFromFileName(path.string()), f.codec);
    for (size_t chunk : {size_t{4099}, size_t{1} << 20}) {
      Result<std::string> text = DecodeAll(path.string(), chunk);
      ASSERT_TRUE(text.ok()) << text.status().ToString();
      EXPECT_TRUE(*text == FullText())
          << "decoded " << text->size() << " bytes, expected " << FullText().size();
    }
  }
}

TEST_F(EventLogCodecTest, ConcatenatedStreamsDecodeOneAfterTheOther) {
  const std::string expected = Join(Lines(), 20);
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    const fs::path path = FixtureDir() / (std::string("concat.") + f.suffix);
    for (size_t chunk : {size_t{1}, size_t{333}}) {
      Result<std::string> text = DecodeAll(path.string(), chunk);
      ASSERT_TRUE(text.ok()) << text.status().ToString();
      EXPECT_EQ(*text, expected);
    }
  }
}

TEST_F(EventLogCodecTest, PlainTextPassesThrough) {
  const fs::path path = dir_ / "app-123.inprogress";
  WriteBinary(path, FullText());
  Result<std::string> text = DecodeAll(path.string(), 70000);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_TRUE(*text == FullText());
}

TEST_F(EventLogCodecTest, LineReaderReturnsTheEvents) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    auto stream =
        EventLogStream::Open((FixtureDir() / (std::string("events.") + f.suffix)).string());
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    EventLogLineReader reader(std::move(*stream));
    std::string line;
    size_t i = 0;
    while (true) {
      Result<bool> more = reader.Next(&line);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      ASSERT_LT(i, Lines().size());
      EXPECT_TRUE(line == Lines()[i]) << "line " << i + 1;
      EXPECT_FALSE(reader.last_line_cut());
      ++i;
    }
    EXPECT_EQ(i, Lines().size());
    EXPECT_EQ(reader.line_number(), static_cast<int64_t>(Lines().size()));
    EXPECT_FALSE(reader.stream().truncated());
    Result<bool> again = reader.Next(&line);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(*again);
  }
}

TEST_F(EventLogCodecTest, LineReaderLimitsLineLength) {
  auto stream = EventLogStream::Open((FixtureDir() / "events.zstd").string());
  ASSERT_TRUE(stream.ok());
  EventLogLineReader reader(std::move(*stream), /*max_line_bytes=*/1 << 20);
  std::string line;
  Result<bool> more = true;
  while (more.ok() && *more) more = reader.Next(&line);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.status().message().find("events.zstd: line 102 is longer than"), std::string::npos)
      << more.status().message();
}

// Cuts each fixture at many points: the lines before the cut come back, the last one possibly
// incomplete, and the stream says it was truncated.
TEST_F(EventLogCodecTest, TruncatedFilesGiveTheLinesBeforeTheCut) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    const std::string bytes = ReadBinary(FixtureDir() / (std::string("events.") + f.suffix));
    ASSERT_GT(bytes.size(), 100u);
    std::vector<size_t> cuts = {1,
                                2,
                                3,
                                5,
                                8,
                                13,
                                16,
                                17,
                                21,
                                22,
                                30,
                                bytes.size() - 1,
                                bytes.size() - 2,
                                bytes.size() - 5,
                                bytes.size() - 21};
    for (size_t cut = 41; cut < bytes.size(); cut += bytes.size() / 53) cuts.push_back(cut);
    int truncated_count = 0;
    for (size_t cut : cuts) {
      SCOPED_TRACE("cut at " + std::to_string(cut));
      const fs::path path = dir_ / (std::string("events_1_app.") + f.suffix + ".inprogress");
      WriteBinary(path, bytes.substr(0, cut));
      auto stream = EventLogStream::Open(path.string());
      ASSERT_TRUE(stream.ok()) << stream.status().ToString();
      EventLogLineReader reader(std::move(*stream));
      std::vector<std::string> got;
      std::string line;
      bool cut_line = false;
      while (true) {
        Result<bool> more = reader.Next(&line);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
        ASSERT_FALSE(cut_line) << "a line after the cut line";
        got.push_back(line);
        cut_line = reader.last_line_cut();
      }
      const EventLogStream& s = reader.stream();
      ASSERT_LE(got.size(), Lines().size());
      for (size_t i = 0; i + 1 < got.size(); ++i) ASSERT_TRUE(got[i] == Lines()[i]) << i;
      if (!got.empty()) {
        const std::string& last = got.back();
        const std::string& want = Lines()[got.size() - 1];
        ASSERT_TRUE(want.compare(0, last.size(), last) == 0) << "the last line is not a prefix";
        if (s.truncated() && last.size() < want.size()) {
          EXPECT_TRUE(cut_line);
        }
      }
      if (cut_line || f.has_end_marker) {
        EXPECT_TRUE(s.truncated());
      }
      if (s.truncated()) {
        ++truncated_count;
        EXPECT_EQ(s.truncation_message().rfind(path.string() + ": ", 0), 0u)
            << s.truncation_message();
        EXPECT_EQ(s.truncation_message().find('\n'), std::string::npos);
      }
    }
    // Formats without an end marker end cleanly when cut between two chunks, and only then.
    EXPECT_GT(truncated_count, static_cast<int>(cuts.size()) / 2);
  }
}

TEST_F(EventLogCodecTest, LastBlockCutKeepsEveryCompleteLine) {
  // Cutting the lz4 end block leaves all data blocks: every line comes back, none cut.
  const std::string bytes = ReadBinary(FixtureDir() / "events.lz4");
  const fs::path path = dir_ / "app.lz4.inprogress";
  WriteBinary(path, bytes.substr(0, bytes.size() - 21));
  auto stream = EventLogStream::Open(path.string());
  ASSERT_TRUE(stream.ok());
  EventLogLineReader reader(std::move(*stream));
  std::string line;
  size_t n = 0;
  while (true) {
    Result<bool> more = reader.Next(&line);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ++n;
  }
  EXPECT_EQ(n, Lines().size());
  EXPECT_FALSE(reader.last_line_cut());
  ASSERT_TRUE(reader.stream().truncated());
  EXPECT_NE(reader.stream().truncation_message().find("without its end block"), std::string::npos)
      << reader.stream().truncation_message();
}

TEST_F(EventLogCodecTest, GarbageIsAClearError) {
  std::string garbage;
  for (int i = 0; i < 200; ++i)
    garbage += "this is not a compressed event log, line " + std::to_string(i) + "\n";
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    const fs::path path = dir_ / (std::string("app.") + f.suffix);
    WriteBinary(path, garbage);
    Result<std::string> text = DecodeAll(path.string(), 4096);
    ASSERT_FALSE(text.ok());
    const std::string& msg = text.status().message();
    EXPECT_EQ(text.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(msg.rfind(path.string() + ": not a", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST_F(EventLogCodecTest, DamageInsideABlockIsAnErrorNotATruncation) {
  // lz4 blocks carry a checksum and gzip members a CRC: a flipped byte cannot go unnoticed. Byte
  // 100 is inside the first lz4 block's payload; the middle of the gzip file is deflate data.
  for (const char* suffix : {"lz4", "gz"}) {
    SCOPED_TRACE(suffix);
    std::string bytes = ReadBinary(FixtureDir() / (std::string("events.") + suffix));
    const size_t at = std::string(suffix) == "lz4" ? 100 : bytes.size() / 2;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x55);
    const fs::path path = dir_ / (std::string("app.") + suffix);
    WriteBinary(path, bytes);
    Result<std::string> text = DecodeAll(path.string(), 4096);
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.status().code(), StatusCode::kInvalid);
    const std::string& msg = text.status().message();
    EXPECT_EQ(msg.rfind(path.string() + ": the ", 0), 0u) << msg;
    EXPECT_NE(msg.find(" at byte 0 is damaged"), std::string::npos) << msg;
  }
}

TEST_F(EventLogCodecTest, RandomDamageNeverCrashes) {
  // Snappy and lzf carry no checksum, so damage may decode to other bytes; what matters is that
  // every decoder stops with data, a truncation or an error, within bounds.
  uint32_t seed = 12345;
  const auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    const std::string original = ReadBinary(FixtureDir() / (std::string("events.") + f.suffix));
    const fs::path path = dir_ / (std::string("app.") + f.suffix);
    for (int round = 0; round < 40; ++round) {
      std::string bytes = original;
      for (int k = 0; k < 1 + round % 3; ++k) {
        const size_t at = next() % bytes.size();
        bytes[at] = static_cast<char>(bytes[at] ^ (1 + next() % 255));
      }
      WriteBinary(path, bytes);
      Result<std::string> text = DecodeAll(path.string(), 65536);
      if (text.ok()) {
        EXPECT_LE(text->size(), FullText().size() + (size_t{4} << 20));
      } else {  // an error, or a truncation (DecodeAll reports one as an error too)
        EXPECT_NE(text.status().message().find(path.string() + ": "), std::string::npos)
            << text.status().message();
      }
    }
  }
}

TEST_F(EventLogCodecTest, EmptyFilesAreEmptyStreams) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.suffix);
    const fs::path path = dir_ / (std::string("app.") + f.suffix + ".inprogress");
    WriteBinary(path, "");
    Result<std::string> text = DecodeAll(path.string(), 4096);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    EXPECT_EQ(*text, "");
  }
}

TEST_F(EventLogCodecTest, Lz4FramesOfTheCommandLineToolAreRecognised) {
  // A `.lz4` log compressed by the lz4 tool holds LZ4 frames, not LZ4Block streams: two frames
  // here (the full text, then the first 20 lines), decoded one after the other.
  std::string bytes;
  for (const std::string& part : {FullText(), Join(Lines(), 20)}) {
    std::string frame(LZ4F_compressFrameBound(part.size(), nullptr), '\0');
    const size_t n =
        LZ4F_compressFrame(frame.data(), frame.size(), part.data(), part.size(), nullptr);
    ASSERT_FALSE(LZ4F_isError(n));
    bytes += frame.substr(0, n);
  }
  const fs::path path = dir_ / "app.lz4";
  WriteBinary(path, bytes);
  Result<std::string> text = DecodeAll(path.string(), 4099);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_TRUE(*text == FullText() + Join(Lines(), 20));

  for (size_t cut : {size_t{3}, size_t{7}, bytes.size() / 3, bytes.size() - 1}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    WriteBinary(path, bytes.substr(0, cut));
    auto stream = EventLogStream::Open(path.string());
    ASSERT_TRUE(stream.ok());
    std::string decoded;
    std::vector<uint8_t> buffer(4099);
    while (true) {
      Result<size_t> n = (*stream)->Read(buffer.data(), buffer.size());
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      if (*n == 0) break;
      decoded.append(reinterpret_cast<const char*>(buffer.data()), *n);
    }
    EXPECT_TRUE((*stream)->truncated());
    EXPECT_NE((*stream)->truncation_message().find("lz4 frame"), std::string::npos);
    EXPECT_TRUE((FullText() + Join(Lines(), 20)).compare(0, decoded.size(), decoded) == 0);
  }
}

TEST_F(EventLogCodecTest, MissingFileIsAnIOError) {
  auto stream = EventLogStream::Open((dir_ / "nope.zstd").string());
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kIOError);
}

}  // namespace
}  // namespace tandem::qualify
