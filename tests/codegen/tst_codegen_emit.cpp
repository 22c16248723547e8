// Emitted forms of compiled kernels: LLVM IR before and after optimisation,
// assembly that uses the host's vector registers, and ELF object bytes that
// load back into the JIT and compute what the JIT-compiled module does.
#include <QtTest>
#include <cstring>
#include <random>

#include "codegen/codegen.h"
#include "runtime/ndarray.h"
#include "support/error.h"
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

// float32 buffers of the given sizes, each filled with random values.
std::vector<runtime::NDArray> random_buffers(const std::vector<int64_t>& sizes, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<runtime::NDArray> buffers;
  for (int64_t n : sizes) {
    runtime::NDArray a({n}, runtime::DataType::float32());
    for (int64_t i = 0; i < n; ++i) a.data_as<float>()[i] = dist(rng);
    buffers.push_back(a);
  }
  return buffers;
}

// Runs the kernel on copies of the buffers and returns the last one (the output).
runtime::NDArray run_on(const codegen::CompiledKernel& kernel,
                        const std::vector<runtime::NDArray>& buffers) {
  std::vector<runtime::NDArray> copies;
  std::vector<void*> pointers;
  for (const runtime::NDArray& b : buffers) {
    copies.push_back(b.clone());
    pointers.push_back(copies.back().data());
  }
  kernel.run(pointers);
  return copies.back();
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

  void loadedObjectComputesWhatTheJitComputes() {
    // The parallel matmul calls lathe_parallel_for, which the loader resolves.
    const std::vector<tir::PrimFunc> funcs = {vector_add(64), parallel_matmul(16, 8, 12)};
    const std::vector<char> object = codegen::emit_object(funcs, Target::host());
    codegen::CompiledModule loaded = codegen::load_object(object, {{"vadd", 3}, {"matmul", 3}});
    codegen::CompiledModule jitted = codegen::jit_compile(funcs, Target::host());
    QCOMPARE(loaded.kernel_names(), (std::vector<std::string>{"vadd", "matmul"}));

    const std::vector<runtime::NDArray> add = random_buffers({64, 64, 64}, 1);
    const runtime::NDArray add_loaded = run_on(loaded.kernel("vadd"), add);
    const runtime::NDArray add_jitted = run_on(jitted.kernel("vadd"), add);
    QCOMPARE(add_loaded.data_as<float>()[5],
             add[0].data_as<float>()[5] + add[1].data_as<float>()[5]);
    QVERIFY(std::memcmp(add_loaded.data(), add_jitted.data(), add_loaded.nbytes()) == 0);

    const std::vector<runtime::NDArray> mm = random_buffers({16 * 12, 12 * 8, 16 * 8}, 2);
    const runtime::NDArray mm_loaded = run_on(loaded.kernel("matmul"), mm);
    const runtime::NDArray mm_jitted = run_on(jitted.kernel("matmul"), mm);
    QVERIFY(mm_loaded.data_as<float>()[0] != mm[2].data_as<float>()[0]);  // it was written
    QVERIFY(std::memcmp(mm_loaded.data(), mm_jitted.data(), mm_loaded.nbytes()) == 0);
  }

  void loadingGarbageOrAMissingKernelThrows() {
    const std::vector<char> garbage(4096, 'x');
    QVERIFY_THROWS_EXCEPTION(Error, codegen::load_object(garbage, {{"vadd", 3}}));
    QVERIFY_THROWS_EXCEPTION(Error, codegen::load_object({}, {{"vadd", 3}}));
    // An ELF header on a truncated object.
    std::vector<char> truncated = codegen::emit_object({vector_add(64)}, Target::host());
    truncated.resize(100);
    QVERIFY_THROWS_EXCEPTION(Error, codegen::load_object(truncated, {{"vadd", 3}}));
    const std::vector<char> object = codegen::emit_object({vector_add(64)}, Target::host());
    QVERIFY_THROWS_EXCEPTION(Error, codegen::load_object(object, {{"no_such_kernel", 3}}));
  }

  void optimisationLevelZeroStillRuns() {
    const std::string ir =
        codegen::emit_llvm_ir({vector_add(64)}, Target::parse("llvm -opt-level=0"));
    QVERIFY(contains(ir, "for_begin"));  // loops left as emitted
  }
};

QTEST_GUILESS_MAIN(TestCodegenEmit)
#include "tst_codegen_emit.moc"
