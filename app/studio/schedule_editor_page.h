// The Schedule tab: a task picker, the schedule editor beside the code it
// lowers to, and the measurements below. It wires the editor to the
// background tracker (previews as the user types, Measure) and to the edit
// journal (edits kept as records and restored on reopening).
#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "driver/kernel_workbench.h"
#include "studio/edit_journal.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;
class QToolButton;

namespace lathe::views {
class CodePreview;
class MeasurementTableModel;
class ScheduleEditor;
}  // namespace lathe::views

namespace lathe::studio {

struct GraphSnapshots;
struct OpenedScheduleTask;
class ScheduleCompareDialog;
class ScheduleEditorTracker;

class ScheduleEditorPage : public QWidget {
  Q_OBJECT

 public:
  // Edits are journaled to, and restored from, `journalPath`.
  explicit ScheduleEditorPage(const QString& journalPath, QWidget* parent = nullptr);
  ~ScheduleEditorPage() override;

  // The model whose tasks the page offers, once its graph passes have run.
  // The task open before stays open when the new model has an equal one.
  void setGraphSnapshots(std::shared_ptr<const GraphSnapshots> snapshots);
  // Opens task `id` of the listed tasks (the combo follows).
  void openTask(int id);

  void resetToDefault();
  // The fastest measured edit of the task in the journal, or in a records
  // file (`lathe tune` output, another journal).
  void loadBestFromJournal();
  void loadBestFromFile(const QString& path);
  void chooseRecordsFile();
  void measure();
  // For a GPU target: runs the edit once on the GPU simulator against the
  // reference (no GPU needed) and says whether it matches.
  void simulate();
  // The records file the Compare dialog offers first (the Tuning tab's).
  void setRecordsPath(const QString& path) { recordsPath_ = path; }
  // Opens the Compare dialog on the open task: two of its schedules side by side.
  ScheduleCompareDialog* compare();

  const std::vector<driver::KernelTask>& tasks() const { return tasks_; }
  // Null until a task has opened.
  std::shared_ptr<const OpenedScheduleTask> openedTask() const;
  views::ScheduleEditor* editor() const { return editor_; }
  views::CodePreview* preview() const { return preview_; }
  // The second code view Side by Side shows (hidden until then), the PTX or
  // assembly first; it shows what preview() shows.
  views::CodePreview* besidePreview() const { return besidePreview_; }
  QToolButton* besideButton() const { return besideButton_; }
  views::MeasurementTableModel* measurements() const { return measurements_; }
  ScheduleEditorTracker* tracker() const { return tracker_; }
  const EditJournal& journal() const { return journal_; }
  QComboBox* taskCombo() const { return taskCombo_; }
  // The line under the editor: the first diagnostic, or how the last preview went.
  QLabel* statusLine() const { return status_; }

 signals:
  void tasksListed(int count);
  void taskOpened(int id);
  // The preview shows `text` lowered (loop IR), and then all its code.
  void previewLowered(const QString& text);
  void previewEmitted(const QString& text);
  // The loop IR of `text` carries its loops' costs (`loops` annotated lines).
  void loopCostsShown(const QString& text, int loops);
  // The editor underlines the diagnostics of `text`; the preview kept the last good one.
  void diagnosticsShown(const QString& text, int count);
  void measurementAdded(int row);
  // For the studio's log.
  void logMessage(const QString& message, bool error);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* createToolbar();
  void showTaskList(std::shared_ptr<const GraphSnapshots> snapshots,
                    std::vector<driver::KernelTask> tasks);
  void showOpenedTask(std::shared_ptr<const OpenedScheduleTask> task);
  void editorTextChanged();
  void setStatus(const QString& text, bool error);
  void setTaskControlsEnabled(bool enabled);
  void journal(const std::function<void()>& write);
  QList<views::CodePreview*> previews() const { return {preview_, besidePreview_}; }

  EditJournal journal_;
  QString recordsPath_;
  ScheduleEditorTracker* tracker_ = nullptr;
  std::shared_ptr<const GraphSnapshots> snapshots_;
  std::vector<driver::KernelTask> tasks_;
  int pendingTask_ = -1;      // to open once the page is shown
  std::string openWorkload_;  // of the task open (or opening), kept across models

  QComboBox* taskCombo_ = nullptr;
  QToolButton* undoButton_ = nullptr;
  QToolButton* redoButton_ = nullptr;
  QToolButton* resetButton_ = nullptr;
  QToolButton* loadBestButton_ = nullptr;
  QToolButton* compareButton_ = nullptr;
  QPushButton* measureButton_ = nullptr;
  QPushButton* simulateButton_ = nullptr;  // shown for GPU targets
  QProgressBar* busy_ = nullptr;
  views::ScheduleEditor* editor_ = nullptr;
  QLabel* status_ = nullptr;
  views::CodePreview* preview_ = nullptr;
  views::CodePreview* besidePreview_ = nullptr;
  QToolButton* besideButton_ = nullptr;
  views::MeasurementTableModel* measurements_ = nullptr;
  QTableView* measurementTable_ = nullptr;
  QString loweredStatus_;       // how the last lowering went, for the status line
  double codegenMs_ = 0;        // of the LLVM IR shown, for the status line
  bool journalFailed_ = false;  // reported once
};

}  // namespace lathe::studio
