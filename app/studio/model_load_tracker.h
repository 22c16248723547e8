// Loads models off the GUI thread through a views::JobTracker: only the
// newest request's outcome is delivered. load_model cannot be interrupted, so
// an older load runs to its end, but its result is dropped.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "driver/model_info.h"
#include "ir/graph.h"
#include "views/job_tracker.h"

namespace lathe::studio {

struct LoadedModel {
  QString path;
  Graph graph;
  driver::ModelInfo info;  // computed in the background along with the import
  qint64 milliseconds = 0;
};

class ModelLoadTracker : public QObject {
  Q_OBJECT

 public:
  explicit ModelLoadTracker(QObject* parent = nullptr);

  // Starts loading `path`; any load still running is superseded.
  void load(const QString& path);
  // Drops the outcome of the load running, if any: the importer cannot be
  // interrupted, so it runs to its end in the background and is discarded.
  void cancel();
  bool isLoading() const { return loads_.isBusy(); }

 signals:
  void loadingChanged(bool loading);
  void loaded(std::shared_ptr<const LoadedModel> model);
  // `problems` holds one line per problem found (DiagnosticError lists them all).
  void failed(const QString& path, const QString& summary, const QStringList& problems);
  // A superseded load finished; its outcome was ignored.
  void discarded(const QString& path);

 private:
  views::JobTracker loads_{this};
};

}  // namespace lathe::studio
