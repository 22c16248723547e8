// The tuning view's failed candidates: one row per trial that did not give a
// latency (instantiation, compile, runtime, timeout, wrong answer) with its
// task, trial, error and knobs; the schedule it tried is kept for a text view
// beside the table. An item model without widgets.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace lathe::views {

struct TuningFailure {
  int taskId = 0;  // the model's task id
  QString taskName;
  int trial = 0;  // the task's trial number, from 1
  QString errorKind;
  QString message;  // every line of it
  QString knobs;
  QString schedule;
};

class TuningFailuresModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { TaskColumn, TrialColumn, KindColumn, MessageColumn, KnobsColumn, ColumnCount };

  explicit TuningFailuresModel(QObject* parent = nullptr);

  void addFailure(const TuningFailure& failure);
  void clear();
  const QList<TuningFailure>& failures() const { return rows_; }
  const TuningFailure& failure(int row) const { return rows_[row]; }

  // What a reader of one failure wants at once: the error in full, then the
  // knobs and the schedule text that produced it.
  static QString describe(const TuningFailure& failure);

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QList<TuningFailure> rows_;
};

}  // namespace lathe::views
