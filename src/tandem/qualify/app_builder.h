// Builds an Application (app_model.h) from the lines of its event log, one at a time: each
// line is one JSON event; the events qualification needs are folded in, the rest skipped. A
// line that is not JSON is counted (a damaged log keeps what could be read), never fatal.
#pragma once

#include <string>

#include "tandem/qualify/app_model.h"

namespace tandem::qualify {

class AppBuilder {
 public:
  // Folds one line of the log in.
  void Consume(const std::string& line);
  // The log ended (cut off when `truncated`); returns the application.
  Application Finish(bool truncated);

 private:
  Application app_;
};

}  // namespace tandem::qualify
