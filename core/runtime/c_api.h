/* The runtime's C interface: load a package (module.tar), feed inputs, run,
 * read outputs. Plain C, so any language with a C FFI can run Lathe packages
 * with liblathe_runtime.so alone.
 *
 * Functions returning int return 0 on success and -1 on error (or, where they
 * return a count, -1 on error); lathe_last_error() then says why. The error
 * text is per thread and stays valid until the thread's next failing call. */
#ifndef LATHE_RUNTIME_C_API_H_
#define LATHE_RUNTIME_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct LatheModule LatheModule;

/* Loads module.tar; *out is set only on success. */
int lathe_module_load(const char* path, LatheModule** out);
/* Frees the module (NULL is allowed). */
void lathe_module_free(LatheModule* module);

/* Where the module's kernels run: "host" for a CPU package, "cuda:0" for a
 * cuda package (whose inputs and outputs still cross as host memory: the
 * module copies them to and from the GPU). Valid as long as the module;
 * NULL for a null module. */
const char* lathe_module_device(const LatheModule* module);

int lathe_module_num_inputs(const LatheModule* module);
int lathe_module_num_outputs(const LatheModule* module);

/* Valid as long as the module; NULL for a bad index. */
const char* lathe_module_input_name(const LatheModule* module, int index);
/* "float32", "int64", "bool", "float16", "bfloat16" ...; valid as long as the module; NULL for
 * a bad index. A float16 or bfloat16 array holds 2-byte bit patterns. */
const char* lathe_module_input_dtype(const LatheModule* module, int index);
const char* lathe_module_output_dtype(const LatheModule* module, int index);

/* Writes up to max_dims extents to dims (which may be NULL when max_dims is
 * 0) and returns the rank, which may exceed max_dims; -1 for a bad index. */
int lathe_module_input_shape(const LatheModule* module, int index, int64_t* dims, int max_dims);
int lathe_module_output_shape(const LatheModule* module, int index, int64_t* dims, int max_dims);

/* Bytes of one input or output; 0 for a bad index (see lathe_last_error). */
size_t lathe_module_input_nbytes(const LatheModule* module, int index);
size_t lathe_module_output_nbytes(const LatheModule* module, int index);

/* Copies nbytes (which must be the input's exact size) into the input. */
int lathe_module_set_input(LatheModule* module, const char* name, const void* data, size_t nbytes);
int lathe_module_set_input_index(LatheModule* module, int index, const void* data, size_t nbytes);
int lathe_module_run(LatheModule* module);
/* Copies output `index` out; nbytes must be its exact size. */
int lathe_module_get_output(const LatheModule* module, int index, void* data, size_t nbytes);

/* The calling thread's last error message; "" when there was none. */
const char* lathe_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LATHE_RUNTIME_C_API_H_ */
