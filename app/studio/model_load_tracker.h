// Loads models off the GUI thread through a views::JobTracker: only the
// newest request's outcome is delivered. load_model cannot be interrupted, so
// an older load runs to its end, but its result is dropped.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "driver/model_info.h"
#include "driver/model_loader.h"
#include "ir/graph.h"
#include "views/job_tracker.h"

namespace lathe::studio {

struct LoadedModel {
  QString path;
  // The shapes the user gave for inputs the model leaves open (empty when
  // none were asked for): what opening the model again passes.
  std::map<std::string, Shape> inputShapes;
  Graph graph;
  driver::ModelInfo info;  // computed in the background along with the import
  qint64 milliseconds = 0;
  // What the load assumed (a symbolic batch dimension taken as 1, an array of
  // NAME.io.npz left out), one sentence each, for the log.
  QStringList notes;
};

class ModelLoadTracker : public QObject {
  Q_OBJECT

 public:
  explicit ModelLoadTracker(QObject* parent = nullptr);

  // Starts loading `path`; any load still running is superseded. The model's
  // symbolic dimensions take their values from `inputShapes`, then from the
  // arrays of its NAME.io.npz (those that fit), and a batch dimension is 1.
  void load(const QString& path, const std::map<std::string, Shape>& inputShapes = {});
  // Drops the outcome of the load running, if any: the importer cannot be
  // interrupted, so it runs to its end in the background and is discarded.
  void cancel();
  bool isLoading() const { return loads_.isBusy(); }

 signals:
  void loadingChanged(bool loading);
  void loaded(std::shared_ptr<const LoadedModel> model);
  // `problems` holds one line per problem found (DiagnosticError lists them all).
  void failed(const QString& path, const QString& summary, const QStringList& problems);
  // The model leaves dimensions of `open` inputs symbolic and nothing gave
  // them a value (what is known is filled in); `problems` says which.
  void inputShapesNeeded(const QString& path, const std::vector<driver::DeclaredInput>& open,
                         const QStringList& problems);
  // A superseded load finished; its outcome was ignored.
  void discarded(const QString& path);

 private:
  views::JobTracker loads_{this};
};

}  // namespace lathe::studio
