// Op strategies per target kind: the CPU template stays where it was, other
// kinds get their own, and a second template is refused only for the same
// op and kind.
#include <QtTest>

#include "../gpu_test_support.h"
#include "topi/op_compute.h"

using namespace lathe;
using topi::OpStrategyRegistry;
using topi::SearchSpace;

namespace {

std::vector<te::Tensor> no_compute(const topi::ComputeContext&) {
  return {};
}
SearchSpace cpu_template(const te::Tensor&, const std::vector<te::Tensor>&, const VectorUnit&) {
  return {};
}
SearchSpace gpu_template(const te::Tensor&, const std::vector<te::Tensor>&, const VectorUnit&) {
  return {};
}

using testing::error_of;

}  // namespace

class TestStrategyKinds : public QObject {
  Q_OBJECT

 private slots:
  void templatesAreKeptPerKind() {
    OpStrategyRegistry registry;
    registry.define_compute("Conv", no_compute);
    registry.define_template("Conv", cpu_template);
    registry.define_template("Conv", "cuda", gpu_template);
    const topi::OpStrategy* conv = registry.find("Conv");
    QVERIFY(conv);
    QVERIFY(conv->tuning_template == cpu_template);
    QVERIFY(conv->template_for("llvm") == cpu_template);
    QVERIFY(conv->template_for("cuda") == gpu_template);
    QVERIFY(conv->template_for("rocm") == nullptr);
  }

  void aKindWithoutTemplateLeavesTheCpuOne() {
    OpStrategyRegistry registry;
    registry.define_compute("Relu", no_compute);
    registry.define_template("Relu", "cuda", gpu_template);
    QVERIFY(registry.find("Relu")->template_for("llvm") == nullptr);
    registry.define_template("Relu", "llvm", cpu_template);
    QVERIFY(registry.find("Relu")->tuning_template == cpu_template);
  }

  void secondTemplateOfOneKindIsRefused() {
    OpStrategyRegistry registry;
    registry.define_compute("Dense", no_compute);
    registry.define_template("Dense", "cuda", gpu_template);
    registry.define_template("Dense", cpu_template);
    QString message = error_of([&] { registry.define_template("Dense", "cuda", cpu_template); });
    QVERIFY2(message.contains("op 'Dense' already has a tuning template for target kind 'cuda'"),
             qPrintable(message));
    message = error_of([&] { registry.define_template("Dense", gpu_template); });
    QVERIFY2(message.contains("op 'Dense' already has a tuning template"), qPrintable(message));
  }

  void globalRegistryKeepsTheX86Templates() {
    const topi::OpStrategy* conv = OpStrategyRegistry::global().find("Conv");
    QVERIFY(conv && conv->tuning_template);
    QVERIFY(conv->template_for("llvm") == conv->tuning_template);
    // The GPU's sits beside it (topi/schedule_cuda_templates.h).
    QVERIFY(conv->template_for("cuda") && conv->template_for("cuda") != conv->tuning_template);
    // An op without a GPU template of its own takes the kind's default.
    QVERIFY(OpStrategyRegistry::global().find("Relu")->template_for("cuda") == nullptr);
  }
};

QTEST_GUILESS_MAIN(TestStrategyKinds)
#include "tst_strategy_kinds.moc"
