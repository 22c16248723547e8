// Background model loads: import + inspect in a pool thread, latest wins.
#include "studio/model_load_tracker.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <exception>

#include "driver/model_loader.h"
#include "studio/executor_inputs.h"
#include "support/error.h"

namespace lathe::studio {

namespace {

struct LoadOutcome {
  std::shared_ptr<const LoadedModel> model;  // null when the load failed
  QString summary;
  QStringList problems;
  std::vector<driver::DeclaredInput> openInputs;  // inputs whose shapes were left open
};

// The shapes of the arrays of the model's NAME.io.npz, which the Benchmark
// tab and Export Package run it on: they give what the model leaves symbolic.
std::map<std::string, Shape> ioArrayShapes(const QString& path, QStringList& notes) {
  const QString npz = ioNpzPathFor(path);
  if (npz.isEmpty()) return {};
  try {
    return driver::array_shapes_in(QFile::encodeName(npz).toStdString());
  } catch (const std::exception& e) {
    notes << QStringLiteral("%1 is not used: %2")
                 .arg(QFileInfo(npz).fileName(), QString::fromStdString(e.what()));
    return {};
  }
}

// Runs in a pool thread: touches nothing but its arguments. Every exception
// ends here, so a broken model can never take the studio down.
LoadOutcome loadModelFile(const QString& path, const std::map<std::string, Shape>& inputShapes) {
  LoadOutcome outcome;
  QElapsedTimer timer;
  timer.start();
  try {
    auto model = std::make_shared<LoadedModel>();
    model->path = path;
    model->inputShapes = inputShapes;
    driver::LoadOptions options;
    options.input_shapes = inputShapes;
    options.input_arrays = ioArrayShapes(path, model->notes);
    options.unfitting_arrays_are_notes = true;
    options.note = [&model](const std::string& note) {
      model->notes << QString::fromStdString(note);
    };
    model->graph = driver::load_model(QFile::encodeName(path).toStdString(), options);
    model->info = driver::inspect_graph(model->graph);
    model->milliseconds = timer.elapsed();
    outcome.model = std::move(model);
  } catch (const DiagnosticError& e) {
    if (const auto* open = dynamic_cast<const driver::OpenInputShapesError*>(&e))
      outcome.openInputs = open->open_inputs();
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

void ModelLoadTracker::load(const QString& path, const std::map<std::string, Shape>& inputShapes) {
  loads_.start([path, inputShapes] { return loadModelFile(path, inputShapes); },
               [this, path](const LoadOutcome& outcome) {
                 if (outcome.model)
                   emit loaded(outcome.model);
                 else if (!outcome.openInputs.empty())
                   emit inputShapesNeeded(path, outcome.openInputs, outcome.problems);
                 else
                   emit failed(path, outcome.summary, outcome.problems);
               },
               [this, path] { emit discarded(path); });
}

void ModelLoadTracker::cancel() {
  loads_.drop();
}

}  // namespace lathe::studio
