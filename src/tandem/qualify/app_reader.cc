// Reading an application's event log (see app_reader.h).
#include "tandem/qualify/app_reader.h"

#include "tandem/qualify/app_builder.h"
#include "tandem/qualify/event_log_line_reader.h"

namespace tandem::qualify {

Application ReadApplication(const EventLogSource& source) {
  AppBuilder builder;
  bool truncated = false;
  std::vector<std::string> problems;
  for (const std::string& file : source.files) {
    auto stream = EventLogStream::Open(file);
    if (!stream.ok()) {
      problems.push_back(stream.status().message());
      continue;
    }
    EventLogLineReader reader(std::move(*stream));
    std::string line;
    while (true) {
      Result<bool> more = reader.Next(&line);
      if (!more.ok()) {
        problems.push_back(more.status().message() + " (kept the " +
                           std::to_string(reader.line_number()) + " lines before)");
        truncated = true;
        break;
      }
      if (!*more) break;
      if (reader.last_line_cut()) break;  // the half event at a truncated end
      builder.Consume(line);
    }
    if (reader.stream().truncated()) {
      truncated = true;
      problems.push_back(reader.stream().truncation_message());
    }
  }
  Application app = builder.Finish(truncated || source.in_progress);
  if (app.bad_lines > 0) {
    problems.push_back(std::to_string(app.bad_lines) + " of " + std::to_string(app.lines) +
                       " lines were not JSON events (skipped)");
  }
  int unfinished = 0;
  for (const auto& [id, x] : app.executions) unfinished += x.start_ms >= 0 && x.end_ms < 0;
  if (unfinished > 0) {
    problems.push_back(std::to_string(unfinished) +
                       " SQL execution(s) never ended in the log: left out of the predictions");
  }
  if (app.end_ms < 0 && !app.executions.empty()) {
    problems.push_back(
        "no application end in the log (it crashed, was killed or is still "
        "running): its end is taken from its last event");
  }
  if (app.Property("spark.plugins").find("com.nvidia.spark.SQLPlugin") != std::string::npos &&
      app.Property("spark.rapids.sql.enabled", "true") != "false") {
    problems.push_back(
        "this application ran with the RAPIDS Accelerator: its plans are GPU "
        "plans, which qualification does not model");
  }
  if (source.in_progress && !truncated) {
    problems.push_back("the log is still being written (.inprogress): what it holds so far");
  }
  if (app.id.empty()) app.id = source.name;
  for (std::string& p : problems) app.problems.push_back(std::move(p));
  return app;
}

}  // namespace tandem::qualify
