// The C entry points of backend_api.h, thin wrappers over the global thread
// pool and aligned allocation.
#include "runtime/backend_api.h"

#include <cstdio>
#include <cstdlib>

#include "runtime/thread_pool.h"

using lathe::runtime::kTensorAlignment;
using lathe::runtime::ThreadPool;

extern "C" {

void lathe_parallel_for(LatheParallelBody body, void* closure, int64_t n) {
  // Nested parallel loops run serially, without touching the global pool.
  if (n <= 0) return;
  if (ThreadPool::in_parallel_region()) {
    body(0, n, closure);
    return;
  }
  lathe::runtime::global_thread_pool()->parallel_for(body, closure, n);
}

void* lathe_alloc(int64_t nbytes) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  const int64_t size = nbytes <= 0
                           ? kTensorAlignment
                           : (nbytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  void* p = std::aligned_alloc(kTensorAlignment, static_cast<size_t>(size));
  if (!p) {
    std::fprintf(stderr, "lathe: out of memory allocating %lld bytes of kernel scratch\n",
                 static_cast<long long>(nbytes));
    std::abort();
  }
  return p;
}

void lathe_free(void* ptr) {
  std::free(ptr);
}

}  // extern "C"
