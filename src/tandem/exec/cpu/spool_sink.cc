// SpoolSink and FileAppendSink (spool_sink.h).
#include "tandem/exec/cpu/spool_sink.h"

namespace tandem::cpu {

Result<std::unique_ptr<SpoolSink>> SpoolSink::Open(std::string dir) {
  std::unique_ptr<SpoolSink> sink(new SpoolSink(std::move(dir)));
  TANDEM_RETURN_NOT_OK(sink->Restart());
  return sink;
}

Status SpoolSink::Consume(const Batch& batch, EvalContext& /*eval*/) {
  if (batch.num_rows == 0) return Status::OK();
  return file_->Append(batch);
}

Result<Table> SpoolSink::Finish() {
  TANDEM_RETURN_NOT_OK(file_->FinishWriting());
  return Table();
}

Status SpoolSink::Restart() {
  file_.reset();
  TANDEM_ASSIGN_OR_RAISE(file_, SpillFile::Create(dir_));
  return Status::OK();
}

Status FileAppendSink::Consume(const Batch& batch, EvalContext& /*eval*/) {
  if (batch.num_rows == 0) return Status::OK();
  return file_->Append(batch);
}

}  // namespace tandem::cpu
