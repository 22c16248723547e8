// Background model loads: import + inspect in a pool thread, latest wins.
#include "studio/model_load_tracker.h"

#include <QElapsedTimer>
#include <QFile>
#include <exception>

#include "driver/model_loader.h"
#include "support/error.h"

namespace lathe::studio {

namespace {

struct LoadOutcome {
  std::shared_ptr<const LoadedModel> model;  // null when the load failed
  QString summary;
  QStringList problems;
};

// Runs in a pool thread: touches nothing but its arguments. Every exception
// ends here, so a broken model can never take the studio down.
LoadOutcome loadModelFile(const QString& path) {
  LoadOutcome outcome;
  QElapsedTimer timer;
  timer.start();
  try {
    auto model = std::make_shared<LoadedModel>();
    model->path = path;
    model->graph = driver::load_model(QFile::encodeName(path).toStdString());
    model->info = driver::inspect_graph(model->graph);
    model->milliseconds = timer.elapsed();
    outcome.model = std::move(model);
  } catch (const DiagnosticError& e) {
    // what() is the header followed by the diagnostics, one per line.
    const QString text = QString::fromStdString(e.what());
    outcome.summary = text.section(QLatin1Char('\n'), 0, 0);
    for (const Diagnostic& d : e.diagnostics())
      outcome.problems << QString::fromStdString(d.to_string());
  } catch (const std::exception& e) {
    const QStringList lines = QString::fromStdString(e.what()).split(QLatin1Char('\n'));
    outcome.summary = lines.value(0);
    outcome.problems = lines.mid(1);
  } catch (...) {
    outcome.summary = QStringLiteral("unknown error while loading the model");
  }
  return outcome;
}

}  // namespace

ModelLoadTracker::ModelLoadTracker(QObject* parent) : QObject(parent) {
  connect(&loads_, &views::JobTracker::busyChanged, this, &ModelLoadTracker::loadingChanged);
}

void ModelLoadTracker::load(const QString& path) {
  loads_.start([path] { return loadModelFile(path); },
               [this, path](const LoadOutcome& outcome) {
                 if (outcome.model)
                   emit loaded(outcome.model);
                 else
                   emit failed(path, outcome.summary, outcome.problems);
               },
               [this, path] { emit discarded(path); });
}

void ModelLoadTracker::cancel() {
  loads_.drop();
}

}  // namespace lathe::studio
