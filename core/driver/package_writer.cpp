// module.tar: link the kernels into mod.so with the system C compiler (spawned
// directly, no shell), then tar mod.so, mod.json and mod.params with
// libarchive in the ustar format TVM's tvmc writes.
#include "driver/package_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "runtime/params.h"
#include "support/error.h"
#include "support/run_program.h"

namespace lathe::driver {

namespace {

// A mkdtemp folder removed with everything in it when the writer is done.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/lathe-link-XXXXXX";
    if (!mkdtemp(path_.data()))
      fail(str("cannot create a temporary folder ", path_, ": ", std::strerror(errno)));
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const char* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(data, static_cast<std::streamsize>(size));
  LATHE_CHECK(out.good(), "cannot write ", path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LATHE_CHECK(in.good(), "cannot read ", path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A C string literal holding `text`.
std::string c_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\%03o", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void write_tar(const std::string& tar_path,
               const std::vector<std::pair<std::string, std::string>>& members) {
  std::unique_ptr<archive, int (*)(archive*)> writer(archive_write_new(), archive_write_free);
  archive* a = writer.get();
  auto check = [&](int r, const char* what) {
    if (r != ARCHIVE_OK)
      fail(str("cannot write ", tar_path, " (", what,
               "): ", archive_error_string(a) ? archive_error_string(a) : "?"));
  };
  check(archive_write_set_format_ustar(a), "format");
  check(archive_write_open_filename(a, tar_path.c_str()), "open");
  const time_t now = std::time(nullptr);
  for (const auto& [name, data] : members) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                   archive_entry_free);
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), name == "mod.so" ? 0755 : 0644);
    archive_entry_set_mtime(entry.get(), now, 0);
    check(archive_write_header(a, entry.get()), name.c_str());
    if (archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
      check(ARCHIVE_FATAL, name.c_str());
  }
  check(archive_write_close(a), "close");
}

// The graph that takes parameter `name` (the model's or a subgraph's, whose
// parameters are named with its name and "/" first) and its name there.
std::pair<const runtime::GraphModuleDesc*, std::string> parameter_owner(
    const runtime::GraphModuleDesc& graph, const std::string& name) {
  for (const runtime::GraphModuleDesc& sub : graph.subgraphs) {
    const std::string prefix = sub.name + "/";
    if (name.compare(0, prefix.size(), prefix) == 0)
      return parameter_owner(sub, name.substr(prefix.size()));
  }
  return {&graph, name};
}

// The finalized, validated graph; what the loader would refuse is caught
// here: a parameter the graph does not take, or one of another shape or type.
runtime::GraphModuleDesc checked_graph(const runtime::GraphModuleDesc& desc,
                                       const std::map<std::string, runtime::NDArray>& params) {
  runtime::GraphModuleDesc graph = desc;
  runtime::finalize(graph);
  try {
    runtime::validate(graph);
  } catch (const runtime::Error& e) {
    fail(str("write_package: ", e.what()));
  }

  for (const auto& [name, value] : params) {
    bool found = false;
    const auto [owner, local] = parameter_owner(graph, name);
    for (uint32_t node_id : owner->arg_nodes) {
      if (owner->nodes[node_id].name != local) continue;
      const uint32_t e = owner->entry_id(node_id, 0);
      LATHE_CHECK(value.defined() && value.shape() == owner->shape[e] &&
                      value.dtype().to_string() == owner->dltype[e],
                  "write_package: parameter '", name, "' is ",
                  value.defined() ? value.dtype().to_string() : std::string("empty"),
                  runtime::shape_to_string(value.shape()), "; the graph expects ", owner->dltype[e],
                  runtime::shape_to_string(owner->shape[e]));
      found = true;
    }
    LATHE_CHECK(found, "write_package: parameter '", name, "' is not an argument of the graph");
  }
  return graph;
}

// The package's tar: the kernels' member (mod.so or mod.ptx), mod.json and
// mod.params; a partly written tar is removed.
void write_package_tar(const std::string& tar_path, std::pair<std::string, std::string> kernels,
                       const runtime::GraphModuleDesc& graph,
                       const std::map<std::string, runtime::NDArray>& params) {
  std::vector<std::pair<std::string, std::string>> members = {
      std::move(kernels),
      {"mod.json", runtime::to_json(graph)},
      {"mod.params", runtime::save_params(params)},
  };
  try {
    write_tar(tar_path, members);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tar_path, ignored);
    throw;
  }
}

}  // namespace

void write_package(const std::string& tar_path, const std::vector<char>& object,
                   const runtime::GraphModuleDesc& desc,
                   const std::map<std::string, runtime::NDArray>& params,
                   const std::string& target_text, const std::string& target_features,
                   const std::vector<std::string>& libraries) {
  LATHE_CHECK(!object.empty(), "write_package: empty kernel object");
  const runtime::GraphModuleDesc graph = checked_graph(desc, params);

  ScratchDir dir;
  write_file(dir.file("kernels.o"), object.data(), object.size());
  const std::string meta =
      str("/* Generated by Lathe: what mod.so was compiled for. */\n",
          "const char lathe_module_target[] = ", c_literal(target_text), ";\n",
          "const char lathe_module_features[] = ", c_literal(target_features), ";\n");
  write_file(dir.file("meta.c"), meta.data(), meta.size());

  const char* cc_env = std::getenv("LATHE_CC");
  const std::string cc = cc_env && *cc_env ? cc_env : "cc";
  std::vector<std::string> command = {cc, "-shared", "-fPIC", "-o", dir.file("mod.so")};
  for (const char* input : {"kernels.o", "meta.c"}) command.push_back(dir.file(input));
  command.push_back("-lm");
  if (!libraries.empty()) command.push_back("-Wl,--no-as-needed");
  for (const std::string& library : libraries) {
    command.push_back(library);
    command.push_back("-Wl,-rpath," + std::filesystem::path(library).parent_path().string());
  }
  std::string output;
  int status = 0;
  try {
    status = run_program(command, output);
  } catch (const ProgramNotFound&) {
    fail(str("cannot link the package: no C compiler '", cc,
             "' on PATH (install gcc or clang, or set LATHE_CC)"));
  }
  if (status != 0)
    fail(str("linking mod.so failed (", cc, " exited with ", status, "):\n", output));

  write_package_tar(tar_path, {"mod.so", read_file(dir.file("mod.so"))}, graph, params);
}

void write_gpu_package(const std::string& tar_path, const std::string& ptx,
                       const runtime::GraphModuleDesc& desc,
                       const std::map<std::string, runtime::NDArray>& params) {
  LATHE_CHECK(!ptx.empty(), "write_gpu_package: empty PTX");
  LATHE_CHECK(!desc.target.empty(), "write_gpu_package: the graph names no target");
  const runtime::GraphModuleDesc graph = checked_graph(desc, params);
  for (const runtime::GraphNode& node : graph.nodes)
    LATHE_CHECK(!node.is_op() || !node.control_flow.empty() || graph.launches.count(node.func_name),
                "write_gpu_package: kernel '", node.func_name, "' of node '", node.name,
                "' has no launch record");
  write_package_tar(tar_path, {"mod.ptx", ptx}, graph, params);
}

}  // namespace lathe::driver
