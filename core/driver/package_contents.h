// What a compiled package holds, read without loading its code: the
// executor graph from mod.json, the parameters in mod.params (names, types,
// shapes, sizes) and the memory plan the compiler wrote into mod.json
// (storage ids and the bytes each pool needs). The studio shows a package
// from this, and runs it through runtime::Package (driver/executor.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/graph_json.h"

namespace lathe::driver {

struct PackageParam {
  std::string name;
  std::string dtype;  // as mod.json writes it: "float32"
  std::vector<int64_t> shape;
  size_t bytes = 0;
};

// One pool of the memory plan: the executor allocates `bytes`, the largest
// entry mapped to it, once; `entries` (entry ids, in node order) share it.
struct PackageStorage {
  int32_t id = 0;
  size_t bytes = 0;
  std::vector<uint32_t> entries;
};

struct PackageContents {
  std::string path;
  runtime::GraphModuleDesc graph;       // validated
  std::vector<PackageParam> params;     // in mod.params' order
  std::vector<PackageStorage> storage;  // by id, every id mod.json uses
  size_t param_bytes = 0;
  size_t storage_bytes = 0;  // all pools: inputs, parameters and activations
  size_t library_bytes = 0;  // mod.so, or a cuda package's mod.ptx

  // The node whose output `entry` is, and the output's index.
  std::pair<uint32_t, uint32_t> entry_owner(uint32_t entry) const;
  size_t entry_bytes(uint32_t entry) const;
};

// Throws lathe's runtime Error naming the file and the problem: no such
// file, not a tar, a truncated tar or member, a missing member, a bad
// mod.json ("module.tar: mod.json: ...") or mod.params.
PackageContents read_package_contents(const std::string& tar_path);

// Whether `path` is meant as a package rather than a model: its name ends in
// .tar (`lathe compile` writes NAME.lathe.tar, tvmc module.tar), or it is a
// ustar archive whatever its name. Reads at most 512 bytes.
bool is_package_path(const std::string& path);

}  // namespace lathe::driver
