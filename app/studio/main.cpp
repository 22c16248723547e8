// lathe-studio [--plugin NAME[,NAME]] [MODEL]: the Lathe workbench; opens
// MODEL, or the bundled sample, with the plugins' ops and external codegens.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <cstdio>

#include "driver/plugins.h"
#include "studio/main_window.h"

namespace {

// Takes --plugin VALUE / --plugin=VALUE out of argv before QApplication sees
// it: Qt reads "-plugin" and "--plugin" as its own (input plugins).
QString take_plugin_option(int& argc, char** argv) {
  QString value;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const QString arg = QString::fromLocal8Bit(argv[i]);
    if (arg == QStringLiteral("--plugin") && i + 1 < argc) {
      value = QString::fromLocal8Bit(argv[++i]);
    } else if (arg.startsWith(QStringLiteral("--plugin="))) {
      value = arg.mid(9);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const QString plugin_list = take_plugin_option(argc, argv);
  QApplication app(argc, argv);
  // Organization and application name decide where QSettings keeps the
  // recent files and window layout (~/.config/Lathe/lathe-studio.conf).
  QCoreApplication::setOrganizationName(QStringLiteral("Lathe"));
  QCoreApplication::setApplicationName(QStringLiteral("lathe-studio"));
  QCoreApplication::setApplicationVersion(QStringLiteral(LATHE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("The Lathe workbench: see what the compiler makes of a model."));
  parser.addHelpOption();
  parser.addVersionOption();
  // Listed for --help; take_plugin_option reads it.
  const QCommandLineOption plugins(
      QStringLiteral("plugin"),
      QStringLiteral("load plugins: NAME.so on LATHE_PLUGIN_PATH or in lib/lathe/plugins, or a "
                     "path; their external codegens compile, run and benchmark every model"),
      QStringLiteral("NAME[,NAME]"));
  parser.addOption(plugins);
  parser.addPositionalArgument(QStringLiteral("model"),
                               QStringLiteral("ONNX model to open (default: the bundled sample)"),
                               QStringLiteral("[MODEL]"));
  parser.process(app);
  // Before any window: plugins load before anything compiles.
  if (!plugin_list.isEmpty()) {
    try {
      lathe::driver::load_plugins(plugin_list.toStdString());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lathe-studio: error: %s\n", e.what());
      return 1;
    }
  }

  lathe::studio::MainWindow window;
  window.show();
  const QStringList arguments = parser.positionalArguments();
  if (arguments.isEmpty())
    window.openSampleModel();
  else
    window.openModel(QFileInfo(arguments.first()).absoluteFilePath());
  return app.exec();
}
