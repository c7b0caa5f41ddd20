// Compiles, caches and loads generated expression kernels (generated_kernels.h). Kernels are
// keyed by their source text; each is loaded once per process with cudaLibraryLoadData (no
// driver API needed) and found by its name.
#include <cuda_runtime.h>

#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "tandem/common/thread_pool.h"
#include "tandem/expr/gpu/generated_kernels.h"
#include "tandem/expr/gpu/kernel_gen.h"

namespace tandem::gpu {
namespace {

enum class State { kCompiling, kCompiled, kLoaded, kFailed };

struct Entry {
  State state = State::kCompiling;
  std::string cubin;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
};

struct Registry {
  std::mutex mu;
  std::condition_variable compiled;  // an entry left kCompiling, or a background compile ended
  std::unordered_map<std::string, std::shared_ptr<Entry>> by_source;
  GeneratedKernelCounts counts;
  int arch = -1;
  // Background compiles running now; once `exiting`, queued ones are dropped (ExitDrain).
  int running = 0;
  bool exiting = false;
  bool drain_registered = false;
};

Registry& TheRegistry() {
  static Registry* r = new Registry;  // never destroyed: background compiles may outlive main
  return *r;
}

// Background compiles: two at a time (NVRTC takes one core each), however many expressions
// a process meets. Never destroyed: a compile may still run when the process exits.
ThreadPool& CompilePool() {
  static ThreadPool* pool = new ThreadPool(2);
  return *pool;
}

void Fail(Registry& r, Entry& e, const std::string& why) {
  e.state = State::kFailed;
  e.cubin.clear();
  ++r.counts.compile_failures;
  r.counts.last_failure = why;
}

int DeviceArch() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return 0;
  }
  return major * 10 + minor;
}

// Compiles (or reads from the cache) and records the outcome in `e`.
void Compile(const jit::KernelSource& k, const std::string& dir, const std::shared_ptr<Entry>& e) {
  Result<std::string> cubin = jit::CubinFor(k, dir);
  Registry& r = TheRegistry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (cubin.ok()) {
      e->cubin = std::move(*cubin);
      e->state = State::kCompiled;
    } else {
      Fail(r, *e, cubin.status().message());
    }
  }
  r.compiled.notify_all();
}

// At process exit: drops the background compiles not started yet and waits for the running
// ones (at most the pool's two), so that no thread is inside NVRTC while the process tears down
// its libraries (short CLI runs that exited mid-compile failed). Registered with atexit on the
// first background compile, so it runs before the destructors of what existed then.
void ExitDrain() {
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  r.exiting = true;
  r.compiled.wait(lock, [&] { return r.running == 0; });
}

// Queues a background compile of `k` into `e`; the caller holds the registry's lock.
void SubmitBackground(Registry& r, jit::KernelSource k, std::string dir, std::shared_ptr<Entry> e) {
  if (!r.drain_registered) {
    r.drain_registered = true;
    std::atexit(ExitDrain);
  }
  CompilePool().Submit([k = std::move(k), dir = std::move(dir), e = std::move(e)] {
    Registry& reg = TheRegistry();
    {
      std::lock_guard<std::mutex> lock(reg.mu);
      if (reg.exiting) return;
      ++reg.running;
    }
    Compile(k, dir, e);
    {
      std::lock_guard<std::mutex> lock(reg.mu);
      --reg.running;
    }
    reg.compiled.notify_all();
  });
}

}  // namespace

GeneratedKernelCounts GeneratedKernelCountsNow() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.counts;
}

namespace internal {

void CountLaunch(bool generated) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  ++(generated ? r.counts.generated_launches : r.counts.interpreted_launches);
}

const void* GeneratedKernelFor(const Program& program, const EvalContext& eval) {
  if (eval.gpu_kernels == GpuKernels::kInterpret) return nullptr;
  return GeneratedKernelForSource(GeneratedEvalSource(program), eval);
}

const void* GeneratedKernelForSource(std::string source, const EvalContext& eval) {
  if (eval.gpu_kernels == GpuKernels::kInterpret) return nullptr;
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  if (r.arch < 0) r.arch = DeviceArch();
  if (r.arch == 0) return nullptr;
  std::shared_ptr<Entry>& slot = r.by_source[source];
  const bool fresh = slot == nullptr;
  if (fresh) slot = std::make_shared<Entry>();
  std::shared_ptr<Entry> e = slot;
  if (fresh) {
    const std::string dir = jit::KernelCacheDir(eval.kernel_cache_dir);
    jit::KernelSource k = KernelOfSource(std::move(source), r.arch);  // with the headers' text
    if (eval.gpu_kernels == GpuKernels::kGenerateWait) {
      lock.unlock();
      Compile(k, dir, e);
      lock.lock();
    } else {
      SubmitBackground(r, std::move(k), dir, e);
    }
  }
  if (eval.gpu_kernels == GpuKernels::kGenerateWait) {  // also for a compile begun elsewhere
    r.compiled.wait(lock, [&] { return e->state != State::kCompiling; });
  }
  if (e->state == State::kCompiled) {  // load on the launching thread, once
    cudaLibrary_t lib = nullptr;
    cudaKernel_t kernel = nullptr;
    cudaError_t err =
        cudaLibraryLoadData(&lib, e->cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (err == cudaSuccess) err = cudaLibraryGetKernel(&kernel, lib, kGeneratedKernelName);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it for the interpreter's launch
      Fail(r, *e, std::string("loading a generated kernel: ") + cudaGetErrorString(err));
      return nullptr;
    }
    e->library = lib;
    e->kernel = kernel;
    e->cubin.clear();
    e->state = State::kLoaded;
  }
  return e->state == State::kLoaded ? reinterpret_cast<const void*>(e->kernel) : nullptr;
}

}  // namespace internal
}  // namespace tandem::gpu
