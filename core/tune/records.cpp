#include "tune/records.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace lathe::tune {

using nlohmann::json;

namespace {

double gflops_at(int64_t flops, double ms) {
  return std::isfinite(ms) && ms > 0 ? static_cast<double>(flops) / (ms * 1e6) : 0;
}

}  // namespace

std::string to_string(Confirmation confirmation) {
  switch (confirmation) {
    case Confirmation::None:
      return "none";
    case Confirmation::Won:
      return "won";
    case Confirmation::Lost:
      return "lost";
  }
  return "none";
}

Confirmation confirmation_from_string(const std::string& text) {
  if (text == "none") return Confirmation::None;
  if (text == "won") return Confirmation::Won;
  if (text == "lost") return Confirmation::Lost;
  fail(str("unknown confirmation result '", text, "'"));
}

double robust_cost_ms(const std::vector<double>& costs_ms) {
  double best = std::numeric_limits<double>::infinity();
  for (double ms : costs_ms)
    if (ms < best) best = ms;  // NaN never wins
  return best;
}

double TuningRecord::latency_ms() const {
  if (!ok() || confirmation == Confirmation::Lost) return std::numeric_limits<double>::infinity();
  double ms = robust_cost_ms(costs_ms);
  if (confirmation == Confirmation::Won) ms = std::min(ms, robust_cost_ms(confirm_costs_ms));
  return ms;
}

double TuningRecord::gflops() const {
  return gflops_at(flops, latency_ms());
}

double TuningRecord::trial_ms() const {
  return ok() ? robust_cost_ms(costs_ms) : std::numeric_limits<double>::infinity();
}

double TuningRecord::trial_gflops() const {
  return gflops_at(flops, trial_ms());
}

std::string to_json_line(const TuningRecord& r) {
  json knobs = json::object();
  for (const auto& [name, values] : r.knobs) knobs[name] = values;
  json j = {
      {"version", r.version},
      {"task",
       {{"workload", r.workload},
        {"key", r.task_key},
        {"ops", r.ops},
        {"signature", r.signature},
        {"flops", r.flops}}},
      {"target", r.target},
      {"space", r.space},
      {"config", r.config},
      {"knobs", knobs},
      {"schedule", r.schedule},
      {"tuner", r.tuner},
      {"costs_ms", r.costs_ms},
      {"error", r.error_kind == "none"
                    ? json(nullptr)
                    : json{{"kind", r.error_kind}, {"message", r.error_message}}},
      {"build_ms", r.build_ms},
      {"started", r.started},
      {"finished", r.finished},
  };
  if (r.confirmation != Confirmation::None)
    j["confirmation"] = {{"result", to_string(r.confirmation)},
                         {"costs_ms", r.confirm_costs_ms},
                         {"rival_costs_ms", r.rival_costs_ms}};
  // Invalid UTF-8 in a message (a signal name, compiler output) must not make
  // the record unwritable.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

TuningRecord record_from_json_line(const std::string& line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    fail(str("not JSON: ", e.what()));
  }
  TuningRecord r;
  try {
    r.version = j.at("version").get<int>();
    const json& task = j.at("task");
    r.workload = task.at("workload").get<std::string>();
    r.task_key = task.value("key", "");
    r.ops = task.value("ops", std::vector<std::string>{});
    r.signature = task.value("signature", "");
    r.flops = task.value("flops", int64_t{0});
    r.target = j.at("target").get<std::string>();
    r.space = j.value("space", "");
    r.config = j.value("config", std::vector<int>{});
    const json knobs = j.value("knobs", json::object());
    for (const auto& [name, values] : knobs.items())
      r.knobs.emplace_back(name, values.get<std::vector<int64_t>>());
    r.schedule = j.at("schedule").get<std::string>();
    r.tuner = j.value("tuner", "");
    r.costs_ms = j.at("costs_ms").get<std::vector<double>>();
    if (const json& error = j.at("error"); !error.is_null()) {
      r.error_kind = error.at("kind").get<std::string>();
      r.error_message = error.value("message", "");
    }
    r.build_ms = j.value("build_ms", 0.0);
    r.started = j.value("started", "");
    r.finished = j.value("finished", "");
    if (auto it = j.find("confirmation"); it != j.end() && !it->is_null()) {
      r.confirmation = confirmation_from_string(it->at("result").get<std::string>());
      r.confirm_costs_ms = it->value("costs_ms", std::vector<double>{});
      r.rival_costs_ms = it->value("rival_costs_ms", std::vector<double>{});
    }
  } catch (const json::exception& e) {
    fail(str("not a tuning record: ", e.what()));
  }
  return r;
}

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, static_cast<int>(ms));
  return out;
}

namespace {

// The size of the file up to and including its last newline: what is left
// of it once a line torn by a killed writer is cut off.
off_t complete_lines_size(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size == 0) return 0;
  char chunk[4096];
  for (off_t end = st.st_size; end > 0;) {
    const off_t begin = std::max<off_t>(0, end - static_cast<off_t>(sizeof chunk));
    const ssize_t n = pread(fd, chunk, static_cast<size_t>(end - begin), begin);
    if (n <= 0) return st.st_size;  // unreadable: leave the file as it is
    for (ssize_t i = n; i-- > 0;)
      if (chunk[i] == '\n') return begin + i + 1;
    end = begin;
  }
  return 0;
}

}  // namespace

RecordWriter::RecordWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  LATHE_CHECK(fd_ >= 0, "cannot open tuning records ", path,
              " for appending: ", std::strerror(errno));
  // A torn last line would otherwise become the start of the next record's
  // line, and a malformed line in the middle makes the file unreadable.
  struct stat st {};
  if (fstat(fd_, &st) == 0) {
    const off_t keep = complete_lines_size(fd_);
    if (keep < st.st_size && ftruncate(fd_, keep) != 0) {
      const int error = errno;
      ::close(fd_);
      fd_ = -1;
      fail(str("cannot cut the torn last line of tuning records ", path, ": ",
               std::strerror(error)));
    }
  }
}

RecordWriter::~RecordWriter() {
  if (fd_ >= 0) ::close(fd_);
}

RecordWriter::RecordWriter(RecordWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

RecordWriter& RecordWriter::operator=(RecordWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

void RecordWriter::write(const TuningRecord& record) {
  LATHE_CHECK(fd_ >= 0, "tuning record writer is not open");
  std::string line = to_json_line(record) + "\n";
  // One write() of the whole line: the kernel has it as soon as the call
  // returns, whatever happens to this process afterwards.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    LATHE_CHECK(n > 0, "cannot append to tuning records ", path_, ": ", std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

RecordFile read_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LATHE_CHECK(in, "cannot read tuning records ", path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  RecordFile file;
  size_t pos = 0;
  for (int number = 1; pos < text.size(); ++number) {
    size_t end = text.find('\n', pos);
    const bool last = end == std::string::npos || end + 1 >= text.size();
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      TuningRecord r = record_from_json_line(line);
      if (r.version > kRecordVersion) {
        file.warnings.push_back(str(path, ":", number, ": record format version ", r.version,
                                    " is newer than this Lathe's (", kRecordVersion, "); skipped"));
        continue;
      }
      (r.tuner == kInModelTuner ? file.in_model_checks : file.records).push_back(std::move(r));
    } catch (const Error& e) {
      // Only the last line can be torn by a killed writer.
      if (!last) fail(str(path, ":", number, ": ", e.what()));
      file.warnings.push_back(str(path, ":", number, ": torn last line skipped (", e.what(), ")"));
    }
  }
  return file;
}

std::map<std::string, TuningRecord> best_records(const std::vector<TuningRecord>& records,
                                                 const std::string& target) {
  std::map<std::string, TuningRecord> best;
  for (const TuningRecord& r : records) {
    if (!std::isfinite(r.latency_ms()) || (!target.empty() && r.target != target)) continue;
    auto it = best.find(r.workload);
    if (it == best.end() || r.latency_ms() < it->second.latency_ms()) best[r.workload] = r;
  }
  return best;
}

}  // namespace lathe::tune
