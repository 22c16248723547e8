// File ▸ Export Package: compiles the shown model for a target, with the
// schedules of a records file if chosen (the tuner's records, the schedule
// editor's journal, or any file), and writes module.tar as `lathe compile
// --output` does, off the GUI thread with progress. "Run package" then loads
// the tar with the runtime alone, as a deployment would, runs it on the
// model's NAME.io.npz inputs or random ones and shows the time summary and
// the outputs' shapes. Every failure is shown in the dialog.
#pragma once

#include <QDialog>
#include <QString>
#include <memory>

#include "ir/graph.h"
#include "views/job_tracker.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace lathe::studio {

class ExportDialog : public QDialog {
  Q_OBJECT

 public:
  // Entries of the records combo, in order.
  enum RecordsChoice { NoRecords, TuningRecords, JournalRecords, OtherRecords };
  // Runs of the package timed after loading it.
  static constexpr int kRunRepeat = 10;

  ExportDialog(const QString& modelPath, std::shared_ptr<const Graph> graph,
               const QString& tuningRecordsPath, const QString& journalPath,
               QWidget* parent = nullptr);
  ~ExportDialog() override;

  void exportPackage();
  void runPackage();
  // Drops the work going (a compile runs to its end in the background).
  void cancel();
  bool isBusy() const { return busy_; }

  QLineEdit* targetEdit() const { return targetEdit_; }
  QComboBox* recordsCombo() const { return recordsCombo_; }
  QLineEdit* recordsFileEdit() const { return recordsFileEdit_; }
  QLineEdit* outputEdit() const { return outputEdit_; }
  QPushButton* exportButton() const { return exportButton_; }
  QPushButton* runButton() const { return runButton_; }
  QProgressBar* progressBar() const { return progress_; }
  QPlainTextEdit* report() const { return report_; }

 signals:
  void exported(const QString& path);
  void exportFailed(const QString& message);
  void packageRan(const QString& summary);
  void runFailed(const QString& message);

 protected:
  void reject() override;

 private:
  QString recordsPath() const;
  void updateRecordsChoice();
  void chooseOutputFile();
  void chooseRecordsFile();
  void setBusy(bool busy, const QString& stage = QString());
  void showReport(const QString& text, bool error);
  void updateRunButton();

  QString modelPath_;
  std::shared_ptr<const Graph> graph_;
  QString tuningRecordsPath_;
  QString journalPath_;
  views::JobTracker jobs_{this};  // exporting or running: only the newest job's outcome is shown
  bool busy_ = false;

  QLineEdit* targetEdit_ = nullptr;
  QComboBox* recordsCombo_ = nullptr;
  QLineEdit* recordsFileEdit_ = nullptr;
  QToolButton* recordsBrowse_ = nullptr;
  QLineEdit* outputEdit_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QPushButton* runButton_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* stage_ = nullptr;
  QPlainTextEdit* report_ = nullptr;
};

}  // namespace lathe::studio
