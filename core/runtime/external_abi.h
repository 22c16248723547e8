/* The C interface between a package's graph executor and the kernels of an
 * external codegen (bring your own codegen, core/passes/partition_external.h).
 * The codegen's runtime library exports a function, named in mod.json as the
 * node's func_name, that returns this table; the executor builds one kernel
 * per node from the text the codegen wrote at compile time (the node's
 * "external_params"), runs it with the node's buffers in the order of
 * generated kernels (inputs, then outputs), and destroys it with the
 * executor. Plain C, so a runtime library needs neither Lathe's C++ nor LLVM. */
#ifndef LATHE_RUNTIME_EXTERNAL_ABI_H_
#define LATHE_RUNTIME_EXTERNAL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#define LATHE_EXTERNAL_ABI_VERSION 1u

#ifdef __cplusplus
extern "C" {
#endif

struct LatheExternalFunctions {
  uint32_t abi_version; /* LATHE_EXTERNAL_ABI_VERSION as the library was built */
  /* A kernel for `params`, or NULL with a message in error[error_size]. */
  void* (*create)(const char* params, char* error, size_t error_size);
  /* Runs the kernel on the node's buffers: inputs, then outputs. */
  void (*run)(void* kernel, void** args);
  void (*destroy)(void* kernel);
};

typedef const struct LatheExternalFunctions* (*LatheExternalEntry)(void);

#ifdef __cplusplus
}
#endif

#endif /* LATHE_RUNTIME_EXTERNAL_ABI_H_ */
