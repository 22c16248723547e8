// The CUDA driver through dlopen: a machine without NVIDIA's driver (or with
// something else under its name) gets a message that says so, and a machine
// with one describes its devices. Links the runtime alone: no CUDA at build time.
#include <QtTest>

#include "runtime/cuda_driver.h"
#include "runtime/ndarray.h"

using namespace lathe;
using runtime::CudaDriver;

namespace {

QString error_of(const std::string& library) {
  try {
    CudaDriver::open(library);
  } catch (const runtime::Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestCudaDriver : public QObject {
  Q_OBJECT

 private slots:
  void missingDriverIsNamed() {
    const QString message = error_of("liblathe-no-such-cuda.so.1");
    QVERIFY2(message.contains("cannot open the CUDA driver liblathe-no-such-cuda.so.1"),
             qPrintable(message));
    QVERIFY2(message.contains("no NVIDIA driver"), qPrintable(message));
    QVERIFY2(message.contains("CPU packages still do"), qPrintable(message));
  }

  void anotherLibraryIsNotTheDriver() {
    // libm is on every machine and defines no cuInit.
    const QString message = error_of("libm.so.6");
    QVERIFY2(message.contains("libm.so.6 does not define cuInit"), qPrintable(message));
  }

  // Lacking the newer functions: each one named, and why.
  void partialDriverNamesEveryMissingFunction() {
    const QString message = error_of(LATHE_PARTIAL_CUDA_DRIVER);
    for (const char* name :
         {"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuMemAlloc_v2",
          "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuModuleLoadDataEx", "cuLaunchKernel",
          "cuEventCreate", "cuEventElapsedTime_v2"})
      QVERIFY2(message.contains(name), qPrintable(message + " lacks " + name));
    QVERIFY2(!message.contains("cuDeviceGetName"), qPrintable(message));
    QVERIFY2(message.contains("the driver is too old for Lathe"), qPrintable(message));
  }

  // The CUDA toolkit's stub libcuda.so exports the driver's real symbol
  // table (its functions all fail): every name the binding asks for is one
  // NVIDIA's driver exports, and cuInit's failure is reported by name.
  void toolkitStubBindsEveryFunction() {
    const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (!QFileInfo::exists(stub)) QSKIP("no CUDA toolkit stub library at /usr/local/cuda");
    const QString message = error_of(stub);
    QVERIFY2(message.contains("cuInit failed: CUDA_ERROR_STUB_LIBRARY (34)"), qPrintable(message));
  }

  void theMachinesDriverOpensOrSaysWhy() {
    std::unique_ptr<CudaDriver> driver;
    try {
      driver = CudaDriver::open();
    } catch (const runtime::Error& e) {
      const QString message = QString::fromUtf8(e.what());
      QVERIFY2(message.startsWith("cuda: ") && message.contains("libcuda.so.1"),
               qPrintable(message));
      QSKIP(qPrintable("no CUDA driver on this machine: " + message));
    }
    QVERIFY(driver->driver_version() > 0);
    if (driver->device_count() > 0) QVERIFY(driver->device_memory(0) > 0);
    for (int i = 0; i < driver->device_count(); ++i) {
      QVERIFY(!driver->device_name(i).empty());
      QVERIFY(QString::fromStdString(driver->device_arch(i)).startsWith("sm_"));
    }
  }

  void deviceTypesHaveDlpackValues() {
    QCOMPARE(int(runtime::DeviceType::Host), 1);
    QCOMPARE(int(runtime::DeviceType::Cuda), 2);
    QCOMPARE(std::string(runtime::device_type_name(runtime::DeviceType::Cuda)),
             std::string("cuda"));
  }
};

QTEST_GUILESS_MAIN(TestCudaDriver)
#include "tst_cuda_driver.moc"
