// Reading a package's mod.json and mod.params for display: the same readers
// runtime::Package uses, without extracting or loading mod.so.
#include "driver/package_contents.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "runtime/package.h"
#include "runtime/params.h"

namespace lathe::driver {

std::pair<uint32_t, uint32_t> PackageContents::entry_owner(uint32_t entry) const {
  // node_row_ptr ascends: the owner is the last node whose first entry is at or before `entry`.
  const auto& rows = graph.node_row_ptr;
  const auto after = std::upper_bound(rows.begin(), rows.end(), entry);
  const auto node = static_cast<uint32_t>(after - rows.begin() - 1);
  return {node, entry - rows[node]};
}

size_t PackageContents::entry_bytes(uint32_t entry) const {
  return static_cast<size_t>(
      runtime::num_bytes(graph.shape[entry], runtime::DataType::parse(graph.dltype[entry])));
}

PackageContents read_package_contents(const std::string& tar_path) {
  if (!std::filesystem::exists(tar_path)) throw runtime::Error(tar_path + ": no such file");
  std::map<std::string, std::string> members = runtime::read_package_members(tar_path);
  PackageContents contents;
  contents.path = tar_path;
  // A cuda package holds its kernels as PTX text instead.
  contents.library_bytes =
      members.count("mod.so") ? members["mod.so"].size() : members["mod.ptx"].size();
  try {
    contents.graph = runtime::parse_graph_json(members["mod.json"]);
  } catch (const runtime::Error& e) {
    throw runtime::Error(tar_path + ": mod.json: " + e.what());
  }
  const runtime::ParamMap params =
      runtime::load_params(members["mod.params"], tar_path + ": mod.params");
  for (const auto& [name, array] : params) {
    contents.params.push_back({name, array.dtype().to_string(), array.shape(), array.nbytes()});
    contents.param_bytes += array.nbytes();
  }

  // The executor's pools: one per storage id, as large as its largest entry.
  std::map<int32_t, PackageStorage> pools;
  try {
    for (uint32_t e = 0; e < contents.graph.num_entries(); ++e) {
      PackageStorage& pool = pools[contents.graph.storage_id[e]];
      pool.id = contents.graph.storage_id[e];
      pool.bytes = std::max(pool.bytes, contents.entry_bytes(e));
      pool.entries.push_back(e);
    }
  } catch (const runtime::Error& e) {
    throw runtime::Error(tar_path + ": mod.json: " + e.what());
  }
  for (auto& [id, pool] : pools) {
    contents.storage_bytes += pool.bytes;
    contents.storage.push_back(std::move(pool));
  }
  return contents;
}

bool is_package_path(const std::string& path) {
  const std::string suffix = ".tar";
  if (path.size() >= suffix.size()) {
    std::string tail = path.substr(path.size() - suffix.size());
    for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tail == suffix) return true;
  }
  // POSIX ustar: "ustar" at offset 257 of the first header block.
  std::ifstream in(path, std::ios::binary);
  std::array<char, 262> head{};
  if (!in.read(head.data(), head.size())) return false;
  return std::memcmp(head.data() + 257, "ustar", 5) == 0;
}

}  // namespace lathe::driver
