// File listing: glob expansion one path component at a time, recursive directory walks, and
// hive partition values taken from the key=value folders between the starting point and a file.
#include "tandem/io/file_listing.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace tandem::io {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 128;  // deeper trees are surely a symlink loop

bool HasGlobChars(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

bool IsHiddenName(std::string_view name) {
  if (name.empty()) return true;
  if (name[0] == '.' || name[0] == '_') return true;
  return name.size() >= 4 && name.substr(name.size() - 4) == ".crc";
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

Status ErrorFor(const std::error_code& ec, const std::string& path) {
  if (ec == std::errc::permission_denied) return Status::IOError("permission denied: " + path);
  if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
    return Status::IOError("no such file or directory: " + path);
  }
  return Status::IOError("cannot list " + path + ": " + ec.message());
}

enum class Kind { kMissing, kFile, kDirectory, kOther };

Result<Kind> KindOf(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path.empty() ? "." : path, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
      return Kind::kMissing;
    }
    return ErrorFor(ec, path);
  }
  if (fs::is_regular_file(st)) return Kind::kFile;
  if (fs::is_directory(st)) return Kind::kDirectory;
  if (st.type() == fs::file_type::not_found) return Kind::kMissing;
  return Kind::kOther;
}

// Entry names of a directory (unsorted), or an error naming it.
Result<std::vector<std::string>> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir.empty() ? "." : dir, ec);
  if (ec) return ErrorFor(ec, dir);
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) return ErrorFor(ec, dir);
  return names;
}

// Every visible regular file below dir.
Status WalkDirectory(const std::string& dir, int depth, std::vector<std::string>* out) {
  if (depth > kMaxDepth) return Status::IOError("directory tree too deep (symlink loop?): " + dir);
  TANDEM_ASSIGN_OR_RAISE(auto names, ListDirectory(dir));
  for (const auto& name : names) {
    if (IsHiddenName(name)) continue;
    const std::string child = JoinPath(dir, name);
    TANDEM_ASSIGN_OR_RAISE(Kind kind, KindOf(child));
    if (kind == Kind::kFile) {
      out->push_back(child);
    } else if (kind == Kind::kDirectory) {
      TANDEM_RETURN_NOT_OK(WalkDirectory(child, depth + 1, out));
    }
  }
  return Status::OK();
}

// Matches pattern components [index, end) below dir.
Status ExpandGlob(const std::string& dir, const std::vector<std::string>& parts, size_t index,
                  int depth, std::vector<std::string>* out) {
  if (depth > kMaxDepth) return Status::IOError("directory tree too deep (symlink loop?): " + dir);
  if (index == parts.size()) {
    TANDEM_ASSIGN_OR_RAISE(Kind kind, KindOf(dir));
    if (kind == Kind::kFile) out->push_back(dir);
    if (kind == Kind::kDirectory) return WalkDirectory(dir, depth, out);
    return Status::OK();
  }
  const std::string& part = parts[index];
  if (part == "**") {
    // Zero folders, then one more folder with ** still to match.
    TANDEM_RETURN_NOT_OK(ExpandGlob(dir, parts, index + 1, depth + 1, out));
    TANDEM_ASSIGN_OR_RAISE(auto names, ListDirectory(dir));
    for (const auto& name : names) {
      if (IsHiddenName(name)) continue;
      const std::string child = JoinPath(dir, name);
      TANDEM_ASSIGN_OR_RAISE(Kind kind, KindOf(child));
      if (kind == Kind::kDirectory) {
        TANDEM_RETURN_NOT_OK(ExpandGlob(child, parts, index, depth + 1, out));
      }
    }
    return Status::OK();
  }
  if (!HasGlobChars(part)) {
    const std::string child = JoinPath(dir, part);
    TANDEM_ASSIGN_OR_RAISE(Kind kind, KindOf(child));
    if (kind == Kind::kMissing || kind == Kind::kOther) return Status::OK();
    if (kind == Kind::kFile && index + 1 != parts.size()) return Status::OK();
    return ExpandGlob(child, parts, index + 1, depth + 1, out);
  }
  TANDEM_ASSIGN_OR_RAISE(auto names, ListDirectory(dir));
  for (const auto& name : names) {
    if (IsHiddenName(name) || !GlobMatch(part, name)) continue;
    const std::string child = JoinPath(dir, name);
    TANDEM_ASSIGN_OR_RAISE(Kind kind, KindOf(child));
    if (kind == Kind::kFile && index + 1 != parts.size()) continue;
    if (kind == Kind::kFile || kind == Kind::kDirectory) {
      TANDEM_RETURN_NOT_OK(ExpandGlob(child, parts, index + 1, depth + 1, out));
    }
  }
  return Status::OK();
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// Fills in the partition keys and values of each file from the folders below root.
Status AssignPartitions(const std::string& root, FileListing* listing) {
  const size_t root_len = root.empty() ? 0 : root.size() + (root.back() == '/' ? 0 : 1);
  bool first = true;
  std::string first_path;
  for (auto& file : listing->files) {
    std::vector<std::string> folders = SplitPath(file.path.substr(root_len));
    if (!folders.empty()) folders.pop_back();  // the file name itself
    std::vector<std::string> keys;
    for (const auto& folder : folders) {
      const size_t eq = folder.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      std::string key = UrlDecode(folder.substr(0, eq));
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
        return Status::Invalid("partition key '" + key + "' appears twice in path " + file.path);
      }
      std::string value = UrlDecode(folder.substr(eq + 1));
      keys.push_back(std::move(key));
      if (value == kHiveDefaultPartition) {
        file.partition_values.push_back(std::nullopt);
      } else {
        file.partition_values.push_back(std::move(value));
      }
    }
    if (first) {
      listing->partition_keys = keys;
      first_path = file.path;
      first = false;
    } else if (keys != listing->partition_keys) {
      auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& k : v) s += (s.empty() ? "" : ", ") + k;
        return "(" + s + ")";
      };
      return Status::Invalid("inconsistent hive partition folders: " + file.path + " has keys " +
                             join(keys) + " but " + first_path + " has " +
                             join(listing->partition_keys));
    }
  }
  return Status::OK();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Matches one set "[...]" at pattern[*pi] against c; advances *pi past it. Returns false with
// *pi unchanged when the set is unterminated (then '[' is an ordinary character).
bool MatchSet(std::string_view pattern, size_t* pi, unsigned char c, bool* matched) {
  size_t i = *pi + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  while (i < pattern.size() && (pattern[i] != ']' || first)) {
    first = false;
    unsigned char lo = static_cast<unsigned char>(pattern[i]);
    if (lo == '\\' && i + 1 < pattern.size()) lo = static_cast<unsigned char>(pattern[++i]);
    unsigned char hi = lo;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      hi = static_cast<unsigned char>(pattern[i + 2]);
      i += 2;
    }
    if (c >= lo && c <= hi) found = true;
    ++i;
  }
  if (i >= pattern.size()) return false;
  *pi = i + 1;
  *matched = found != negate;
  return true;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtrack point for the most recent '*': linear-ish, no recursion.
  size_t p = 0, t = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      const char pc = pattern[p];
      if (pc == '*') {
        star_p = p++;
        star_t = t;
        continue;
      }
      if (pc == '?') {
        ++p;
        ++t;
        continue;
      }
      if (pc == '[') {
        size_t np = p;
        bool matched = false;
        if (MatchSet(pattern, &np, static_cast<unsigned char>(text[t]), &matched)) {
          if (matched) {
            p = np;
            ++t;
            continue;
          }
        } else if (text[t] == '[') {
          ++p;
          ++t;
          continue;
        }
      } else {
        char want = pc;
        size_t np = p + 1;
        if (pc == '\\' && p + 1 < pattern.size()) {
          want = pattern[p + 1];
          np = p + 2;
        }
        if (want == text[t]) {
          p = np;
          ++t;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string UrlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

Result<FileListing> ListFiles(const std::string& path) {
  if (path.empty()) return Status::Invalid("empty path");
  std::vector<std::string> found;
  std::string root;
  // A path that exists as typed is taken literally, even if it contains '[' or '*'.
  TANDEM_ASSIGN_OR_RAISE(Kind literal_kind, KindOf(path));
  if (!HasGlobChars(path) || literal_kind != Kind::kMissing) {
    const Kind kind = literal_kind;
    if (kind == Kind::kMissing) return Status::IOError("no such file or directory: " + path);
    if (kind == Kind::kOther) return Status::Invalid("not a regular file or directory: " + path);
    if (kind == Kind::kFile) {
      FileListing listing;
      listing.files.push_back({path, {}});
      return listing;
    }
    root = path;
    TANDEM_RETURN_NOT_OK(WalkDirectory(path, 0, &found));
    if (found.empty()) return Status::Invalid("no data files in directory: " + path);
  } else {
    // The literal folders before the first wildcard are the starting point.
    std::vector<std::string> parts = SplitPath(path);
    size_t first_glob = 0;
    while (first_glob < parts.size() && !HasGlobChars(parts[first_glob])) ++first_glob;
    root = path[0] == '/' ? "/" : "";
    for (size_t i = 0; i < first_glob; ++i) root = JoinPath(root, parts[i]);
    std::vector<std::string> rest(parts.begin() + first_glob, parts.end());
    if (!root.empty()) {
      TANDEM_ASSIGN_OR_RAISE(Kind kind, KindOf(root));
      if (kind != Kind::kDirectory) return Status::IOError("no such directory: " + root);
    }
    TANDEM_RETURN_NOT_OK(ExpandGlob(root, rest, 0, 0, &found));
    if (found.empty()) return Status::Invalid("no files match glob: " + path);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  FileListing listing;
  listing.files.reserve(found.size());
  for (auto& f : found) listing.files.push_back({std::move(f), {}});
  TANDEM_RETURN_NOT_OK(AssignPartitions(root, &listing));
  return listing;
}

}  // namespace tandem::io
