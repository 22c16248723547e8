// A cuda package without a GPU: compiled for cuda -arch=sm_90, written as
// mod.ptx + mod.json (the target and every kernel's launch) + mod.params,
// read back member by member, assembled by CUDA's ptxas where it is
// installed, and refused on load with the reason when the driver is missing
// or is not the driver. CPU packages never touch CUDA. Running one on a GPU
// is tools/gpu/device_check.sh's work (docs/GPU-RESULTS.md).
#include <dlfcn.h>

#include <QtTest>
#include <cstdlib>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/gpu_module.h"
#include "driver/graph_compiler.h"
#include "driver/package_writer.h"
#include "runtime/c_api.h"
#include "runtime/package.h"
#include "runtime/params.h"

using namespace lathe;

namespace {

// y = relu(x @ w1 + b) @ w2: a GEMM with an epilogue and a plain one.
Graph mlp() {
  testing::GraphBuilder b;
  ValueId x = b.input("x", {1, 64});
  ValueId w1 = b.constant("w1", testing::random_tensor({64, 32}, 1));
  ValueId bias = b.constant("b", testing::random_tensor({32}, 2));
  ValueId w2 = b.constant("w2", testing::random_tensor({32, 10}, 3));
  ValueId h = b.add("Relu", {b.add("Add", {b.add("MatMul", {x, w1}), bias})});
  return b.finish({b.add("MatMul", {h, w2})});
}

driver::CompiledGraph compile_for(const std::string& target) {
  driver::CompileOptions options;
  options.target = driver::Target::parse(target);
  return driver::compile_graph(mlp(), options);
}

QString load_error(const std::string& path) {
  try {
    runtime::Package package(path);
  } catch (const runtime::Error& e) {
    return QString::fromStdString(e.what());
  }
  return "<loaded>";
}

// Sets an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty())
      unsetenv(name_);
    else
      setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

bool driver_present() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

}  // namespace

class TestCudaPackage : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("mlp.cuda.tar").toStdString();
    compiled_ = compile_for("cuda -arch=sm_90");
    module_ =
        driver::export_gpu_package(compiled_, driver::Target::parse("cuda -arch=sm_90"), path_);
  }

  void packageCarriesPtxAndLaunchRecords() {
    std::map<std::string, std::string> members = runtime::read_package_members(path_);
    QVERIFY(members.count("mod.ptx") && !members.count("mod.so"));
    QCOMPARE(members["mod.ptx"], module_.ptx);
    const runtime::GraphModuleDesc desc = runtime::parse_graph_json(members["mod.json"]);
    QCOMPARE(desc.target, std::string("cuda -arch=sm_90"));
    int kernels = 0;
    for (const runtime::GraphNode& node : desc.nodes) {
      if (!node.is_op()) continue;
      ++kernels;
      QVERIFY2(desc.launches.count(node.func_name), node.func_name.c_str());
      QVERIFY2(module_.ptx.find(".entry " + node.func_name) != std::string::npos,
               node.func_name.c_str());
    }
    QVERIFY(kernels >= 2);
    QCOMPARE(desc.launches.size(), module_.launches.size());
    for (const driver::GpuLaunch& l : module_.launches) {
      const runtime::KernelLaunch& r = desc.launches.at(l.kernel);
      QVERIFY2(r.grid == l.grid && r.block == l.block && r.shared_bytes == l.shared_bytes,
               l.kernel.c_str());
    }
    // The memory plan and the parameters are the compiler's.
    QCOMPARE(desc.storage_id, compiled_.desc.storage_id);
    const runtime::ParamMap params = runtime::load_params(members["mod.params"]);
    QCOMPARE(params.size(), compiled_.params.size());
    for (const auto& [name, value] : compiled_.params) {
      QVERIFY2(params.count(name), name.c_str());
      QCOMPARE(params.at(name).nbytes(), value.nbytes());
      QVERIFY(std::memcmp(params.at(name).data(), value.data(), value.nbytes()) == 0);
    }
  }

  void ptxAssemblesForSm90() {
    const QString ptxas = "/usr/local/cuda/bin/ptxas";
    if (!QFileInfo(ptxas).isExecutable()) QSKIP("no CUDA ptxas at /usr/local/cuda/bin");
    const QString ptx = dir_.filePath("mod.ptx");
    QFile file(ptx);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(module_.ptx));
    file.close();
    QProcess process;
    process.start(ptxas, {"-arch=sm_90", ptx, "-o", dir_.filePath("mod.cubin")});
    QVERIFY(process.waitForFinished(120000));
    QVERIFY2(process.exitCode() == 0, qPrintable(process.readAllStandardError()));
  }

  void withoutTheDriverItIsRefused() {
    if (driver_present()) QSKIP("this machine has libcuda.so.1: the refusal cannot happen here");
    const QString e = load_error(path_);
    QVERIFY2(e.startsWith(QString::fromStdString(path_) +
                          ": this package is for cuda; libcuda.so.1 is not available: cuda: "
                          "cannot open the CUDA driver libcuda.so.1"),
             qPrintable(e));
    // The C interface says the same.
    LatheModule* module = nullptr;
    QCOMPARE(lathe_module_load(path_.c_str(), &module), -1);
    QVERIFY(module == nullptr);
    QVERIFY2(QString(lathe_last_error()).contains("this package is for cuda"), lathe_last_error());
  }

  void anotherLibraryIsNotTheDriver() {
    ScopedEnv env("LATHE_CUDA_LIBRARY", "libm.so.6");
    const QString e = load_error(path_);
    QVERIFY2(e.contains("this package is for cuda; libm.so.6 is not available: cuda: libm.so.6 "
                        "does not define cuInit"),
             qPrintable(e));
  }

  // A CPU package loads and runs with the CUDA library pointing nowhere:
  // nothing on its path opens the driver.
  void cpuPackagesNeverTouchCuda() {
    ScopedEnv env("LATHE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
    const driver::CompiledGraph cpu = compile_for("llvm");
    const std::string path = dir_.filePath("mlp.cpu.tar").toStdString();
    driver::export_package(cpu, driver::Target::host(), path);
    QVERIFY(runtime::read_package_members(path).count("mod.so"));
    runtime::Package package(path);
    QCOMPARE(package.device().type, runtime::DeviceType::Host);
    std::vector<float> x(64, 0.5f);
    package.executor().set_input(0, x.data(), x.size() * sizeof(float));
    package.executor().run();
    QCOMPARE(package.executor().output(0).numel(), int64_t{10});
    LatheModule* module = nullptr;
    QCOMPARE(lathe_module_load(path.c_str(), &module), 0);
    QCOMPARE(QString(lathe_module_device(module)), QString("host"));
    lathe_module_free(module);
  }

  void brokenPackagesAreNamed() {
    // mod.json without launches: the writer refuses it.
    runtime::GraphModuleDesc desc = compiled_.desc;
    desc.target = "cuda -arch=sm_90";
    QString e;
    try {
      driver::write_gpu_package(dir_.filePath("bad.tar").toStdString(), module_.ptx, desc,
                                compiled_.params);
    } catch (const std::exception& error) {
      e = error.what();
    }
    QVERIFY2(e.contains("has no launch record"), qPrintable(e));
  }

 private:
  QTemporaryDir dir_;
  std::string path_;
  driver::CompiledGraph compiled_;
  driver::GpuModule module_;
};

QTEST_GUILESS_MAIN(TestCudaPackage)
#include "tst_cuda_package.moc"
