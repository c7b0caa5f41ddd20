// Line splitting over decoded chunks: memchr for '\n' in the unread part of a 1 MiB buffer,
// appending to the caller's string (which keeps its capacity from line to line).
#include "tandem/qualify/event_log_line_reader.h"

#include <cstring>
#include <utility>

namespace tandem::qualify {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

}  // namespace

EventLogLineReader::EventLogLineReader(std::unique_ptr<EventLogStream> stream,
                                       int64_t max_line_bytes)
    : stream_(std::move(stream)),
      max_line_bytes_(max_line_bytes),
      buffer_(std::make_unique_for_overwrite<uint8_t[]>(kBufferBytes)) {}

Result<bool> EventLogLineReader::Next(std::string* line) {
  line->clear();
  if (!error_.ok()) return error_;
  if (at_end_) return false;
  bool started = false;  // some bytes of this line were read
  while (true) {
    if (pos_ == end_) {
      Result<size_t> n = stream_->Read(buffer_.get(), kBufferBytes);
      if (!n.ok()) return error_ = n.status();
      pos_ = 0;
      end_ = *n;
      if (end_ == 0) {
        at_end_ = true;
        if (!started) return false;
        ++line_number_;
        last_line_cut_ = stream_->truncated();
        return true;
      }
    }
    const uint8_t* begin = buffer_.get() + pos_;
    const auto* newline = static_cast<const uint8_t*>(std::memchr(begin, '\n', end_ - pos_));
    const size_t take = newline != nullptr ? static_cast<size_t>(newline - begin) : end_ - pos_;
    if (static_cast<int64_t>(line->size() + take) > max_line_bytes_) {
      return error_ =
                 Status::Invalid(stream_->name() + ": line " + std::to_string(line_number_ + 1) +
                                 " is longer than " + std::to_string(max_line_bytes_) + " bytes");
    }
    line->append(reinterpret_cast<const char*>(begin), take);
    started = true;
    if (newline != nullptr) {
      pos_ += take + 1;
      ++line_number_;
      return true;
    }
    pos_ = end_;
  }
}

}  // namespace tandem::qualify
