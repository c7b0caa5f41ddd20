// RunOnLargeStack and StackRemaining (see large_stack.h), on pthreads: the stack size of a
// std::thread cannot be chosen.
#include "tandem/common/large_stack.h"

#include <pthread.h>

#include <cstdint>
#include <exception>

namespace tandem {
namespace {

struct StackBounds {
  uintptr_t low = 0;  // lowest usable address (stacks grow down)
  size_t size = 0;
};

// The calling thread's stack, read once per thread.
const StackBounds& ThisThreadStack() {
  thread_local StackBounds bounds = [] {
    StackBounds b;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      b.low = reinterpret_cast<uintptr_t>(addr);
      b.size = size;
    }
    pthread_attr_destroy(&attr);
    return b;
  }();
  return bounds;
}

struct Job {
  const std::function<void()>* fn;
  std::exception_ptr error;
};

void* RunJob(void* arg) {
  Job* job = static_cast<Job*>(arg);
  try {
    (*job->fn)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

size_t StackRemaining() {
  const StackBounds& b = ThisThreadStack();
  if (b.size == 0) return SIZE_MAX;
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here > b.low ? here - b.low : 0;
}

void RunOnLargeStack(size_t bytes, const std::function<void()>& fn) {
  if (StackRemaining() >= bytes) {
    fn();
    return;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  Job job{&fn, nullptr};
  pthread_t thread;
  const int rc = pthread_create(&thread, &attr, RunJob, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    // No thread could be made (a process limit): run here; the binder's limits still hold.
    fn();
    return;
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace tandem
