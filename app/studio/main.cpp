// lathe-studio [MODEL]: the Lathe workbench; opens MODEL, or the bundled sample.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>

#include "studio/main_window.h"

int main(int argc, char** argv) {
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
  parser.addPositionalArgument(QStringLiteral("model"),
                               QStringLiteral("ONNX model to open (default: the bundled sample)"),
                               QStringLiteral("[MODEL]"));
  parser.process(app);

  lathe::studio::MainWindow window;
  window.show();
  const QStringList arguments = parser.positionalArguments();
  if (arguments.isEmpty())
    window.openSampleModel();
  else
    window.openModel(QFileInfo(arguments.first()).absoluteFilePath());
  return app.exec();
}
