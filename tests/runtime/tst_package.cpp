// Real packages end to end: kernels built from TE through lowering and LLVM
// into an object, linked and tarred by write_package, loaded by Package in
// this process, through the C interface, and by lathe_run_package (a C
// program linking only liblathe_runtime.so) in a fresh process. Then broken
// packages, each of which must fail with a message that names the problem.
#include <archive.h>
#include <archive_entry.h>

#include <QtTest>
#include <fstream>

#include "codegen/codegen.h"
#include "driver/memory_plan.h"
#include "driver/package_writer.h"
#include "recorded_cpus.h"
#include "runtime/c_api.h"
#include "runtime/cpu_features.h"
#include "runtime/package.h"
#include "runtime/params.h"
#include "support/error.h"
#include "te/tensor.h"
#include "tir/lower.h"
#include "topi/default_schedule.h"

using namespace lathe;
using runtime::GraphModuleDesc;
using runtime::NDArray;

namespace {

constexpr int64_t kRows = 32, kCols = 128, kCount = kRows * kCols;

// y = max(x + w, 0) * 2 as two kernels, fused_add and fused_relu_scale.
std::vector<tir::PrimFunc> build_kernels() {
  const te::DataType f32 = te::DataType::Float(32);
  te::Tensor x = te::placeholder({kRows, kCols}, f32, "x");
  te::Tensor w = te::placeholder({kRows, kCols}, f32, "w");
  te::Tensor t = te::compute(
      {kRows, kCols}, [&](const std::vector<te::Var>& i) { return x(i[0], i[1]) + w(i[0], i[1]); },
      "T_add");
  schedule::Schedule add_sch({t.op()});
  topi::apply_default_schedule(add_sch);
  tir::PrimFunc add = tir::lower(add_sch, {x, w, t}, "fused_add", {.record_ir = false}).func;

  te::Tensor in = te::placeholder({kRows, kCols}, f32, "t");
  te::Tensor y = te::compute(
      {kRows, kCols},
      [&](const std::vector<te::Var>& i) {
        return te::max(in(i[0], i[1]), te::Expr(0.0f)) * te::Expr(2.0f);
      },
      "T_relu");
  schedule::Schedule relu_sch({y.op()});
  topi::apply_default_schedule(relu_sch);
  tir::PrimFunc relu = tir::lower(relu_sch, {in, y}, "fused_relu_scale", {.record_ir = false}).func;
  return {add, relu};
}

GraphModuleDesc graph() {
  GraphModuleDesc d;
  d.nodes = {{"null", "x", {}, "", 0, 1, false, false, ""},
             {"null", "w", {}, "", 0, 1, false, false, ""},
             {"tvm_op", "add0", {{0, 0, 0}, {1, 0, 0}}, "fused_add", 2, 1, false, false, ""},
             {"tvm_op", "relu0", {{2, 0, 0}}, "fused_relu_scale", 1, 1, false, false, ""}};
  d.arg_nodes = {0, 1};
  d.heads = {{3, 0, 0}};
  d.dltype.assign(4, "float32");
  d.shape.assign(4, {kRows, kCols});
  driver::plan_memory(d);
  return d;
}

std::vector<float> pattern(float scale, float offset) {
  std::vector<float> v(kCount);
  for (int64_t i = 0; i < kCount; ++i) v[static_cast<size_t>(i)] = scale * float(i % 97) + offset;
  return v;
}

std::map<std::string, NDArray> params() {
  NDArray w({kRows, kCols}, runtime::DataType::float32());
  const std::vector<float> values = pattern(-0.5f, 10.0f);
  w.copy_from(values.data(), values.size() * sizeof(float));
  return {{"w", w}};
}

std::vector<float> input_values() {
  return pattern(0.25f, -6.0f);
}

std::vector<float> expected_output() {
  const std::vector<float> x = input_values(), w = pattern(-0.5f, 10.0f);
  std::vector<float> y(kCount);
  for (size_t i = 0; i < y.size(); ++i) y[i] = std::max(x[i] + w[i], 0.0f) * 2.0f;
  return y;
}

std::string read_file(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const QString& path, const std::string& data) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

std::vector<std::pair<std::string, std::string>> read_tar(const QString& path) {
  std::vector<std::pair<std::string, std::string>> members;
  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  if (archive_read_open_filename(a, path.toStdString().c_str(), 1 << 16) == ARCHIVE_OK) {
    archive_entry* entry = nullptr;
    while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
      std::string data(static_cast<size_t>(archive_entry_size(entry)), '\0');
      archive_read_data(a, data.data(), data.size());
      members.emplace_back(archive_entry_pathname(entry), data);
    }
  }
  archive_read_free(a);
  return members;
}

void write_tar(const QString& path,
               const std::vector<std::pair<std::string, std::string>>& members) {
  archive* a = archive_write_new();
  archive_write_set_format_ustar(a);
  archive_write_open_filename(a, path.toStdString().c_str());
  for (const auto& [name, data] : members) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_size(entry, static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_write_header(a, entry);
    archive_write_data(a, data.data(), data.size());
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
}

QString load_error(const QString& tar) {
  try {
    runtime::Package package(tar.toStdString());
  } catch (const runtime::Error& e) {
    return QString::fromStdString(e.what());
  }
  return QStringLiteral("<loaded without error>");
}

// The private extraction folders currently in $TMPDIR.
QStringList extraction_dirs() {
  return QDir(qEnvironmentVariable("TMPDIR"))
      .entryList({"lathe-package-*"}, QDir::Dirs | QDir::NoDotAndDotDot);
}

}  // namespace

class TestPackage : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString good_;  // module.tar built once for every test
  codegen::Target target_ = codegen::Target::host();

  QString path(const QString& name) const { return dir_.filePath(name); }

  // A package of the host's kernels that says it was built for `mcpu` (the
  // host's CPU when empty) and records `features`.
  void write(const QString& tar, const std::string& features, const std::string& mcpu = "") {
    driver::write_package(tar.toStdString(), codegen::emit_object(build_kernels(), target_),
                          graph(), params(), "llvm -mcpu=" + (mcpu.empty() ? target_.cpu() : mcpu),
                          features);
  }

  // The good package with one member replaced (or removed, for an empty name).
  QString variant(const QString& name, const std::string& member, const std::string* data) {
    std::vector<std::pair<std::string, std::string>> members;
    for (auto& [n, d] : read_tar(good_)) {
      if (n != member)
        members.emplace_back(n, d);
      else if (data)
        members.emplace_back(n, *data);
    }
    write_tar(path(name), members);
    return path(name);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    // Packages extract under $TMPDIR: a private one, so that other processes'
    // extraction folders cannot disturb the count in runsInProcess.
    QVERIFY(QDir(dir_.path()).mkdir("tmp"));
    qputenv("TMPDIR", path("tmp").toUtf8());
    good_ = path("module.tar");
    write(good_, target_.features());
    const auto members = read_tar(good_);
    QCOMPARE(members.size(), size_t(3));
    QCOMPARE(members[0].first, std::string("mod.so"));
    QCOMPARE(members[1].first, std::string("mod.json"));
    QCOMPARE(members[2].first, std::string("mod.params"));
    QVERIFY(members[1].second.find("\"func_name\": \"fused_relu_scale\"") != std::string::npos);
    QVERIFY(members[2].second.substr(0, 8) ==
            std::string("\xB7\x9C\x04\x05\x4F\x8D\xE5\xF7", 8));  // magic, little endian
  }

  void runsInProcess() {
    const QStringList before = extraction_dirs();
    {
      runtime::Package package(good_.toStdString());
      QCOMPARE(package.target(), "llvm -mcpu=" + target_.cpu());
      QCOMPARE(package.features(), target_.features());
      runtime::GraphExecutor& ex = package.executor();
      QCOMPARE(ex.num_inputs(), 1);
      QCOMPARE(ex.input_name(0), std::string("x"));
      QCOMPARE(ex.input_shape(0), std::vector<int64_t>({kRows, kCols}));
      // x, w, t, y: four storages (nothing can be shared in so short a chain).
      QCOMPARE(ex.storage_bytes(), size_t(4 * kCount * 4));
      const std::vector<float> x = input_values();
      ex.set_input("x", x.data(), x.size() * sizeof(float));
      ex.run();
      std::vector<float> y(kCount);
      ex.copy_output(0, y.data(), y.size() * sizeof(float));
      QCOMPARE(y, expected_output());

      const auto rows = ex.profile(3);
      QCOMPARE(rows.size(), size_t(2));
      const std::string table = runtime::GraphExecutor::format_profile(rows);
      QVERIFY2(table.find("fused_relu_scale") != std::string::npos, table.c_str());
      QVERIFY(table.find("(32, 128)") != std::string::npos);
      const runtime::TimeSummary s = runtime::benchmark(ex, 3, 2);
      QVERIFY(s.mean > 0);
      QCOMPARE(extraction_dirs().size(), before.size() + 1);
    }
    QCOMPARE(extraction_dirs(), before);  // removed with the package
    // ... and when loading fails after extraction (a kernel mod.so lacks).
    std::string json = read_tar(good_)[1].second;
    json.replace(json.find("\"fused_add\""), 11, "\"fused_xyz\"");
    QVERIFY(load_error(variant("bad_json.tar", "mod.json", &json)).contains("fused_xyz"));
    QCOMPARE(extraction_dirs(), before);
  }

  void runsThroughTheCApi() {
    LatheModule* m = nullptr;
    QCOMPARE(lathe_module_load(good_.toStdString().c_str(), &m), 0);
    QVERIFY(m);
    QCOMPARE(lathe_module_num_inputs(m), 1);
    QCOMPARE(lathe_module_num_outputs(m), 1);
    QCOMPARE(QString(lathe_module_input_name(m, 0)), QString("x"));
    QCOMPARE(QString(lathe_module_input_dtype(m, 0)), QString("float32"));
    int64_t dims[4] = {};
    QCOMPARE(lathe_module_input_shape(m, 0, dims, 4), 2);
    QCOMPARE(dims[0], kRows);
    QCOMPARE(dims[1], kCols);
    QCOMPARE(lathe_module_output_shape(m, 0, dims, 1), 2);  // rank even when truncated
    QCOMPARE(lathe_module_output_nbytes(m, 0), size_t(kCount * 4));
    QVERIFY(lathe_module_input_name(m, 1) == nullptr);
    QVERIFY(QString(lathe_last_error()).contains("input index 1 out of range"));

    const std::vector<float> x = input_values();
    QCOMPARE(lathe_module_set_input(m, "x", x.data(), 12), -1);
    QVERIFY(QString(lathe_last_error()).contains("takes 16384 bytes; got 12"));
    QCOMPARE(lathe_module_set_input(m, "nope", x.data(), x.size() * 4), -1);
    QVERIFY(QString(lathe_last_error()).contains("no input 'nope'"));
    QCOMPARE(lathe_module_set_input(m, "x", x.data(), x.size() * 4), 0);
    QCOMPARE(lathe_module_run(m), 0);
    std::vector<float> y(kCount);
    QCOMPARE(lathe_module_get_output(m, 0, y.data(), y.size() * 4), 0);
    QCOMPARE(y, expected_output());
    lathe_module_free(m);

    LatheModule* none = nullptr;
    QCOMPARE(lathe_module_load(path("absent.tar").toStdString().c_str(), &none), -1);
    QVERIFY(none == nullptr);
    QVERIFY2(QString(lathe_last_error()).contains("absent.tar: no such file"), lathe_last_error());
  }

  void runsInAFreshProcessWithTheRuntimeAlone() {
    const std::vector<float> x = input_values();
    write_file(path("x.bin"), std::string(reinterpret_cast<const char*>(x.data()), x.size() * 4));
    QProcess p;
    p.start(LATHE_RUN_PACKAGE, {good_, path("x.bin"), path("y.bin")});
    QVERIFY(p.waitForFinished(60000));
    const QString out = p.readAllStandardOutput() + p.readAllStandardError();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(out));
    QVERIFY2(out.contains("input x float32 rank 2: 32 128"), qPrintable(out));
    const std::string y = read_file(path("y.bin"));
    QCOMPARE(y.size(), size_t(kCount * 4));
    std::vector<float> got(kCount);
    std::memcpy(got.data(), y.data(), y.size());
    QCOMPARE(got, expected_output());
  }

  void missingMemberIsNamed() {
    const QString tar = variant("no_params.tar", "mod.params", nullptr);
    const QString e = load_error(tar);
    QVERIFY2(e.contains("no_params.tar: missing member mod.params"), qPrintable(e));
  }

  void truncatedTarIsAnError() {
    const std::string bytes = read_file(good_);
    write_file(path("cut.tar"), bytes.substr(0, 3000));  // inside mod.so's data
    QString e = load_error(path("cut.tar"));
    QVERIFY2(e.contains("cut.tar: member mod.so is truncated"), qPrintable(e));
    write_file(path("cut_header.tar"), bytes.substr(0, 300));  // inside the first header
    e = load_error(path("cut_header.tar"));
    QVERIFY2(e.contains("cut_header.tar") && e.contains("tar archive"), qPrintable(e));
  }

  void notATarIsAnError() {
    write_file(path("model.onnx"), std::string(4096, 'z'));
    const QString e = load_error(path("model.onnx"));
    QVERIFY2(e.contains("model.onnx") && e.contains("tar archive"), qPrintable(e));
  }

  void truncatedMemberIsNamed() {
    const std::string full = read_tar(good_)[2].second;
    const std::string cut = full.substr(0, full.size() - 100);
    const QString e = load_error(variant("short_params.tar", "mod.params", &cut));
    QVERIFY2(e.contains("short_params.tar: mod.params: truncated in array 'w'"), qPrintable(e));
  }

  void wrongParamsMagicIsNamed() {
    std::string params = read_tar(good_)[2].second;
    params[0] = 'X';
    const QString e = load_error(variant("magic.tar", "mod.params", &params));
    QVERIFY2(e.contains("mod.params: not a TVM parameter file (magic 0x"), qPrintable(e));
  }

  void brokenModSoIsNamed() {
    const std::string garbage(2048, '\x7f');
    const QString e = load_error(variant("bad_so.tar", "mod.so", &garbage));
    QVERIFY2(e.contains("bad_so.tar: cannot load mod.so:"), qPrintable(e));
  }

  void kernelMissingFromModSoIsNamed() {
    std::string json = read_tar(good_)[1].second;
    const std::string from = "\"func_name\": \"fused_add\"";
    json.replace(json.find(from), from.size(), "\"func_name\": \"fused_sub\"");
    const QString e = load_error(variant("no_kernel.tar", "mod.json", &json));
    QVERIFY2(e.contains("kernel 'fused_sub' of node 2 ('add0') is not in the module"),
             qPrintable(e));
  }

  void cpuLackingFeaturesIsRefused() {
    // Every x86 CPU lacks one of these: Intel has no SSE4A or XOP, AMD no AMX.
    std::vector<std::string> lacks;
    for (const char* f : {"amx-tile", "avx512fp16", "sse4a", "xop"})
      if (!runtime::host_cpu_features().count(f)) lacks.push_back(f);
    QVERIFY(!lacks.empty());
    std::string features = "+avx2", list;
    for (const std::string& f : lacks) {
      features += ",+" + f;
      list += (list.empty() ? "" : ", ") + f;
    }
    const QString tar = path("lacking.tar");
    write(tar, features);
    const QString e = load_error(tar);
    const QString want =
        QString("lacking.tar was built for -mcpu=%1; this CPU lacks %2")
            .arg(QString::fromStdString(target_.cpu()), QString::fromStdString(list));
    QVERIFY2(e.contains(want), qPrintable(e));
  }

  // A package records every feature its -mcpu names, system ones too; a
  // guest whose hypervisor hides those (invpcid, rdseed, xsaves, pku ...)
  // loads it, as the JIT would run the same target there.
  void guestsHidingSystemFeaturesLoadCpuModelsPackages() {
    for (const test::GuestRun& run : test::guest_runs()) {
      const std::string features = codegen::Target::parse("llvm -mcpu=" + run.mcpu).isa_features();
      const QString tar = path(QString::fromStdString("guest_" + run.mcpu + ".tar"));
      write(tar, features, run.mcpu);
      const QString where = QString::fromStdString(run.mcpu + " on " + run.guest);
      try {
        runtime::Package package(tar.toStdString(), runtime::decode_cpu_features(run.cpuid));
        QCOMPARE(package.features(), features);
      } catch (const runtime::Error& e) {
        QFAIL(qPrintable(where + ": " + e.what()));
      }
    }
  }

  void guestWithoutAvx2RefusesHaswellPackages() {
    const QString tar = path("haswell.tar");
    write(tar, codegen::Target::parse("llvm -mcpu=haswell").isa_features(), "haswell");
    for (const runtime::CpuidSnapshot& cpuid :
         {test::without_avx2(test::as_vm_guest(test::haswell_cpuid())),
          test::without_avx2(test::zen5_vm_cpuid())}) {
      QString e;
      try {
        runtime::Package package(tar.toStdString(), runtime::decode_cpu_features(cpuid));
        e = QStringLiteral("<loaded without error>");
      } catch (const runtime::Error& error) {
        e = error.what();
      }
      QVERIFY2(e.endsWith("haswell.tar was built for -mcpu=haswell; this CPU lacks avx2"),
               qPrintable(e));
    }
  }

  void missingCompilerIsAClearError() {
    qputenv("LATHE_CC", "/nonexistent/cc");
    QString e;
    try {
      write(path("nocc.tar"), target_.features());
    } catch (const Error& error) {
      e = error.what();
    }
    qunsetenv("LATHE_CC");
    QVERIFY2(e.contains("no C compiler '/nonexistent/cc'"), qPrintable(e));
    QVERIFY(!QFile::exists(path("nocc.tar")));
  }

  void paramsTheGraphDoesNotTakeAreRefusedAtWriteTime() {
    const std::vector<char> object = codegen::emit_object(build_kernels(), target_);
    auto error_for = [&](std::map<std::string, NDArray> p) {
      try {
        driver::write_package(path("p.tar").toStdString(), object, graph(), p, "llvm", "");
      } catch (const Error& error) {
        return QString(error.what());
      }
      return QString("<no error>");
    };
    QString e = error_for({{"v", NDArray({1}, runtime::DataType::float32())}});
    QVERIFY2(e.contains("parameter 'v' is not an argument of the graph"), qPrintable(e));
    e = error_for({{"w", NDArray({kRows}, runtime::DataType::float32())}});
    QVERIFY2(e.contains("parameter 'w' is float32(32,); the graph expects float32(32, 128)"),
             qPrintable(e));
  }

  void linkErrorsCarryTheLinkerOutput() {
    const std::vector<char> not_an_object(256, 'x');
    QString e;
    try {
      driver::write_package(path("bad_object.tar").toStdString(), not_an_object, graph(), params(),
                            "llvm", "");
    } catch (const Error& error) {
      e = error.what();
    }
    QVERIFY2(e.contains("linking mod.so failed") && e.contains("kernels.o"), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
