// Finding event logs under paths (see event_log_files.h).
#include "tandem/qualify/event_log_files.h"

#include <algorithm>
#include <filesystem>

namespace tandem::qualify {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool LooksLikeLog(const std::string& name) {
  if (name.empty() || name[0] == '.' || name[0] == '_') return false;
  if (EndsWith(name, ".crc") || name.rfind("appstatus_", 0) == 0) return false;
  if (EndsWith(name, ".log") || name.find("stdout") != std::string::npos ||
      name.find("stderr") != std::string::npos || name.find("log4j") != std::string::npos) {
    return false;
  }
  return true;
}

// The N of events_<N>_<appId>..., or -1.
int64_t RollingIndex(const std::string& name) {
  if (name.rfind("events_", 0) != 0) return -1;
  const size_t end = name.find('_', 7);
  if (end == std::string::npos || end == 7) return -1;
  try {
    return std::stoll(name.substr(7, end - 7));
  } catch (...) {
    return -1;
  }
}

Status AddFolder(const fs::path& dir, std::vector<EventLogSource>* out, int depth) {
  if (depth > 32) return Status::OK();
  const std::string name = dir.filename().string();
  std::error_code ec;
  if (name.rfind("eventlog_v2_", 0) == 0) {
    EventLogSource source;
    source.name = name;
    std::vector<std::pair<int64_t, std::string>> parts;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string f = e.path().filename().string();
      const int64_t index = RollingIndex(f);
      if (index >= 0 && e.is_regular_file()) parts.push_back({index, e.path().string()});
      if (f.rfind("appstatus_", 0) == 0 && EndsWith(f, ".inprogress")) source.in_progress = true;
    }
    if (ec) return Status::IOError(dir.string() + ": " + ec.message());
    std::sort(parts.begin(), parts.end());
    for (auto& [i, path] : parts) source.files.push_back(path);
    if (!source.files.empty()) out->push_back(std::move(source));
    return Status::OK();
  }
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  if (ec) return Status::IOError(dir.string() + ": " + ec.message());
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    std::error_code ec2;
    if (fs::is_directory(p, ec2)) {
      TANDEM_RETURN_NOT_OK(AddFolder(p, out, depth + 1));
    } else if (fs::is_regular_file(p, ec2) && LooksLikeLog(p.filename().string())) {
      out->push_back({p.filename().string(), {p.string()}, EndsWith(p.string(), ".inprogress")});
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<EventLogSource>> FindEventLogs(const std::vector<std::string>& paths) {
  std::vector<EventLogSource> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) {
      TANDEM_RETURN_NOT_OK(AddFolder(p, &out, 0));
    } else if (fs::is_regular_file(p, ec)) {
      out.push_back({p.filename().string(), {p.string()}, EndsWith(path, ".inprogress")});
    } else {
      return Status::IOError(path + ": no such file or folder");
    }
  }
  return out;
}

}  // namespace tandem::qualify
