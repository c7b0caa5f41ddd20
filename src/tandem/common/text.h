// Small text helpers shared by the catalog, the settings, the binder, the session and the
// readers: ASCII lower-casing (SQL names compare case-insensitively), trimming, byte sizes for
// messages, the edit distance behind every "did you mean ...?" hint, and reading a whole file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tandem/common/status.h"

namespace tandem {

std::string AsciiLower(std::string s);
// Whether `s` ends with `suffix`, ignoring ASCII case ("OUT.CSV" ends with ".csv").
bool EndsWithIgnoringCase(const std::string& s, const std::string& suffix);
// `s` without leading and trailing whitespace.
std::string TrimSpace(const std::string& s);
// A byte count for people: "512 B", "3.1 KiB", "20.0 MiB", "1.5 GiB".
std::string FormatByteSize(int64_t bytes);
// Levenshtein distance between a and b, ignoring ASCII case.
size_t EditDistanceIgnoringCase(const std::string& a, const std::string& b);
// The whole file at `path`, or IOError("cannot open|read PATH: reason"). A UTF-8 byte-order
// mark at the start is dropped (editors on Windows write one).
Result<std::string> ReadTextFile(const std::string& path);
// `text` without a leading UTF-8 byte-order mark.
std::string WithoutByteOrderMark(std::string text);
// The byte offset of the first byte that is not part of well-formed UTF-8 (overlong forms,
// surrogates and code points past U+10FFFF included), or npos when all of `text` is.
size_t FirstInvalidUtf8(const std::string& text);

}  // namespace tandem
