// InputFile: how every reader opens a path. A regular file is read in place (an open file
// descriptor: Parquet reads ranges, CSV reads blocks). A pipe or FIFO (`/dev/fd/3`,
// `<(command)`, `mkfifo`) can be read only once, yet a query opens its inputs more than once
// (the schema, then the rows), so its whole content is read on the first open and remembered for
// the rest of the process. A FIFO without a writer gives an error instead of waiting forever,
// and devices and directories are refused by name.
#pragma once

#include <memory>
#include <string>

#include "tandem/common/status.h"
#include "tandem/memory/buffer.h"

namespace tandem::io {

struct InputFile {
  int fd = -1;                    // a regular file: the caller owns and closes it
  int64_t size = 0;               // its size in bytes
  std::shared_ptr<Buffer> bytes;  // a pipe or FIFO: its whole content (fd is -1)
};

// Opens `path` for reading; errors are one line naming the path.
Result<InputFile> OpenInputFile(const std::string& path);

}  // namespace tandem::io
