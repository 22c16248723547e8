#include "driver/tuning_records.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace lathe::driver {

std::function<std::optional<std::string>(const KernelTask&)> best_schedules_from_records(
    const std::string& path) {
  std::ifstream in(path);
  LATHE_CHECK(in, "cannot read tuning records ", path);
  // workload -> (latency, schedule text)
  auto best = std::make_shared<std::map<std::string, std::pair<double, std::string>>>();
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
      if (record.contains("error") && !record["error"].is_null()) continue;
      std::string workload = record.at("workload").get<std::string>();
      std::string schedule = record.at("schedule").get<std::string>();
      double latency = record.at("latency_ms").get<double>();
      auto it = best->find(workload);
      if (it == best->end() || latency < it->second.first) (*best)[workload] = {latency, schedule};
    } catch (const nlohmann::json::exception& e) {
      fail(str(path, ":", number, ": not a tuning record: ", e.what()));
    }
  }
  return [best](const KernelTask& task) -> std::optional<std::string> {
    auto it = best->find(tune::task_workload_id(task));
    if (it == best->end()) return std::nullopt;
    return it->second.second;
  };
}

}  // namespace lathe::driver
