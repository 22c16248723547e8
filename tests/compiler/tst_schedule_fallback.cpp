// Every valid model compiles: where an op's tuning template has no point for
// a kernel — it throws while it describes its space, its default config is
// not a point of that space, or that config does not apply (or, when the
// compiler builds it, does not lower) — the compiler schedules the kernel
// with the generic template's default, which computes what the reference
// executor computes, and records which template gave way and why: in the
// compiled tasks (`lathe compile|run --print-tasks`), in `lathe tasks` and
// the tuning plan, in the tuner's task status and in the studio's task
// table. The templates here are a test plugin's, each broken in one of those
// ways; tst_grouped_convs checks that real convs whose template once had no
// point (a Wav2Vec2 positional conv) now get one.
#include <QtTest>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "driver/tuning.h"
#include "ir/normalized_error.h"
#include "ir/ops/infer_util.h"
#include "plugin/registrar.h"
#include "reference/executor.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "tune/group_computation.h"
#include "tune/search_task.h"
#include "views/tuning_task_model.h"

using namespace lathe;
using lathe::testing::random_tensor;

namespace {

// ---- a test plugin: y = 2x + 1, with a broken template per op -------------

void scaled_kernel(KernelContext& ctx) {
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  for (int64_t i = 0; i < ctx.output(0).numel(); ++i) y[i] = 2.0f * x[i] + 1.0f;
}

std::vector<te::Tensor> scaled_compute(const topi::ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  return {te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) {
        const te::Expr v = x(std::vector<te::Expr>(i.begin(), i.end()));
        return v * te::make_const(v.type(), 2.0) + te::make_const(v.type(), 1.0);
      },
      ctx.name(), {}, "elemwise")};
}

// A space of a row tile whose constraint (a register budget no tile meets)
// rejects every point, the default among them.
topi::SearchSpace no_point_template(const te::Tensor& anchor, const std::vector<te::Tensor>&,
                                    const VectorUnit&) {
  topi::SearchSpace space;
  space.name = "test_no_point.x86";
  space.knobs = {topi::split_knob("tile_row", anchor.shape().back(), 2)};
  space.constraint = [](const topi::Config&) { return false; };
  space.default_config = {0};
  space.apply = [](schedule::Schedule&, const topi::Config&) {};
  return space;
}

topi::SearchSpace throwing_template(const te::Tensor& anchor, const std::vector<te::Tensor>&,
                                    const VectorUnit&) {
  fail(str("no tiling of a row of ", anchor.shape().back(), " elements"));
}

// A space whose default config the scheduler refuses.
topi::SearchSpace unappliable_template(const te::Tensor&, const std::vector<te::Tensor>&,
                                       const VectorUnit&) {
  topi::SearchSpace space;
  space.name = "test_unappliable.x86";
  space.knobs = {topi::choice_knob("unroll", {0, 1})};
  space.default_config = {0};
  space.apply = [](schedule::Schedule&, const topi::Config&) {
    throw schedule::ScheduleError("split factor 0 of axis 'i'");
  };
  return space;
}

// y = 2x + 1 in three stages: d = 2x, e = d + 1, y = (d + e) / 2 + 1/2,
// the doubling read twice.
std::vector<te::Tensor> three_stage_compute(const topi::ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  auto at = [](const std::vector<te::Var>& i) { return std::vector<te::Expr>(i.begin(), i.end()); };
  auto c = [&](double value) { return te::make_const(x.dtype(), value); };
  const te::Tensor doubled = te::compute(
      x.shape(), [&](const std::vector<te::Var>& i) { return x(at(i)) * c(2.0); },
      ctx.name() + "_doubled");
  const te::Tensor incremented = te::compute(
      x.shape(), [&](const std::vector<te::Var>& i) { return doubled(at(i)) + c(1.0); },
      ctx.name() + "_incremented");
  return {te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) {
        return (doubled(at(i)) + incremented(at(i))) * c(0.5) + c(0.5);
      },
      ctx.name(), {}, "elemwise")};
}

// A space whose default the scheduler takes but lowering refuses: the
// doubling computed inside the loop of one of its readers, which does not
// enclose the other (the anchor, at the root).
topi::SearchSpace unlowerable_template(const te::Tensor& anchor, const std::vector<te::Tensor>&,
                                       const VectorUnit&) {
  topi::SearchSpace space;
  space.name = "test_unlowerable.x86";
  space.knobs = {topi::choice_knob("unroll", {0, 1})};
  space.default_config = {0};
  space.apply = [anchor](schedule::Schedule& sch, const topi::Config&) {
    te::Tensor doubled, incremented;
    for (const te::Tensor& t : anchor.op().input_tensors())
      (t.name().ends_with("_doubled") ? doubled : incremented) = t;
    schedule::Stage reader = sch[incremented];
    sch[doubled].compute_at(reader, reader.axis().at(0));
  };
  return space;
}

void register_test_plugin() {
  plugin::Registrar registrar("schedule_fallback_test");
  const std::pair<const char*, topi::OpTemplateFn> ops[] = {
      {"test.NoPoint", no_point_template},
      {"test.ThrowingTemplate", throwing_template},
      {"test.UnappliableDefault", unappliable_template},
  };
  for (const auto& [op, tuning_template] : ops) {
    // Fusable with what follows, as a conv is: the anchor of its group.
    registrar.define_op(op, FusionKind::OutEWiseFusable, infer_same_as_input);
    registrar.define_kernel(op, scaled_kernel);
    registrar.define_compute(op, scaled_compute, tuning_template);
  }
  registrar.define_op("test.UnlowerableDefault", FusionKind::OutEWiseFusable, infer_same_as_input);
  registrar.define_kernel("test.UnlowerableDefault", scaled_kernel);
  registrar.define_compute("test.UnlowerableDefault", three_stage_compute, unlowerable_template);
  registrar.commit();
}

// x -> op -> Relu: one fused group anchored by the test op, the Relu its epilogue.
Graph model_of(const std::string& op) {
  lathe::testing::GraphBuilder b;
  const ValueId x = b.input("x", {2, 8, 20});
  return b.finish({b.node("Relu", "relu", {b.node(op, "scaled", {x})})});
}

}  // namespace

class TestScheduleFallback : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { register_test_plugin(); }

  void cases_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("fallback");  // what the task records
    QTest::newRow("no point") << "test.NoPoint"
                              << "test_no_point.x86: its space has no point for this shape";
    QTest::newRow("throwing") << "test.ThrowingTemplate"
                              << "the test.ThrowingTemplate template: no tiling of a row of 20 "
                                 "elements";
    QTest::newRow("default does not apply") << "test.UnappliableDefault"
                                            << "test_unappliable.x86: split factor 0 of axis 'i'";
  }

  // The model compiles on the generic schedule, which computes the
  // reference's values, and the task says it fell back and why. A default
  // that applies but does not lower falls back when the compiler lowers it.
  void compilesOnTheGenericSchedule_data() {
    cases_data();
    QTest::newRow("default does not lower")
        << "test.UnlowerableDefault"
        << "test_unlowerable.x86: its default schedule does not lower: compute_at: "
           "'test_unlowerabledefault_doubled' is attached at loop 'i0' of "
           "'test_unlowerabledefault_incremented', which does not enclose its reader "
           "'test_unlowerabledefault'";
  }
  void compilesOnTheGenericSchedule() {
    QFETCH(QString, op);
    QFETCH(QString, fallback);
    const Graph graph = model_of(op.toStdString());
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    QCOMPARE(compiled.tasks.size(), size_t{1});
    QCOMPARE(QString::fromStdString(compiled.tasks[0].space), QString("injective.x86"));
    QCOMPARE(QString::fromStdString(compiled.tasks[0].fallback), fallback);

    const Tensor input = random_tensor({2, 8, 20}, 7);
    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    exec.set_input("x", input.raw(), input.nbytes());
    exec.run();
    const Tensor got = driver::from_ndarray(exec.output(0));
    const Tensor expected = reference::Executor(graph).run({{"x", input}})[0];
    const double error = normalized_error(got, expected);
    QVERIFY2(error <= 1e-6, qPrintable(QString("normalized error %1").arg(error)));
  }

  // `lathe tasks` and the tuning plan (`lathe tune --print-tasks`, the
  // studio's table before a session) report it too, and the tuner searches
  // the generic template's knobs for the task, its default the baseline.
  void plansAndTheTunerReportIt_data() { cases_data(); }
  void plansAndTheTunerReportIt() {
    QFETCH(QString, op);
    QFETCH(QString, fallback);
    const Graph graph = model_of(op.toStdString());
    const driver::TuningPlan plan = driver::plan_tuning(graph);
    QCOMPARE(plan.tasks.size(), size_t{1});
    QCOMPARE(QString::fromStdString(plan.tasks[0].fallback), fallback);
    const std::vector<driver::KernelTask> listed = driver::kernel_tasks(plan.optimized);
    QCOMPARE(QString::fromStdString(listed.at(0).fallback), fallback);
    QCOMPARE(QString::fromStdString(listed.at(0).space), QString("injective.x86"));

    const tune::SearchTask task =
        tune::make_search_task(plan.optimized.graph, plan.optimized.groups, plan.tasks[0],
                               tune::SpaceKind::Template, plan.optimized.vector_unit);
    QCOMPARE(QString::fromStdString(task.space.name), QString("injective.x86"));
    QCOMPARE(QString::fromStdString(task.baseline.fallback), fallback);
    QVERIFY(task.space.size() > 1);  // knobs to tune
    const tune::Candidate baseline = tune::build_baseline(task, codegen::Target::host());
    QVERIFY2(baseline.ok(), baseline.error_message.c_str());

    driver::TuningOptions options;
    options.trials = 1;
    const auto session = driver::make_tuning_session(plan, {0}, options);
    const driver::TaskStatus& status = session->progress().tasks.at(0);
    QCOMPARE(QString::fromStdString(status.fallback), fallback);

    // The studio's task table marks the row and gives the reason.
    views::TuningTaskModel model;
    model.setTasks(session->progress().tasks);
    const QModelIndex cell = model.index(0, views::TuningTaskModel::SpaceColumn);
    QCOMPARE(model.data(cell).toString(), QString("injective.x86 · fallback"));
    QVERIFY2(model.data(cell, Qt::ToolTipRole).toString().endsWith(fallback),
             qPrintable(model.data(cell, Qt::ToolTipRole).toString()));
    QVERIFY(model.data(cell, Qt::ForegroundRole).isValid());
  }

  // A template with a point for the kernel is no fallback: the task table
  // shows its space unmarked.
  void templatesWithAPointAreNoFallback() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 10, 10});
    const ValueId w = b.constant("w", random_tensor({16, 16, 3, 3}, 2));
    const Graph graph = b.finish({b.node("Conv", "conv", {x, w})});
    const driver::TuningPlan plan = driver::plan_tuning(graph);
    bool conv = false;
    for (const driver::KernelTask& t : plan.tasks) {
      QVERIFY2(t.fallback.empty(), t.fallback.c_str());
      conv |= t.space == "conv2d_NCHWc.x86";
    }
    QVERIFY(conv);
    views::TuningTaskModel model;
    driver::TaskStatus status;
    status.space = "conv2d_NCHWc.x86";
    model.setTasks({status});
    const QModelIndex cell = model.index(0, views::TuningTaskModel::SpaceColumn);
    QCOMPARE(model.data(cell).toString(), QString("conv2d_NCHWc.x86"));
    QVERIFY(!model.data(cell, Qt::ForegroundRole).isValid());
  }
};

QTEST_GUILESS_MAIN(TestScheduleFallback)
#include "tst_schedule_fallback.moc"
