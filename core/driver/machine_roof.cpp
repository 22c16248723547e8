// The machine's roof, measured or read back from its file.
#include "driver/machine_roof.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "driver/machine_peak.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/fnv1a.h"
#include "support/machine_peak.h"
#include "tune/records.h"

namespace lathe::driver {
namespace {

// Bump when the file's meaning changes; older files are then measured again.
// 2: the int8 peak (peak_int8_gops) is kept beside the FMA peak.
constexpr int kFileVersion = 2;

// The first "model name" of /proc/cpuinfo: CPUID's brand string on x86.
std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t begin = line.find_first_not_of(" \t", colon + 1);
    if (begin != std::string::npos) return line.substr(begin);
  }
  return "unknown CPU";
}

nlohmann::json to_json(const MachineRoof& roof) {
  nlohmann::json caches = nlohmann::json::array();
  for (const CacheLevel& c : roof.machine.caches)
    caches.push_back({{"level", c.level},
                      {"capacity_bytes", c.capacity_bytes},
                      {"shared_by_cpus", c.shared_by_cpus}});
  nlohmann::json levels = nlohmann::json::array();
  for (const BandwidthLevel& l : roof.bandwidth.levels)
    levels.push_back({{"name", l.name},
                      {"capacity_bytes", l.capacity_bytes},
                      {"shared_by_cpus", l.shared_by_cpus},
                      {"working_set_bytes", l.working_set_bytes},
                      {"read_gbps", l.read_gbps},
                      {"read_write_gbps", l.read_write_gbps}});
  return {{"version", kFileVersion},
          {"key", roof.machine.key()},
          {"cpu", roof.machine.cpu},
          {"threads", roof.machine.threads},
          {"caches", caches},
          {"measured_at", roof.measured_at},
          {"peak_gflops", roof.peak_gflops},
          {"peak_int8_gops", roof.peak_int8_gops},
          {"bandwidth",
           {{"threads", roof.bandwidth.threads},
            {"vector_bits", roof.bandwidth.vector_bits},
            {"levels", levels}}}};
}

}  // namespace

std::string MachineIdentity::key() const {
  std::string text = cpu + " |";
  for (const CacheLevel& c : caches)
    text += " L" + std::to_string(c.level) + " " + std::to_string(c.capacity_bytes >> 10) + "K/" +
            std::to_string(c.shared_by_cpus);
  return text + " | " + std::to_string(threads) + " threads";
}

MachineIdentity this_machine() {
  return {cpu_model_name(), detect_data_caches(), runtime::default_num_threads()};
}

MachineRoof measure_machine_roof(const MachineIdentity& machine) {
  MachineRoof roof;
  roof.machine = machine;
  // The process's refined peak where it measures on these threads.
  roof.peak_gflops = machine.threads == runtime::default_num_threads()
                         ? machine_peak_gflops()
                         : measure_peak_flops(machine.threads).gflops_all_cores;
  roof.peak_int8_gops = machine.threads == runtime::default_num_threads()
                            ? machine_peak_int8_gops()
                            : measure_peak_int8(machine.threads).gops_all_cores;
  roof.bandwidth = measure_memory_bandwidth(machine.threads);
  roof.measured_at = tune::utc_timestamp();
  return roof;
}

std::filesystem::path machine_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG spec ignores a relative path.
  if (xdg && xdg[0] == '/') return std::filesystem::path(xdg) / "lathe";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && home[0] ? home : "/tmp") / ".cache" / "lathe";
}

std::filesystem::path machine_cache_file(const std::filesystem::path& dir,
                                         const MachineIdentity& machine) {
  return dir / ("machine-" + fnv1a_hex(machine.key()) + ".json");
}

std::optional<MachineRoof> read_machine_roof(const std::filesystem::path& file,
                                             const MachineIdentity& machine) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("version").get<int>() != kFileVersion ||
        j.at("key").get<std::string>() != machine.key())
      return std::nullopt;
    MachineRoof roof;
    roof.machine = machine;
    roof.from_cache = true;
    roof.measured_at = j.at("measured_at").get<std::string>();
    roof.peak_gflops = j.at("peak_gflops").get<double>();
    roof.peak_int8_gops = j.value("peak_int8_gops", 0.0);
    const nlohmann::json& bw = j.at("bandwidth");
    roof.bandwidth.threads = bw.at("threads").get<int>();
    roof.bandwidth.vector_bits = bw.at("vector_bits").get<int>();
    for (const nlohmann::json& l : bw.at("levels")) {
      BandwidthLevel level;
      level.name = l.at("name").get<std::string>();
      level.capacity_bytes = l.at("capacity_bytes").get<int64_t>();
      level.shared_by_cpus = l.at("shared_by_cpus").get<int>();
      level.working_set_bytes = l.at("working_set_bytes").get<int64_t>();
      level.read_gbps = l.at("read_gbps").get<double>();
      level.read_write_gbps = l.at("read_write_gbps").get<double>();
      // A roof of zero bandwidth would divide by it.
      if (!(level.read_gbps > 0 && level.read_write_gbps > 0)) return std::nullopt;
      roof.bandwidth.levels.push_back(level);
    }
    if (!(roof.peak_gflops > 0) || roof.bandwidth.levels.empty()) return std::nullopt;
    return roof;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

void write_machine_roof(const std::filesystem::path& file, const MachineRoof& roof) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  LATHE_CHECK(!ec, "cannot create ", file.parent_path().string(), ": ", ec.message());
  // Renamed over the file, so a reader never sees half of it.
  const std::filesystem::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << to_json(roof).dump(2) << "\n";
    LATHE_CHECK(out.good(), "cannot write ", temporary.string());
  }
  std::filesystem::rename(temporary, file, ec);
  LATHE_CHECK(!ec, "cannot write ", file.string(), ": ", ec.message());
}

void keep_best_of(MachineRoof& roof, const MachineRoof& kept) {
  roof.peak_gflops = std::max(roof.peak_gflops, kept.peak_gflops);
  roof.peak_int8_gops = std::max(roof.peak_int8_gops, kept.peak_int8_gops);
  for (BandwidthLevel& level : roof.bandwidth.levels)
    for (const BandwidthLevel& before : kept.bandwidth.levels)
      if (before.name == level.name && before.capacity_bytes == level.capacity_bytes) {
        level.read_gbps = std::max(level.read_gbps, before.read_gbps);
        level.read_write_gbps = std::max(level.read_write_gbps, before.read_write_gbps);
      }
}

MachineRoof machine_roof(const std::filesystem::path& dir, const MachineIdentity& machine,
                         Remeasure remeasure, const MeasureMachine& measure) {
  const std::filesystem::path file = machine_cache_file(dir, machine);
  if (remeasure == Remeasure::IfMissing)
    if (std::optional<MachineRoof> kept = read_machine_roof(file, machine)) return *kept;
  MachineRoof roof = measure(machine);
  roof.from_cache = false;
  // A shared machine's load only ever lowers a measurement, so the roof a
  // measurement again keeps is the best of what this machine has shown.
  if (std::optional<MachineRoof> kept = read_machine_roof(file, machine)) keep_best_of(roof, *kept);
  try {
    write_machine_roof(file, roof);
  } catch (const Error&) {
    // Only a cost: the next run measures again.
  }
  return roof;
}

MachineRoof machine_roof(Remeasure remeasure) {
  return machine_roof(machine_cache_dir(), this_machine(), remeasure, measure_machine_roof);
}

std::optional<MachineRoof> kept_machine_roof() {
  const MachineIdentity machine = this_machine();
  return read_machine_roof(machine_cache_file(machine_cache_dir(), machine), machine);
}

}  // namespace lathe::driver
