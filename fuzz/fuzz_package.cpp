// The package loader's parsing (runtime/package.h) on arbitrary bytes, without
// the dlopen: each input is read as module.tar, whose mod.json and mod.params
// go through the graph JSON and parameter readers and then into a
// GraphExecutor (kernels resolved to a no-op), as Package's constructor does,
// when its entries take at most kMaxStorageBytes: a well-formed package may
// ask for gigabytes, which the fuzzer would report as out-of-memory.
// The same bytes are also parsed directly as mod.json and as mod.params, since
// a mutation that changes a member's length breaks the tar around it.
// Anything but a lathe::runtime::Error escaping, or a sanitizer report, is a bug.
#include <cstdint>
#include <map>
#include <string>

#include "fuzz/scratch_file.h"
#include "runtime/graph_executor.h"
#include "runtime/graph_json.h"
#include "runtime/package.h"
#include "runtime/params.h"

using namespace lathe::runtime;

namespace {

constexpr int64_t kMaxStorageBytes = int64_t{256} << 20;

void no_op_kernel(void**) {}

void build_executor(const std::string& json, const std::string& params) {
  GraphModuleDesc desc = parse_graph_json(json);
  ParamMap values = load_params(params);
  int64_t storage = 0;
  for (uint32_t e = 0; e < desc.num_entries(); ++e) {
    storage += num_bytes(desc.shape[e], DataType::parse(desc.dltype[e]));
    if (storage > kMaxStorageBytes) return;
  }
  GraphExecutor executor(
      std::move(desc), [](const std::string&) { return &no_op_kernel; }, values);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lathe::fuzz::ScratchFile file(".tar");
  try {
    std::map<std::string, std::string> members = read_package_members(file.write(data, size));
    build_executor(members.at("mod.json"), members.at("mod.params"));
  } catch (const Error&) {
  }
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    to_json(parse_graph_json(bytes));
  } catch (const Error&) {
  }
  try {
    save_params(load_params(bytes));
  } catch (const Error&) {
  }
  return 0;
}
