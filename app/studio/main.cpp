// lathe-studio [--plugin NAME[,NAME]] [MODEL]: the Lathe workbench; opens
// MODEL (an ONNX model or a compiled package), or the bundled sample, with the
// plugins' ops and external codegens. The desktop entry (packaging/desktop)
// starts it on an .onnx file or a package this way.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <cstdio>

#include "driver/plugins.h"
#include "studio/application_icon.h"
#include "studio/main_window.h"
#include "views/target_picker.h"

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
  // Wayland compositors match the window to lathe-studio.desktop (its icon, its name) by this.
  QGuiApplication::setDesktopFileName(QStringLiteral("lathe-studio"));
  QApplication::setWindowIcon(lathe::studio::applicationIcon());

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
                               QStringLiteral("ONNX model or compiled package (.tar) to open "
                                              "(default: the bundled sample)"),
                               QStringLiteral("[MODEL]"));
  const QCommandLineOption quitWhenShown(
      QStringLiteral("quit-when-shown"),
      QStringLiteral("Quit once the model's graphs are laid out and shown, or the package's "
                     "contents (exit status 0), or when opening or laying it out fails or its "
                     "input shapes are not given (1): checks an installation"));
  parser.addOption(quitWhenShown);
  const QCommandLineOption target(
      QStringLiteral("target"),
      QStringLiteral("compile the kernels for TARGET, in TVM's syntax (default: llvm, this CPU; "
                     "e.g. \"cuda -arch=sm_90\"); the toolbar changes it"),
      QStringLiteral("TARGET"));
  parser.addOption(target);
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
  if (parser.isSet(target)) {
    if (!window.targetPicker()->apply(parser.value(target))) {
      std::fprintf(stderr, "lathe-studio: error: --target: %s\n",
                   qUtf8Printable(window.targetPicker()->problem()));
      return 1;
    }
  }
  if (parser.isSet(quitWhenShown)) {
    using lathe::studio::MainWindow;
    QObject::connect(&window, &MainWindow::graphsShown, &app, [](const QString& path) {
      qInfo("lathe-studio: %s shown", qUtf8Printable(path));
      QCoreApplication::exit(0);
    });
    QObject::connect(&window, &MainWindow::packageShown, &app, [](const QString& path) {
      qInfo("lathe-studio: package %s shown", qUtf8Printable(path));
      QCoreApplication::exit(0);
    });
    QObject::connect(&window, &MainWindow::loadFailed, &app, [](const QString& path) {
      qCritical("lathe-studio: cannot open %s", qUtf8Printable(path));
      QCoreApplication::exit(1);
    });
    QObject::connect(&window, &MainWindow::openingCancelled, &app, [](const QString& path) {
      qCritical("lathe-studio: %s not opened: its input shapes were not given",
                qUtf8Printable(path));
      QCoreApplication::exit(1);
    });
    QObject::connect(&window, &MainWindow::graphsFailed, &app,
                     [](const QString& path, const QString& message) {
                       qCritical("lathe-studio: graphs of %s failed: %s", qUtf8Printable(path),
                                 qUtf8Printable(message));
                       QCoreApplication::exit(1);
                     });
  }
  window.show();
  const QStringList arguments = parser.positionalArguments();
  if (arguments.isEmpty())
    window.openSampleModel();
  else
    window.openModel(QFileInfo(arguments.first()).absoluteFilePath());
  return app.exec();
}
