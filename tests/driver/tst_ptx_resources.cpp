// CUDA's ptxas and nvdisasm found at run time (driver/ptx_resources.h): the
// -v report parsed per kernel, a real kernel assembled where ptxas exists,
// SASS through whichever disassembler PATH offers, and a clear word on what
// to install when neither is there.
#include <QtTest>

#include "codegen/codegen.h"
#include "codegen/gpu_launch.h"
#include "driver/ptx_resources.h"
#include "schedule/schedule_text.h"
#include "support/run_program.h"
#include "te/tensor.h"
#include "tir/lower.h"

using namespace lathe;

namespace {

// As CUDA 13's ptxas -v writes it (two kernels, one with shared memory and
// spills, and the lines between that carry nothing per kernel).
const char* kVerbose = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'fused_gemm' for 'sm_90'
ptxas info    : Function properties for fused_gemm
    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 2048 bytes smem, 368 bytes cmem[0]
ptxas info    : Compile time = 37.496 ms
ptxas info    : Compiling entry function 'fused_flatten' for 'sm_90'
ptxas info    : Function properties for fused_flatten
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
)";

// A kernel with a shared-memory row cache: C[i] = sum_k A[i, k], 32 rows a block.
tir::PrimFunc row_sum_kernel(const std::string& target) {
  te::Tensor A = te::placeholder({256, 64}, te::DataType::Float(32), "A");
  te::IterVar k = te::reduce_axis(64, "k");
  te::Tensor R = te::compute(
      {256}, [&](const std::vector<te::Var>& v) { return te::sum(A(v[0], k.var()), {k}); }, "R",
      {"i"});
  std::unique_ptr<schedule::Schedule> s = schedule::parse_schedule(R"(s = te.create_schedule(R.op)
AS = s.cache_read(A, "shared", [R])
io, ii = s[R].split(R.op.axis[0], factor=32)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.x"))
s[AS].compute_at(s[R], io)
f = s[AS].fuse(AS.op.axis[0], AS.op.axis[1])
fo, fi = s[AS].split(f, factor=32)
s[AS].bind(fi, te.thread_axis("threadIdx.x"))
)",
                                                                   {{"A", A}, {"R", R}});
  return tir::lower(*s, {A, R}, "row_sum", {.record_ir = false, .target = target}).func;
}

// A folder holding an executable shell script `name` that prints `text`.
void write_tool(const QTemporaryDir& dir, const QString& name, const QString& text) {
  QFile file(dir.filePath(name));
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(("#!/bin/sh\necho '" + text + "'\n").toUtf8());
  file.close();
  file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

}  // namespace

class TestPtxResources : public QObject {
  Q_OBJECT

 private slots:
  void parsesTheVerboseReport() {
    const std::vector<driver::KernelResources> k = driver::parse_ptxas_verbose(kVerbose);
    QCOMPARE(int(k.size()), 2);
    QCOMPARE(QString::fromStdString(k[0].kernel), QString("fused_gemm"));
    QCOMPARE(k[0].registers, int64_t(255));
    QCOMPARE(k[0].barriers, int64_t(1));
    QCOMPARE(k[0].shared_bytes, int64_t(2048));
    QCOMPARE(k[0].stack_bytes, int64_t(24));
    QCOMPARE(k[0].spill_store_bytes, int64_t(8));
    QCOMPARE(k[0].spill_load_bytes, int64_t(12));
    QCOMPARE(QString::fromStdString(k[1].kernel), QString("fused_flatten"));
    QCOMPARE(k[1].registers, int64_t(10));
    QCOMPARE(k[1].shared_bytes, int64_t(0));
    QCOMPARE(QString::fromStdString(driver::format_kernel_resources(k[0])),
             QString("fused_gemm: 255 registers, 2048 B shared, 8 B spill stores, 12 B spill "
                     "loads, 24 B stack, 1 barriers"));
    QVERIFY(QString::fromStdString(driver::format_kernel_resources(k[1])).contains("no spills"));
  }

  void assemblesARealKernel() {
    if (!find_cuda_tool("ptxas"))
      QSKIP(
          "no CUDA ptxas on PATH or in /usr/local/cuda/bin (not a Debian package: NVIDIA's "
          "CUDA toolkit, e.g. cuda-nvcc from its apt repository)");
    const std::string target = "cuda -arch=sm_90";
    const tir::PrimFunc f = row_sum_kernel(target);
    const std::string ptx = codegen::emit_assembly({f}, codegen::Target::parse(target));
    const driver::PtxasReport report = driver::assemble_ptx(ptx, "sm_90");
    QVERIFY2(report.ok(), report.problem.c_str());
    QCOMPARE(int(report.kernels.size()), 1);
    const driver::KernelResources& k = report.kernels[0];
    QCOMPARE(QString::fromStdString(k.kernel), QString("row_sum"));
    QVERIFY(k.registers > 0);
    QCOMPARE(k.barriers, int64_t(1));
    // ptxas counts the shared memory the launch record asks for.
    QCOMPARE(k.shared_bytes,
             codegen::verify_gpu_func(f, codegen::Target::parse(target)).shared_bytes);
    QVERIFY(!report.cubin.empty());
    const QString header = QString::fromStdString(driver::ptxas_header_comment(report));
    QVERIFY2(header.startsWith("// ptxas -v -arch=sm_90") && header.contains("row_sum: "),
             qPrintable(header));
    // PTX ptxas refuses: its message, not an exception.
    const driver::PtxasReport bad = driver::assemble_ptx(".version 7.8\nnot ptx\n", "sm_90");
    QVERIFY(!bad.ok());
    QVERIFY2(QString::fromStdString(bad.problem).contains("refused the PTX"), bad.problem.c_str());
  }

  void sassThroughTheDisassemblerOnPath() {
    QTemporaryDir tools;
    write_tool(tools, "nvdisasm", "        /*0000*/  MOV R1, c[0x0][0x28] ;");
    const QByteArray saved = qgetenv("PATH");
    qputenv("PATH", tools.path().toUtf8() + ":" + saved);
    const driver::SassListing sass = driver::disassemble_cubin("not really a cubin");
    qputenv("PATH", saved);
    QVERIFY2(sass.problem.empty(), sass.problem.c_str());
    QVERIFY(QString::fromStdString(sass.text).contains("MOV R1"));
  }

  void withoutTheToolkitItSaysWhatToInstall() {
    const QByteArray path = qgetenv("PATH"), home = qgetenv("CUDA_HOME");
    QTemporaryDir empty;
    qputenv("PATH", empty.path().toUtf8());
    qunsetenv("CUDA_HOME");
    const bool system_ptxas = bool(find_cuda_tool("ptxas"));  // /usr/local/cuda/bin
    const bool system_disasm = find_cuda_tool("nvdisasm") || find_cuda_tool("cuobjdump");
    const driver::PtxasReport report = driver::assemble_ptx(".version 7.8\n", "sm_90");
    const driver::SassListing sass = driver::disassemble_cubin("x");
    qputenv("PATH", path);
    if (!home.isEmpty()) qputenv("CUDA_HOME", home);
    if (!system_ptxas) {
      QVERIFY2(QString::fromStdString(report.problem).contains("no ptxas") &&
                   QString::fromStdString(report.problem).contains("CUDA toolkit"),
               report.problem.c_str());
      QVERIFY(
          QString::fromStdString(driver::ptxas_header_comment(report)).startsWith("// no ptxas"));
    }
    if (!system_disasm)
      QVERIFY2(QString::fromStdString(sass.problem).contains("SASS needs nvdisasm"),
               sass.problem.c_str());
    if (system_ptxas && system_disasm) QSKIP("the CUDA toolkit is in /usr/local/cuda/bin");
  }
};

QTEST_GUILESS_MAIN(TestPtxResources)
#include "tst_ptx_resources.moc"
