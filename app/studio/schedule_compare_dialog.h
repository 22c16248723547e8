// The Schedule tab's Compare dialog: pick two schedules of the open kernel
// among its default, the editor's text, the best and every record of a
// records file and every entry of the edit journal, and see them side by side
// (views::ScheduleDiffView). Listing the sources, lowering, aligning and
// measuring run in the background; the newest request wins.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <vector>

#include "driver/kernel_roofline.h"
#include "driver/schedule_diff.h"
#include "driver/target.h"
#include "views/job_tracker.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

namespace lathe::views {
class ScheduleDiffView;
}

namespace lathe::studio {

struct OpenedScheduleTask;

class ScheduleCompareDialog : public QDialog {
  Q_OBJECT

 public:
  ScheduleCompareDialog(std::shared_ptr<const OpenedScheduleTask> task, const QString& editorText,
                        const QString& journalPath, const QString& recordsPath,
                        const driver::Target& target, QWidget* parent = nullptr);

  // Lists the sources again, with the records of `path`.
  void setRecordsPath(const QString& path);
  void chooseRecordsFile();
  // Compares the two chosen sources; compared or compareFailed follows.
  void compare();

  const std::vector<driver::DiffSchedule>& sources() const { return sources_; }
  QComboBox* sourceA() const { return sourceA_; }
  QComboBox* sourceB() const { return sourceB_; }
  QCheckBox* measureCheck() const { return measureCheck_; }
  QPushButton* compareButton() const { return compareButton_; }
  views::ScheduleDiffView* view() const { return view_; }
  QLabel* statusLine() const { return status_; }

 signals:
  void sourcesListed(int count);
  void compared();
  void compareFailed(const QString& message);

 private:
  void listSources();
  void setStatus(const QString& text, bool error);

  std::shared_ptr<const OpenedScheduleTask> task_;
  QString editorText_, journalPath_, recordsPath_;
  driver::Target target_;
  std::vector<driver::DiffSchedule> sources_;   // in the combos' order
  std::optional<driver::MachineRoof> machine_;  // measured once, at the first measured compare

  QComboBox* sourceA_ = nullptr;
  QComboBox* sourceB_ = nullptr;
  QLabel* recordsLabel_ = nullptr;
  QCheckBox* measureCheck_ = nullptr;
  QPushButton* compareButton_ = nullptr;
  QLabel* status_ = nullptr;
  views::ScheduleDiffView* view_ = nullptr;

  views::JobTracker listings_{this};
  // Serial: two measurements must never run at once.
  views::JobTracker comparisons_{this, views::JobTracker::Overlap::Serial};
};

}  // namespace lathe::studio
