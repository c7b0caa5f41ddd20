// EventLogLineReader: the lines of a Spark event log (one JSON event per line) from an
// EventLogStream. Lines can be tens of MB (a SQL plan in one event); each is built by appending
// whole decoded chunks, so a long line costs linear time, and one line is limited in length so a
// file without newlines cannot take all memory.
//
// At a truncated end the last line usually stops in the middle of its JSON: it is still
// returned, and last_line_cut() says so, so the caller can drop it and keep everything before.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tandem/common/status.h"
#include "tandem/qualify/event_log_codec.h"

namespace tandem::qualify {

class EventLogLineReader {
 public:
  static constexpr int64_t kDefaultMaxLineBytes = int64_t{1} << 30;

  explicit EventLogLineReader(std::unique_ptr<EventLogStream> stream,
                              int64_t max_line_bytes = kDefaultMaxLineBytes);

  // Sets *line to the next line, without its '\n', and returns true; returns false at the end.
  // A final line without '\n' is returned too. After an error every later call returns it.
  Result<bool> Next(std::string* line);

  // After Next returned a line: whether it is the last one and the stream was truncated before
  // its '\n' (the line is incomplete).
  bool last_line_cut() const { return last_line_cut_; }
  // Lines returned so far (the number of the one Next returned last).
  int64_t line_number() const { return line_number_; }
  const EventLogStream& stream() const { return *stream_; }

 private:
  std::unique_ptr<EventLogStream> stream_;
  int64_t max_line_bytes_;
  std::unique_ptr<uint8_t[]> buffer_;
  size_t pos_ = 0, end_ = 0;
  bool at_end_ = false;
  Status error_;
  bool last_line_cut_ = false;
  int64_t line_number_ = 0;
};

}  // namespace tandem::qualify
