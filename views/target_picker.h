// The studio's compile target, as TVM writes it ("llvm", "cuda -arch=sm_90"):
// an editable combo of common targets beside a line that says what is wrong
// with a text that does not parse. A text that parses becomes the target; one
// that does not leaves the target as it was and says why.
#pragma once

#include <QString>
#include <QWidget>

#include "driver/target.h"

class QComboBox;
class QLabel;

namespace lathe::views {

class TargetPicker : public QWidget {
  Q_OBJECT

 public:
  explicit TargetPicker(QWidget* parent = nullptr);

  const driver::Target& target() const { return target_; }
  // Parses `text` as the user's entry is (after the event loop turns once): true and targetChosen
  // (when it differs from the current target), or false and targetRejected.
  bool apply(const QString& text);

  QComboBox* combo() const { return combo_; }
  // Empty while the text shown parsed; else Target::parse's message.
  QString problem() const;

 signals:
  void targetChosen(const driver::Target& target);
  void targetRejected(const QString& text, const QString& message);

 private:
  void showProblem(const QString& message);

  driver::Target target_ = driver::Target::host();
  QComboBox* combo_ = nullptr;
  QLabel* problem_ = nullptr;
  bool applyPending_ = false;  // an entered text waits for the event loop
};

}  // namespace lathe::views
