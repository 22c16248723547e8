// Tuning records: one JSON object a line, appended and flushed as each
// measurement finishes, so `kill -9` at any moment loses at most the line
// being written. A record names its task by the hash of the task's structure
// key (task_workload_id), so it applies to every equal kernel of any model,
// and carries everything needed to trust, resume and apply it: the task's key,
// ops and signature, the target, the search space and knob values, the
// schedule text, the measured costs or the error, timestamps and the format
// version.
//
// The cost of a record (TuningRecord::latency_ms, the one definition every
// reader uses: best_records, `lathe compile --tuning-records`, the studio,
// bench_tuning, the tuning session) is the minimum over its measured costs:
// on a shared machine interference only adds time. A candidate whose first
// measurement beat its task's best was measured again, alternating with that
// best under the same options; it keeps its place only if the minimum of its
// re-measurements is still below the best's. The re-measurements travel in the
// record ("confirmation", optional, so version 1 files without it still load):
// a record that won counts its re-measurements in its cost, a record that lost
// costs +infinity (it computes the right answer, but never becomes a best).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lathe::tune {

inline constexpr int kRecordVersion = 1;

// Whether a record was measured again against its task's best before it
// became the best (see above).
enum class Confirmation { None, Won, Lost };
// "none", "won", "lost"; and back (throws lathe::Error for other text).
std::string to_string(Confirmation confirmation);
Confirmation confirmation_from_string(const std::string& text);

// The cost of a list of measured costs: their minimum; +infinity when empty.
double robust_cost_ms(const std::vector<double>& costs_ms);

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
  // The measurement: the candidate's first, reference-checked one.
  std::vector<double> costs_ms;
  // Set when the first measurement beat the task's best: the candidate's and
  // that best's costs measured alternately (best, candidate, best, ...).
  Confirmation confirmation = Confirmation::None;
  std::vector<double> confirm_costs_ms;
  std::vector<double> rival_costs_ms;
  std::string error_kind = "none";  // tune::to_string(ErrorKind)
  std::string error_message;
  double build_ms = 0;
  std::string started, finished;  // ISO 8601, UTC

  bool ok() const { return error_kind == "none" && !costs_ms.empty(); }
  // The record's cost, what every choice of a best compares: the minimum of
  // costs_ms and, when it won its confirmation, confirm_costs_ms; +infinity
  // for a failed record and for one that lost its confirmation.
  double latency_ms() const;
  double gflops() const;  // at latency_ms; 0 when that is infinite
  // The first measurement alone (minimum of costs_ms, +infinity when failed):
  // what the trial showed, and what the cost model and search learn from.
  double trial_ms() const;
  double trial_gflops() const;  // at trial_ms; 0 for a failed record
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

// The tuner of a record that is a verdict, not a measurement: a task's best
// schedule timed inside the whole model against the default schedule
// (driver/in_model_check). Its confirmation says which was faster there
// (won: the best, lost: the default), confirm_costs_ms holds the best's
// times and rival_costs_ms the default's, one per round, and costs_ms is
// empty: it never competes with measured candidates.
inline constexpr const char* kInModelTuner = "in-model";

struct RecordFile {
  std::vector<TuningRecord> records;
  std::vector<TuningRecord> in_model_checks;  // tuner kInModelTuner, in file order
  std::vector<std::string> warnings;          // "records.jsonl:212: torn last line skipped"
};

// Reads every record, the in-model verdicts apart from the measurements. A
// torn last line (a writer killed mid-line) and records of a newer format
// version are skipped with a warning; any other malformed line throws
// lathe::Error naming the file and line.
RecordFile read_records(const std::string& path);

// The record of least latency_ms() (finite: error-free, not beaten in its
// confirmation) of each workload, keyed by workload, the first of equals;
// only records for `target` (Target::to_string()) unless it is empty.
std::map<std::string, TuningRecord> best_records(const std::vector<TuningRecord>& records,
                                                 const std::string& target = "");

}  // namespace lathe::tune
