// Small text helpers shared by the catalog, the settings, the binder and the readers: ASCII
// lower-casing (SQL names compare case-insensitively), trimming, and the edit distance behind
// every "did you mean ...?" hint.
#pragma once

#include <cstddef>
#include <string>

namespace tandem {

std::string AsciiLower(std::string s);
// `s` without leading and trailing whitespace.
std::string TrimSpace(const std::string& s);
// Levenshtein distance between a and b, ignoring ASCII case.
size_t EditDistanceIgnoringCase(const std::string& a, const std::string& b);

}  // namespace tandem
