#include "views/target_picker.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <exception>

namespace lathe::views {

namespace {

// The targets offered; any other text in TVM's syntax can be typed.
struct Preset {
  const char* text;
  const char* toolTip;
};
constexpr Preset kPresets[] = {
    {"llvm", "This machine's CPU, through LLVM's native back end"},
    {"cuda -arch=sm_90", "NVIDIA Hopper (H100, H200), as PTX through LLVM's NVPTX back end"},
    {"cuda -arch=sm_80", "NVIDIA Ampere (A100), as PTX"},
    {"cuda -arch=sm_75", "NVIDIA Turing (T4), as PTX"},
};

}  // namespace

TargetPicker::TargetPicker(QWidget* parent) : QWidget(parent) {
  combo_ = new QComboBox;
  combo_->setObjectName(QStringLiteral("targetCombo"));
  combo_->setEditable(true);
  // Entering a text applies it; it does not become a preset.
  combo_->setInsertPolicy(QComboBox::NoInsert);
  combo_->setMinimumContentsLength(24);
  combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  for (const Preset& preset : kPresets) {
    combo_->addItem(QString::fromLatin1(preset.text));
    combo_->setItemData(combo_->count() - 1, tr(preset.toolTip), Qt::ToolTipRole);
  }
  combo_->setToolTip(
      tr("What the kernels compile for, in TVM's syntax: llvm [-mcpu=CPU] [-mattr=+f,...] or "
         "cuda [-arch=sm_NN] [-max_threads_per_block=N] [-max_shared_memory_per_block=B]. "
         "Press Enter to apply a typed target."));
  problem_ = new QLabel;
  problem_->setObjectName(QStringLiteral("targetProblem"));
  problem_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  problem_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Long messages are clipped here and whole in the tool tip and the log.
  problem_->setMaximumWidth(560);
  problem_->hide();

  // As wide as its text in a toolbar, not all the toolbar's room.
  setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
  combo_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 0, 4, 0);
  layout->addWidget(new QLabel(tr("Target:")));
  layout->addWidget(combo_);
  layout->addWidget(problem_);

  // A preset applies when chosen, a typed text when Enter is pressed. Enter
  // also activates the combo (index -1 for a text that is no preset), and the
  // line edit sees one Return twice (the combo hands the key it ignored back
  // to it): one apply after the event, not two messages.
  connect(combo_, &QComboBox::activated, this, [this](int index) {
    if (index >= 0) apply(combo_->itemText(index));
  });
  connect(combo_->lineEdit(), &QLineEdit::returnPressed, this, [this] {
    if (applyPending_) return;
    applyPending_ = true;
    QTimer::singleShot(0, this, [this] {
      applyPending_ = false;
      apply(combo_->currentText());
    });
  });
}

QString TargetPicker::problem() const {
  return problem_->isHidden() ? QString() : problem_->text();
}

bool TargetPicker::apply(const QString& text) {
  driver::Target parsed;
  try {
    parsed = driver::Target::parse(text.trimmed().toStdString());
  } catch (const std::exception& e) {
    const QString message = QString::fromStdString(e.what());
    showProblem(message);
    emit targetRejected(text, message);
    return false;
  }
  showProblem(QString());
  if (combo_->currentText() != text) combo_->setEditText(text);
  if (parsed == target_) return true;
  target_ = parsed;
  emit targetChosen(target_);
  return true;
}

void TargetPicker::showProblem(const QString& message) {
  problem_->setText(message);
  problem_->setToolTip(message);
  problem_->setVisible(!message.isEmpty());
  combo_->lineEdit()->setStyleSheet(message.isEmpty() ? QString()
                                                      : QStringLiteral("color: #c0392b;"));
}

}  // namespace lathe::views
