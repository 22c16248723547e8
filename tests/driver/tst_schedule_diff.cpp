// Schedule diffs (driver/schedule_diff, driver/line_alignment): two loop IRs
// aligned loop by loop, and the knobs of two template configs.
#include <QtTest>

#include <algorithm>
#include <memory>

#include "../test_models.h"
#include "driver/kernel_tasks.h"
#include "driver/model_loader.h"
#include "driver/schedule_diff.h"
#include "tune/group_computation.h"

using namespace lathe;
using driver::RowChange;

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  const size_t at = text.find_first_not_of(' ');
  return at != std::string::npos && text.compare(at, prefix.size(), prefix) == 0;
}

driver::DiffSchedule text_schedule(const std::string& label, const std::string& text) {
  driver::DiffSchedule s;
  s.label = label;
  s.text = text;
  return s;
}

}  // namespace

class TestScheduleDiff : public QObject {
  Q_OBJECT

  // The MLP's first Gemm → Relu kernel: gemm, gemm_scale and relu stages.
  passes::OptimizedGraph optimized_;
  std::unique_ptr<driver::KernelWorkbench> bench_;

 private slots:
  void initTestCase() {
    const Graph graph =
        driver::load_model((testing::test_models_dir() + "/mlp.onnx").toStdString());
    optimized_ = driver::optimize_graph(graph, {});
    const std::vector<driver::KernelTask> tasks = driver::kernel_tasks(optimized_);
    QCOMPARE(tasks.at(1).func_name, std::string("fused_gemm_relu"));
    bench_ = std::make_unique<driver::KernelWorkbench>(optimized_.graph, optimized_.groups,
                                                       tasks.at(1), optimized_.vector_unit);
  }

  // Splitting the gemm's column loop adds one loop: that row alone is added,
  // the loop it split sits beside its outer half, and every other loop of
  // every stage sits beside its twin.
  void splitAddsOnlyTheInnerLoopRow() {
    const std::string plain = "s = te.create_schedule(relu.op)\n";
    const driver::ScheduleDiff diff = driver::diff_schedules(
        *bench_, text_schedule("plain", plain),
        text_schedule("split", plain + "jo, ji = s[gemm].split(gemm.op.axis[1], factor=8)\n"));
    QVERIFY(!diff.knobs_comparable());

    const auto& a = diff.a.loop_ir_lines;
    const auto& b = diff.b.loop_ir_lines;
    QCOMPARE(b.size(), a.size() + 1);
    int added = 0, changed_loops = 0;
    for (const driver::AlignedRow& r : diff.loop_ir_rows) {
      QVERIFY2(r.change != RowChange::Removed, a[static_cast<size_t>(r.a)].c_str());
      if (r.change == RowChange::Added) {
        ++added;
        QVERIFY2(starts_with(b[static_cast<size_t>(r.b)], "for ji in range(8)"),
                 b[static_cast<size_t>(r.b)].c_str());
        continue;
      }
      // Loops beside loops, stores beside stores to the same buffer; the one
      // loop that changed is the split one, beside its outer half.
      const driver::LineKey ka = driver::loop_ir_line_key(a[static_cast<size_t>(r.a)]);
      const driver::LineKey kb = driver::loop_ir_line_key(b[static_cast<size_t>(r.b)]);
      QCOMPARE(kb.kind, ka.kind);
      if (ka.kind != "for") {
        QCOMPARE(kb.name, ka.name);
      } else if (r.change == RowChange::Changed) {
        ++changed_loops;
        QCOMPARE(ka.name, std::string("j"));
        QCOMPARE(kb.name, std::string("jo"));
      } else {
        QCOMPARE(kb.name, ka.name);
      }
    }
    QCOMPARE(changed_loops, 1);
    QCOMPARE(added, 1);
    // Rows keep both texts' order, every line once.
    int next_a = 0, next_b = 0;
    for (const driver::AlignedRow& r : diff.loop_ir_rows) {
      if (r.a >= 0) QCOMPARE(r.a, next_a++);
      if (r.b >= 0) QCOMPARE(r.b, next_b++);
    }
    QCOMPARE(next_a, static_cast<int>(a.size()));
    QCOMPARE(next_b, static_cast<int>(b.size()));
    // The later stages' loops are untouched and stay Same.
    const long same_loops =
        std::count_if(diff.loop_ir_rows.begin(), diff.loop_ir_rows.end(), [&](const auto& r) {
          return r.change == RowChange::Same && starts_with(a[static_cast<size_t>(r.a)], "for ");
        });
    QCOMPARE(same_loops, 3L);  // the reduction loop k, gemm_scale's j, relu's i1

    // The schedule texts differ by the one split line.
    QCOMPARE(diff.schedule_rows.size(), size_t{2});
    QCOMPARE(diff.schedule_rows[1].change, RowChange::Added);
  }

  // Default against another config of the template space: the knob that
  // changed differs, the others do not.
  void knobsOfTwoConfigsDiffer() {
    const topi::SearchSpace space = tune::template_search_space(bench_->computation());
    const driver::DiffSchedule base = driver::default_diff_schedule(*bench_);
    QCOMPARE(base.space, space.name);
    QCOMPARE(base.knobs.size(), space.knobs.size());

    // The first knob with another option, moved to it.
    topi::Config other = space.default_config;
    size_t moved = space.knobs.size();
    for (size_t k = 0; k < space.knobs.size() && moved == space.knobs.size(); ++k) {
      for (int option = 0; option < static_cast<int>(space.knobs[k].options.size()); ++option) {
        topi::Config candidate = space.default_config;
        candidate[k] = option;
        if (option != space.default_config[k] && space.valid(candidate)) {
          other = candidate;
          moved = k;
          break;
        }
      }
    }
    QVERIFY(moved < space.knobs.size());
    driver::TuningRecord record;
    record.space = space.name;
    record.tuner = "grid";
    record.schedule =
        schedule::print_schedule(*tune::apply_config(bench_->computation(), space, other));
    for (const topi::Knob& knob : space.knobs)
      record.knobs.emplace_back(knob.name, space.value(other, knob.name));

    const driver::ScheduleDiff diff =
        driver::diff_schedules(*bench_, base, driver::record_diff_schedule(record, "record 0"));
    QVERIFY(diff.knobs_comparable());
    QCOMPARE(diff.knobs.size(), space.knobs.size());
    for (size_t k = 0; k < diff.knobs.size(); ++k) {
      QCOMPARE(diff.knobs[k].knob, space.knobs[k].name);
      QCOMPARE(diff.knobs[k].differs(), k == moved);
    }
    // A hand edit has no config: nothing to compare knob by knob.
    QVERIFY(!driver::diff_schedules(*bench_, base, text_schedule("edit", base.text))
                 .knobs_comparable());
  }

  // A schedule that does not parse is refused with its source and line.
  void badTextNamesItsSourceAndLine() {
    try {
      driver::diff_schedules(*bench_, driver::default_diff_schedule(*bench_),
                             text_schedule("file bad.py",
                                           "s = te.create_schedule(relu.op)\n"
                                           "s[relu].split(nothing, factor=4)\n"));
      QFAIL("a bad schedule text was accepted");
    } catch (const Error& e) {
      const QString message = QString::fromUtf8(e.what());
      QVERIFY2(message.startsWith("file bad.py:\n2:"), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestScheduleDiff)
#include "tst_schedule_diff.moc"
