/* A user's program against the installed runtime SDK, built by check_install.py
 * through find_package(LatheRuntime) and through pkg-config lathe-runtime:
 *   lathe_sdk_consumer module.tar output.bin
 * runs the package on all-zero inputs (as `lathe run` without --inputs does)
 * and writes output 0's raw bytes to output.bin. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/c_api.h"

static int fail(const char* what) {
  fprintf(stderr, "lathe_sdk_consumer: %s: %s\n", what, lathe_last_error());
  return 1;
}

int main(int argc, char** argv) {
  LatheModule* module = NULL;
  void* output;
  size_t out_bytes;
  int i;
  FILE* out;

  if (argc != 3) {
    fprintf(stderr, "usage: lathe_sdk_consumer module.tar output.bin\n");
    return 2;
  }
  if (lathe_module_load(argv[1], &module) != 0) return fail("load");
  for (i = 0; i < lathe_module_num_inputs(module); ++i) {
    size_t nbytes = lathe_module_input_nbytes(module, i);
    void* zeros = calloc(nbytes ? nbytes : 1, 1);
    int status = lathe_module_set_input_index(module, i, zeros, nbytes);
    free(zeros);
    if (status != 0) return fail("set_input_index");
  }
  if (lathe_module_run(module) != 0) return fail("run");
  out_bytes = lathe_module_output_nbytes(module, 0);
  output = malloc(out_bytes ? out_bytes : 1);
  if (lathe_module_get_output(module, 0, output, out_bytes) != 0) return fail("get_output");
  out = fopen(argv[2], "wb");
  if (!out || fwrite(output, 1, out_bytes, out) != out_bytes || fclose(out) != 0) {
    fprintf(stderr, "lathe_sdk_consumer: cannot write %s\n", argv[2]);
    return 1;
  }
  free(output);
  lathe_module_free(module);
  printf("%s: output 0, %zu bytes\n", argv[1], out_bytes);
  return 0;
}
