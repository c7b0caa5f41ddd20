// DecompressPagesOnGpu (see page_decompress.h): nvCOMP's batched decompressors, reached through
// function pointers from a dlopen of libnvcomp.so.6 (next to where .venv's wheel put it at build
// time, else on the library path: .device/lib on the GPU machine). One batch per call: the
// page table (pointers and sizes) goes up in one copy, the statuses and decompressed sizes come
// back in one, after one temporary buffer of the size nvCOMP asks for.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "tandem/gpu/cuda_util.cuh"
#include "tandem/io/parquet/gpu/page_decompress.h"
#include "tandem/io/parquet/gpu/page_framing.h"

#if TANDEM_HAVE_NVCOMP
#include <nvcomp/gzip.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>
#endif

namespace tandem::parquet::gpu_decode {

#if TANDEM_HAVE_NVCOMP
namespace {

// The two entry points of one codec, of one shape across codecs but for the options type.
template <typename Opts>
struct CodecEntry {
  using TempSize = nvcompStatus_t (*)(size_t, size_t, Opts, size_t*, size_t, cudaStream_t);
  using Decompress = nvcompStatus_t (*)(const void* const*, const size_t*, const size_t*, size_t*,
                                        size_t, void* const, size_t, void* const*, Opts,
                                        nvcompStatus_t*, cudaStream_t);
  TempSize temp_size = nullptr;
  Decompress decompress = nullptr;
  Opts opts{};

  bool Load(void* lib, const char* temp_name, const char* decompress_name, Opts defaults) {
    temp_size = reinterpret_cast<TempSize>(dlsym(lib, temp_name));
    decompress = reinterpret_cast<Decompress>(dlsym(lib, decompress_name));
    opts = defaults;
    // The CUDA kernels, not a hardware decompression engine where a GPU has one: the engine
    // reports success on corrupt input (lz4.h).
    opts.backend = NVCOMP_DECOMPRESS_BACKEND_CUDA;
    return temp_size && decompress;
  }
};

struct Nvcomp {
  bool loaded = false;
  std::string why_not;
  CodecEntry<nvcompBatchedSnappyDecompressOpts_t> snappy;
  CodecEntry<nvcompBatchedZstdDecompressOpts_t> zstd;
  CodecEntry<nvcompBatchedLZ4DecompressOpts_t> lz4;
  CodecEntry<nvcompBatchedGzipDecompressOpts_t> gzip;
};

const Nvcomp& Library() {
  static Nvcomp nv;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
#ifdef TANDEM_NVCOMP_LIB_DIR
    lib = dlopen(TANDEM_NVCOMP_LIB_DIR "/libnvcomp.so.6", RTLD_NOW | RTLD_LOCAL);
#endif
    if (!lib) lib = dlopen("libnvcomp.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* err = dlerror();
      nv.why_not = std::string("nvCOMP's library did not open (") + (err ? err : "?") + ")";
      return;
    }
    const bool all =
        nv.snappy.Load(lib, "nvcompBatchedSnappyDecompressGetTempSize",
                       "nvcompBatchedSnappyDecompressAsync",
                       nvcompBatchedSnappyDecompressDefaultOpts) &&
        nv.zstd.Load(lib, "nvcompBatchedZstdDecompressGetTempSize",
                     "nvcompBatchedZstdDecompressAsync", nvcompBatchedZstdDecompressDefaultOpts) &&
        nv.lz4.Load(lib, "nvcompBatchedLZ4DecompressGetTempSize", "nvcompBatchedLZ4DecompressAsync",
                    nvcompBatchedLZ4DecompressDefaultOpts) &&
        nv.gzip.Load(lib, "nvcompBatchedGzipDecompressGetTempSize",
                     "nvcompBatchedGzipDecompressAsync", nvcompBatchedGzipDecompressDefaultOpts);
    if (!all) {
      nv.why_not = "nvCOMP's library lacks a batched decompressor (not version 6?)";
      return;
    }
    nv.loaded = true;
  });
  return nv;
}

bool CodecOnGpu(CompressionCodec codec) {
  return codec == CompressionCodec::SNAPPY || codec == CompressionCodec::ZSTD ||
         codec == CompressionCodec::LZ4_RAW || codec == CompressionCodec::GZIP;
}

// The largest chunk every codec here decompresses (SNAPPY's and ZSTD's limit: 2^31 - 1).
constexpr int64_t kMaxPageBytes = (int64_t{1} << 31) - 1;

// The page table on the device: six arrays of `n` in one buffer.
struct Table {
  const void** in_ptrs;
  size_t* in_bytes;
  size_t* out_capacity;
  size_t* out_bytes;
  void** out_ptrs;
  nvcompStatus_t* statuses;
};

int64_t TableBytes(size_t n) {
  return static_cast<int64_t>(n * (5 * sizeof(size_t) + sizeof(nvcompStatus_t)) + 64);
}

Table Carve(uint8_t* base, size_t n) {
  Table t;
  t.in_ptrs = reinterpret_cast<const void**>(base);
  t.in_bytes = reinterpret_cast<size_t*>(base + n * sizeof(void*));
  t.out_capacity = t.in_bytes + n;
  t.out_bytes = t.out_capacity + n;
  t.out_ptrs = reinterpret_cast<void**>(t.out_bytes + n);
  t.statuses = reinterpret_cast<nvcompStatus_t*>(t.out_ptrs + n);
  return t;
}

std::string StatusText(nvcompStatus_t st) {
  const std::string code = "nvCOMP status " + std::to_string(static_cast<int>(st));
  switch (st) {
    case nvcompErrorCannotDecompress:
    case nvcompErrorBadChecksum:
    case nvcompErrorWrongInputLength:
      return "corrupt data (" + code + ")";
    case nvcompErrorOutputBufferTooSmall:
      return "more data than its header says (" + code + ")";
    case nvcompErrorCudaError:
      return "a CUDA error (" + code + ")";
    default:
      return code;
  }
}

// Waits for what was queued on `stream` (copies from and into pinned memory that goes back to its
// pool when the caller returns) before an error leaves.
Status Settled(Status error, const gpu::Stream& stream) {
  (void)stream.Synchronize();
  return error;
}

template <typename Opts>
Status Run(const CodecEntry<Opts>& entry, CompressionCodec codec,
           const std::vector<const DevicePage*>& pages, const std::vector<size_t>& numbers,
           size_t of, const gpu::Stream& stream) {
  const size_t n = pages.size();
  const cudaStream_t s = gpu::CudaStream(stream);
  // The table filled on the host (pinned, so the copy is asynchronous) and copied up at once.
  TANDEM_ASSIGN_OR_RAISE(gpu::PinnedBuffer host, gpu::PinnedBuffer::Allocate(TableBytes(n)));
  std::memset(host.data(), 0, static_cast<size_t>(TableBytes(n)));
  Table h = Carve(host.data(), n);
  size_t max_out = 0, total_out = 0;
  for (size_t i = 0; i < n; ++i) {
    h.in_ptrs[i] = pages[i]->compressed;
    h.in_bytes[i] = static_cast<size_t>(pages[i]->compressed_bytes);
    h.out_capacity[i] = static_cast<size_t>(pages[i]->out_bytes);
    h.out_ptrs[i] = pages[i]->out;
    max_out = std::max(max_out, h.out_capacity[i]);
    total_out += h.out_capacity[i];
  }
  TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBuffer table,
                         gpu::DeviceBuffer::Allocate(TableBytes(n), stream));
  Table d = Carve(table.data_as<uint8_t>(), n);
  const Status up = gpu::CopyToDevice(table.data(), host.data(), TableBytes(n), stream);
  if (!up.ok()) return Settled(up, stream);
  const std::string what = std::string("GPU decompression of ") + CodecName(codec) + ": ";
  size_t temp_bytes = 0;
  nvcompStatus_t st = entry.temp_size(n, max_out, entry.opts, &temp_bytes, total_out, s);
  if (st != nvcompSuccess) {
    return Settled(Status::Internal(what + "nvCOMP could not size its temporary memory (" +
                                    StatusText(st) + ")"),
                   stream);
  }
  Result<gpu::DeviceBuffer> temp =
      gpu::DeviceBuffer::Allocate(static_cast<int64_t>(std::max<size_t>(temp_bytes, 1)), stream);
  if (!temp.ok()) return Settled(temp.status(), stream);
  st = entry.decompress(d.in_ptrs, d.in_bytes, d.out_capacity, d.out_bytes, n, temp->data(),
                        temp_bytes, d.out_ptrs, entry.opts, d.statuses, s);
  if (st != nvcompSuccess) {
    return Settled(Status::Internal(what + "nvCOMP did not start (" + StatusText(st) + ")"),
                   stream);
  }
  Status copied =
      gpu::CopyToHost(h.out_bytes, d.out_bytes, static_cast<int64_t>(n * sizeof(size_t)), stream);
  if (copied.ok()) {
    copied = gpu::CopyToHost(h.statuses, d.statuses,
                             static_cast<int64_t>(n * sizeof(nvcompStatus_t)), stream);
  }
  if (!copied.ok()) return Settled(copied, stream);
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  for (size_t i = 0; i < n; ++i) {
    const std::string page = "page " + std::to_string(numbers[i] + 1) + " of " + std::to_string(of);
    if (h.statuses[i] != nvcompSuccess) {
      return Status::Invalid(page + ": " + CodecName(codec) +
                             " page not decompressed: " + StatusText(h.statuses[i]));
    }
    if (h.out_bytes[i] != h.out_capacity[i]) {
      return Status::Invalid(page + ": " + CodecName(codec) + " data decompressed to " +
                             std::to_string(h.out_bytes[i]) + " bytes, its header says " +
                             std::to_string(h.out_capacity[i]));
    }
  }
  return Status::OK();
}

}  // namespace

bool BuiltWithNvcomp() { return true; }

bool GpuDecompresses(CompressionCodec codec, std::string* why_not) {
  if (!CodecOnGpu(codec)) {
    if (why_not) *why_not = "nvCOMP does not read this codec as Parquet writes it";
    return false;
  }
  const Nvcomp& nv = Library();
  if (!nv.loaded && why_not) *why_not = nv.why_not;
  return nv.loaded;
}

Status DecompressPagesOnGpu(CompressionCodec codec, const std::vector<DevicePage>& pages,
                            const gpu::Stream& stream) {
  std::string why_not;
  if (!GpuDecompresses(codec, &why_not)) {
    return Status::Unsupported("GPU decompression: " + why_not);
  }
  std::vector<const DevicePage*> work;
  std::vector<size_t> numbers;  // each page's place among `pages`, for messages
  for (size_t i = 0; i < pages.size(); ++i) {
    const DevicePage& p = pages[i];
    if (p.out_bytes == 0) continue;
    const std::string page =
        "page " + std::to_string(i + 1) + " of " + std::to_string(pages.size());
    if (p.out_bytes < 0 || p.compressed_bytes <= 0 || !p.compressed || !p.out ||
        !p.host_compressed) {
      return Status::Invalid(page + ": no compressed bytes, a negative size or a missing buffer");
    }
    if (p.compressed_bytes > kMaxPageBytes || p.out_bytes > kMaxPageBytes) {
      return Status::Invalid(page + ": larger than nvCOMP decompresses in one chunk (2 GiB)");
    }
    const Status framing =
        CheckPageFraming(codec, p.host_compressed, p.compressed_bytes, p.out_bytes);
    if (!framing.ok()) return Status::Invalid(page + ": " + framing.message());
    work.push_back(&p);
    numbers.push_back(i);
  }
  if (work.empty()) return Status::OK();
  const Nvcomp& nv = Library();
  switch (codec) {
    case CompressionCodec::SNAPPY:
      return Run(nv.snappy, codec, work, numbers, pages.size(), stream);
    case CompressionCodec::ZSTD:
      return Run(nv.zstd, codec, work, numbers, pages.size(), stream);
    case CompressionCodec::LZ4_RAW:
      return Run(nv.lz4, codec, work, numbers, pages.size(), stream);
    default:
      return Run(nv.gzip, codec, work, numbers, pages.size(), stream);
  }
}

#else  // nvCOMP's headers were not found at build time

bool BuiltWithNvcomp() { return false; }

bool GpuDecompresses(CompressionCodec, std::string* why_not) {
  if (why_not) *why_not = "built without nvCOMP (scripts/install.sh puts it in .venv)";
  return false;
}

Status DecompressPagesOnGpu(CompressionCodec, const std::vector<DevicePage>&, const gpu::Stream&) {
  return Status::Unsupported("GPU decompression: built without nvCOMP");
}

#endif

}  // namespace tandem::parquet::gpu_decode
