// The plugin loader's answers to every way a plugin can be wrong: missing,
// not a library, not a plugin, built for another ABI, redefining an op, or
// failing half-way through its registration (which must leave nothing behind).
#include <QtTest>

#include <QTemporaryDir>
#include <cstdlib>

#include "driver/plugins.h"
#include "plugin/plugin_api.h"
#include "plugin/registrar.h"
#include "support/error.h"

using namespace lathe;

namespace {

// The message load_plugin throws, or "" when it loads.
QString load_error(const std::string& name_or_path) {
  try {
    driver::load_plugin(name_or_path);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// The names every registry a plugin extends holds.
struct RegistryNames {
  std::vector<std::string> ops, computes, codegens;
};

RegistryNames registry_names() {
  return {OpRegistry::global().names(), topi::OpStrategyRegistry::global().names(),
          passes::ExternalCodegenRegistry::global().names()};
}

void infer_nothing(InferContext&) {}
std::vector<te::Tensor> compute_nothing(const topi::ComputeContext&) {
  return {};
}

}  // namespace

class TestPluginLoader : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void missingPluginNamesTheFoldersSearched() {
    qputenv("LATHE_PLUGIN_PATH", dir_.path().toUtf8() + ":/nonexistent/plugins");
    const std::vector<std::string> path = driver::plugin_search_path();
    QCOMPARE(QString::fromStdString(path[0]), dir_.path());
    QCOMPARE(path[1], std::string("/nonexistent/plugins"));
    const QString e = load_error("no_such_plugin");
    QVERIFY2(e.contains("cannot find plugin 'no_such_plugin': no no_such_plugin.so in " +
                        dir_.path() + ", /nonexistent/plugins, "),
             qPrintable(e));
    QVERIFY2(e.contains("LATHE_PLUGIN_PATH"), qPrintable(e));
    qunsetenv("LATHE_PLUGIN_PATH");
  }

  void missingFileIsNamed() {
    const QString e = load_error("/nonexistent/plugins/dnnl.so");
    QCOMPARE(e, QString("plugin library '/nonexistent/plugins/dnnl.so' does not exist"));
  }

  void unloadableLibraryIsNamedWithTheLoadersReason() {
    const QString path = dir_.filePath("garbage.so");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is no ELF file\n");
    f.close();
    // Found by name on the path, as a user's broken install would be.
    qputenv("LATHE_PLUGIN_PATH", dir_.path().toUtf8());
    const QString e = load_error("garbage");
    qunsetenv("LATHE_PLUGIN_PATH");
    QVERIFY2(e.startsWith("cannot load plugin library '" + path + "': "), qPrintable(e));
    QVERIFY2(e.contains("garbage.so"), qPrintable(e));
  }

  void libraryWithoutEntryPointIsNoPlugin() {
    const QString e = load_error(LATHE_RUNTIME_LIBRARY);
    QCOMPARE(e, QString("'%1' is no Lathe plugin: it has no lathe_plugin_entry entry point")
                    .arg(LATHE_RUNTIME_LIBRARY));
  }

  void mismatchedAbiNamesBothVersions() {
    const QString e = load_error(OLD_ABI_PLUGIN);
    QCOMPARE(e, QString("plugin '%1' was built for plugin ABI version %2, but this Lathe has "
                        "plugin ABI version %3; rebuild the plugin against this Lathe")
                    .arg(OLD_ABI_PLUGIN)
                    .arg(LATHE_PLUGIN_ABI_VERSION + 1)
                    .arg(LATHE_PLUGIN_ABI_VERSION));
    QVERIFY(driver::loaded_plugins().empty());
  }

  void pluginsCannotRedefineOps() {
    plugin::Registrar registrar("intruder");
    try {
      registrar.define_op("Relu", FusionKind::ElemWise, infer_nothing);
      QFAIL("redefined Relu");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString("plugin 'intruder' defines op 'Relu', which is already "
                                          "registered (built in or by another plugin)"));
    }
    try {
      registrar.define_kernel("Relu", nullptr);
      QFAIL("attached a kernel to an op it did not define");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString("plugin 'intruder' gives a reference kernel for op "
                                          "'Relu', which it did not define"));
    }
    // The registries themselves refuse a second definition, whoever asks.
    try {
      topi::OpStrategyRegistry::global().define_compute("Relu", compute_nothing);
      QFAIL("a second compute for Relu");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString("op 'Relu' already has a compute"));
    }
    try {
      OpRegistry::global().define("Relu", FusionKind::ElemWise, infer_nothing);
      QFAIL("a second definition of Relu");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString("op 'Relu' is already registered"));
    }
  }

  void failedRegistrationLeavesNothingBehind_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("cause");
    QTest::newRow("lathe::Error") << QString(HALF_REGISTERED_PLUGIN)
                                  << "its kernel table has no entry for the second op";
    QTest::newRow("std::exception")
        << QString(HALF_REGISTERED_STD_PLUGIN)
        << "vector::_M_range_check: __n (which is 2) >= this->size() (which is 2)";
  }

  void failedRegistrationLeavesNothingBehind() {
    QFETCH(QString, path);
    QFETCH(QString, cause);
    const RegistryNames before = registry_names();
    const QString expected =
        QString("plugin 'half_registered' (%1) failed to register: %2").arg(path, cause);
    QCOMPARE(load_error(path.toStdString()), expected);
    // It had defined an op (with kernel and compute) and a codegen before it threw.
    const RegistryNames after = registry_names();
    QVERIFY(!OpRegistry::global().find("test.HalfRegistered"));
    QVERIFY(!topi::OpStrategyRegistry::global().find("test.HalfRegistered"));
    QVERIFY(!passes::ExternalCodegenRegistry::global().find("half_registered"));
    QCOMPARE(after.ops, before.ops);
    QCOMPARE(after.computes, before.computes);
    QCOMPARE(after.codegens, before.codegens);
    QVERIFY(driver::loaded_plugins().empty());
    // Nothing is left to collide with: a second try fails for the same cause,
    // not because its op is "already registered".
    QCOMPARE(load_error(path.toStdString()), expected);
  }

  void loadsByNameOnceFromTheBuildTree() {
    const driver::LoadedPlugin& gelu = driver::load_plugin("contrib_gelu");
    QCOMPARE(gelu.name, std::string("contrib_gelu"));
    QVERIFY(QString::fromStdString(gelu.path).endsWith("/lib/lathe/plugins/contrib_gelu.so"));
    QCOMPARE(gelu.ops, (std::vector<std::string>{"com.microsoft.Gelu", "com.microsoft.FastGelu"}));
    // Loading again, by name or by path, is the same load.
    QCOMPARE(&driver::load_plugin("contrib_gelu"), &gelu);
    QCOMPARE(&driver::load_plugin(gelu.path), &gelu);
    QCOMPARE(driver::loaded_plugins().size(), size_t{1});
  }
};

QTEST_GUILESS_MAIN(TestPluginLoader)
#include "tst_plugin_loader.moc"
