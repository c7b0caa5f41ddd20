// File listing: turns what a user typed (a file, a directory, or a glob with *, ?, [...] and **)
// into a sorted list of data files. Directories are walked recursively; names starting with '.'
// or '_' (_SUCCESS, _metadata, .crc side files, _temporary/) and *.crc files are skipped. Folders
// named key=value below the starting point are hive-style partitions: each file carries their
// values (URL-decoded; __HIVE_DEFAULT_PARTITION__ is NULL), and every file must carry the same
// keys in the same order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::io {

struct ListedFile {
  std::string path;
  // One value per FileListing::partition_keys entry; nullopt is NULL.
  std::vector<std::optional<std::string>> partition_values;
};

struct FileListing {
  std::vector<ListedFile> files;            // sorted by path (bytewise)
  std::vector<std::string> partition_keys;  // in folder order, outermost first
};

// Expands `path`. Errors: "no such file or directory: P", "no files match glob: P",
// "no data files in directory: P", "permission denied: P" (IOError), inconsistent partitions.
Result<FileListing> ListFiles(const std::string& path);

// Whether `text` matches the glob `pattern` within one path component: '*' any run of
// characters, '?' one character, '[abc]', '[a-z]', '[!a-z]' / '[^a-z]' a set; '\\' escapes.
bool GlobMatch(std::string_view pattern, std::string_view text);

// Decodes %XX escapes (as Hive and Spark write partition values); malformed escapes stay as is.
std::string UrlDecode(std::string_view text);

// The hive default-partition marker, read as NULL.
inline constexpr const char* kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

}  // namespace tandem::io
