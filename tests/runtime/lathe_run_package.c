/* Runs a package with liblathe_runtime.so alone, through the C interface:
 *   lathe_run_package module.tar input.bin output.bin
 * reads input 0's raw bytes from input.bin, runs, writes output 0's raw bytes
 * to output.bin. Then checks that neither LLVM nor Qt is mapped into the
 * process (exit status 3 if one is): the runtime needs neither.
 * Written in C to prove that runtime/c_api.h is a C header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/c_api.h"

static int fail(const char* what) {
  fprintf(stderr, "lathe_run_package: %s: %s\n", what, lathe_last_error());
  return 1;
}

static int read_all(const char* path, void* data, size_t nbytes) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  size_t got = fread(data, 1, nbytes, f);
  int extra = fgetc(f);
  fclose(f);
  return got == nbytes && extra == EOF ? 0 : -1;
}

/* Whether a mapped file's path contains `needle`. */
static int mapped(const char* needle) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  if (!maps) return 0;
  while (fgets(line, sizeof line, maps))
    if (strstr(line, needle)) found = 1;
  fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  LatheModule* module = NULL;
  size_t in_bytes, out_bytes;
  void *input, *output;
  int64_t dims[8];
  int rank, i;
  FILE* out;

  if (argc != 4) {
    fprintf(stderr, "usage: lathe_run_package module.tar input.bin output.bin\n");
    return 2;
  }
  if (lathe_module_load(argv[1], &module) != 0) return fail("load");
  if (lathe_module_num_inputs(module) < 1 || lathe_module_num_outputs(module) < 1) {
    fprintf(stderr, "lathe_run_package: the package needs an input and an output\n");
    return 1;
  }
  rank = lathe_module_input_shape(module, 0, dims, 8);
  printf("input %s %s rank %d:", lathe_module_input_name(module, 0),
         lathe_module_input_dtype(module, 0), rank);
  for (i = 0; i < rank && i < 8; ++i) printf(" %lld", (long long)dims[i]);
  printf("\n");

  in_bytes = lathe_module_input_nbytes(module, 0);
  out_bytes = lathe_module_output_nbytes(module, 0);
  input = malloc(in_bytes ? in_bytes : 1);
  output = malloc(out_bytes ? out_bytes : 1);
  if (read_all(argv[2], input, in_bytes) != 0) {
    fprintf(stderr, "lathe_run_package: %s does not hold exactly %zu bytes\n", argv[2], in_bytes);
    return 1;
  }
  if (lathe_module_set_input(module, lathe_module_input_name(module, 0), input, in_bytes) != 0)
    return fail("set_input");
  if (lathe_module_run(module) != 0) return fail("run");
  if (lathe_module_get_output(module, 0, output, out_bytes) != 0) return fail("get_output");
  out = fopen(argv[3], "wb");
  if (!out || fwrite(output, 1, out_bytes, out) != out_bytes || fclose(out) != 0) {
    fprintf(stderr, "lathe_run_package: cannot write %s\n", argv[3]);
    return 1;
  }
  lathe_module_free(module);
  free(input);
  free(output);

  if (mapped("libLLVM") || mapped("libQt")) {
    fprintf(stderr, "lathe_run_package: LLVM or Qt is loaded into the runtime's process\n");
    return 3;
  }
  if (!mapped("liblathe_runtime.so")) {
    fprintf(stderr, "lathe_run_package: liblathe_runtime.so is not loaded\n");
    return 3;
  }
  printf("ok %zu bytes\n", out_bytes);
  return 0;
}
