// Tuning records: one JSON object a line, appended and flushed as each
// measurement finishes, so `kill -9` at any moment loses at most the line
// being written. A record names its task by the hash of the task's structure
// key (task_workload_id), so it applies to every equal kernel of any model,
// and carries everything needed to trust, resume and apply it: the task's key,
// ops and signature, the target, the search space and knob values, the
// schedule text, the measured costs or the error, timestamps and the format
// version.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lathe::tune {

inline constexpr int kRecordVersion = 1;

struct TuningRecord {
  int version = kRecordVersion;
  // The task.
  std::string workload;  // task_workload_id
  std::string task_key;  // group_structure_key: ops, shapes, dtypes, attributes
  std::vector<std::string> ops;
  std::string signature;  // "float32[1,64,56,56], ... -> float32[1,64,56,56]"
  int64_t flops = 0;
  // The candidate.
  std::string target;  // codegen::Target::to_string()
  std::string space;   // "conv2d_NCHWc.x86", "sketch", "editor" (a hand edit)
  std::vector<int> config;
  std::vector<std::pair<std::string, std::vector<int64_t>>> knobs;
  std::string schedule;  // schedule text, what `lathe compile` applies
  std::string tuner;     // "xgb", "ga", "random", "grid", "default", "editor"
  // The measurement.
  std::vector<double> costs_ms;
  std::string error_kind = "none";  // tune::to_string(ErrorKind)
  std::string error_message;
  double build_ms = 0;
  std::string started, finished;  // ISO 8601, UTC

  bool ok() const { return error_kind == "none" && !costs_ms.empty(); }
  // Median cost; +infinity for a failed record.
  double latency_ms() const;
  double gflops() const;  // at the median; 0 for a failed record
};

std::string to_json_line(const TuningRecord& record);  // without the newline
// Throws lathe::Error saying which field is missing or wrong.
TuningRecord record_from_json_line(const std::string& line);

// "2026-11-22T08:15:02.123Z" for now.
std::string utc_timestamp();

// Appends records to a file, each as one write() of one line, so concurrent
// readers and a killed writer never see half a record except at the end.
class RecordWriter {
 public:
  RecordWriter() = default;
  // Creates or appends, first cutting off a torn last line (a writer killed
  // mid-line); throws when it cannot.
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  RecordWriter(RecordWriter&& other) noexcept;
  RecordWriter& operator=(RecordWriter&& other) noexcept;

  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  void write(const TuningRecord& record);  // throws on a failed write

 private:
  int fd_ = -1;
  std::string path_;
};

struct RecordFile {
  std::vector<TuningRecord> records;
  std::vector<std::string> warnings;  // "records.jsonl:212: torn last line skipped"
};

// Reads every record. A torn last line (a writer killed mid-line) and records
// of a newer format version are skipped with a warning; any other malformed
// line throws lathe::Error naming the file and line.
RecordFile read_records(const std::string& path);

// The fastest error-free record of each workload, keyed by workload; only
// records for `target` (Target::to_string()) unless it is empty.
std::map<std::string, TuningRecord> best_records(const std::vector<TuningRecord>& records,
                                                 const std::string& target = "");

}  // namespace lathe::tune
