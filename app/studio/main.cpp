// lathe-studio [MODEL]: the Lathe workbench; opens MODEL (an ONNX model or a
// compiled package), or the bundled sample. The desktop entry
// (packaging/desktop) starts it on an .onnx file or a package this way.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>

#include "studio/application_icon.h"
#include "studio/main_window.h"

int main(int argc, char** argv) {
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
  parser.addPositionalArgument(QStringLiteral("model"),
                               QStringLiteral("ONNX model or compiled package (.tar) to open "
                                              "(default: the bundled sample)"),
                               QStringLiteral("[MODEL]"));
  const QCommandLineOption quitWhenShown(
      QStringLiteral("quit-when-shown"),
      QStringLiteral("Quit once the model's graphs are laid out and shown, or the package's "
                     "contents (exit status 0), or when opening or laying it out fails (1): "
                     "checks an installation"));
  parser.addOption(quitWhenShown);
  parser.process(app);

  lathe::studio::MainWindow window;
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
