// Host staging of Parquet column chunks for the GPU decoder (io/parquet/gpu/chunk_staging.h)
// against the host decoder on the same chunks, one thread each, alternating, in one process. A GPU
// scan from files waits on this staging (issue 15: "the GPU waits for host threads that
// decompress Snappy and stage pages"), so its speed per thread bounds the scan; no GPU is needed.
//   parquet_staging_bench FILE... --columns a,b [--reps N] [--only stage|host]
// Staging reads the files' bytes loaded once into memory; the host decoder (ReadParquet) reads
// them from the files (the page cache after the warm-up round), so its column is a reference
// point, not a like-for-like rival. Prints, per round, the staging and host-decode times of all
// chunks of the columns, then the medians and the bytes of values staged per second.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tandem/io/parquet/gpu/chunk_staging.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/type_mapping.h"

namespace {

using namespace tandem;
using namespace tandem::parquet;
using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Chunk {
  const std::string* bytes;
  int64_t start, length, rows;
  const ColumnMetaData* meta;
  const LeafColumn* leaf;
};

struct Input {
  std::string path;
  std::string bytes;
  std::unique_ptr<ParquetFile> file;
  std::vector<LeafColumn> leaves;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths, columns;
  int reps = 5;
  std::string only;  // "stage" or "host": one side alone (for a profiler)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--columns" || arg == "--reps" || arg == "--only") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (arg == "--only") {
        only = v;
      } else if (arg == "--reps") {
        reps = std::max(1, std::atoi(v.c_str()));
      } else {
        std::stringstream ss(v);
        for (std::string c; std::getline(ss, c, ',');) columns.push_back(c);
      }
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty() || columns.empty()) {
    std::fprintf(
        stderr,
        "usage: parquet_staging_bench FILE... --columns a,b [--reps N] [--only stage|host]\n");
    return 2;
  }
  std::vector<Input> inputs(paths.size());
  std::vector<Chunk> chunks;
  for (size_t f = 0; f < paths.size(); ++f) {
    Input& in = inputs[f];
    in.path = paths[f];
    std::ifstream s(in.path, std::ios::binary | std::ios::ate);
    in.bytes.resize(static_cast<size_t>(std::max<std::streamoff>(0, s.tellg())));
    s.seekg(0);
    s.read(in.bytes.data(), static_cast<std::streamsize>(in.bytes.size()));
    auto file = ParquetFile::Open(in.path);
    auto leaves = file.ok() ? MapParquetSchema((*file)->metadata().schema)
                            : Result<std::vector<LeafColumn>>(file.status());
    if (!file.ok() || !leaves.ok() || in.bytes.empty()) {
      std::fprintf(stderr, "%s: cannot open\n", in.path.c_str());
      return 1;
    }
    in.file = std::move(file).value();
    in.leaves = std::move(leaves).value();
  }
  for (const Input& in : inputs) {
    for (const std::string& name : columns) {
      size_t col = 0;
      while (col < in.leaves.size() && in.leaves[col].name != name) ++col;
      if (col == in.leaves.size()) {
        std::fprintf(stderr, "%s: no column %s\n", in.path.c_str(), name.c_str());
        return 1;
      }
      for (const RowGroup& rg : in.file->metadata().row_groups) {
        const ColumnMetaData& md = *rg.columns[col].meta_data;
        const int64_t start = ChunkStart(md);
        const int64_t length = std::min<int64_t>(md.total_compressed_size + 100,
                                                 static_cast<int64_t>(in.bytes.size()) - start);
        chunks.push_back({&in.bytes, start, length, rg.num_rows, &md, &in.leaves[col]});
      }
    }
  }
  ReadOptions host_options;
  host_options.columns = columns;
  host_options.num_threads = 1;
  std::vector<double> stage_ms, host_ms;
  int64_t staged_bytes = 0, on_host = 0;
  for (int r = 0; r <= reps; ++r) {  // round 0: warm-up
    auto t = Clock::now();
    int64_t bytes = 0, host_chunks = 0;
    for (const Chunk& c : chunks) {
      if (only == "host") break;
      gpu_decode::StagedChunk staged;
      gpu_decode::StageColumnChunk(reinterpret_cast<const uint8_t*>(c.bytes->data()) + c.start,
                                   c.length, *c.meta, *c.leaf, c.rows, /*pinned=*/false, &staged);
      bytes += staged.staging_bytes;
      host_chunks += !staged.on_gpu;
    }
    const double s = MillisSince(t);
    t = Clock::now();
    for (const Input& in : inputs) {
      if (only == "stage") break;
      auto table = ReadParquet(in.path, host_options);
      if (!table.ok()) {
        std::fprintf(stderr, "%s\n", table.status().ToString().c_str());
        return 1;
      }
    }
    const double h = MillisSince(t);
    if (r == 0) continue;
    stage_ms.push_back(s);
    host_ms.push_back(h);
    staged_bytes = bytes;
    on_host = host_chunks;
    std::printf("round %d: staging %.1f ms, host decode %.1f ms\n", r, s, h);
  }
  const double s = Median(stage_ms), h = Median(host_ms);
  std::printf("chunks %zu (%lld left to the host decoder), values staged %.1f MiB\n", chunks.size(),
              static_cast<long long>(on_host), staged_bytes / 1048576.0);
  if (only != "host") {
    std::printf("staging median %.1f ms (%.0f MiB/s per thread)\n", s,
                staged_bytes / 1048576.0 / (s / 1e3));
  }
  if (only != "stage") std::printf("host decode median %.1f ms\n", h);
  if (only.empty()) std::printf("staging / host decode: %.2f\n", s / h);
  return 0;
}
