// Emitted forms of compiled kernels: LLVM IR before and after optimisation,
// assembly that uses the host's vector registers, and ELF object bytes.
#include <QtTest>

#include "codegen/codegen.h"
#include "test_kernels.h"

using namespace lathe;
using namespace lathe::testing;
using codegen::Target;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool host_has(const std::string& feature) {
  return contains("," + Target::host().features() + ",", ",+" + feature + ",");
}

}  // namespace

class TestCodegenEmit : public QObject {
  Q_OBJECT

 private slots:
  void vectorAddAssemblyUsesWideVectorRegisters() {
    if (!host_has("avx2")) QSKIP("the host has no AVX2");
    const std::string assembly = codegen::emit_assembly({vector_add(1024)}, Target::host());
    QVERIFY2(contains(assembly, "ymm") || contains(assembly, "zmm"), assembly.c_str());
    QVERIFY(contains(assembly, "vadd:"));
  }

  void baselineCpuUsesOnlySseRegisters() {
    const std::string assembly =
        codegen::emit_assembly({vector_add(1024)}, Target::parse("llvm -mcpu=x86-64"));
    QVERIFY(contains(assembly, "xmm"));
    QVERIFY(!contains(assembly, "ymm") && !contains(assembly, "zmm"));
  }

  void irCarriesBufferFactsAndTheParallelLaunch() {
    const std::string before = codegen::emit_llvm_ir({parallel_matmul(16, 16, 16)}, Target::host(),
                                                     codegen::IRStage::BeforeOptimization);
    QVERIFY2(contains(before, "define internal void @matmul_compute_(ptr noalias align 64"),
             before.c_str());
    QVERIFY(contains(before, "dereferenceable(1024)"));
    QVERIFY(contains(before, "define void @matmul(ptr"));
    QVERIFY(contains(before, "call void @lathe_parallel_for(ptr @matmul_parallel_0"));
    QVERIFY(contains(before, "define internal void @matmul_parallel_0(i64"));

    const std::string after = codegen::emit_llvm_ir({parallel_matmul(16, 16, 16)}, Target::host());
    QVERIFY(contains(after, "define void @matmul(ptr"));
    QVERIFY(contains(after, "@lathe_parallel_for"));
    QVERIFY(after != before);
  }

  void vectorAddIrHasVectorLoads() {
    const std::string ir = codegen::emit_llvm_ir({vector_add(64)}, Target::host());
    QVERIFY2(contains(ir, "<8 x float>"), ir.c_str());
    // i.outer * 8 floats is 32-byte aligned in a 64-byte aligned buffer.
    QVERIFY(contains(ir, "align 32"));
  }

  void objectIsElf() {
    const std::vector<char> object = codegen::emit_object({vector_add(64)}, Target::host());
    QVERIFY(object.size() > 64);
    QCOMPARE(std::string(object.begin(), object.begin() + 4), std::string("\x7f"
                                                                          "ELF"));
  }

  void optimisationLevelZeroStillRuns() {
    const std::string ir =
        codegen::emit_llvm_ir({vector_add(64)}, Target::parse("llvm -opt-level=0"));
    QVERIFY(contains(ir, "for_begin"));  // loops left as emitted
  }
};

QTEST_GUILESS_MAIN(TestCodegenEmit)
#include "tst_codegen_emit.moc"
