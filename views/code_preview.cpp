// The code preview's tabs and their refresh.
#include "views/code_preview.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QVBoxLayout>

namespace lathe::views {

namespace {

const QString kUnchanged = QStringLiteral("unchanged");

template <typename View = QPlainTextEdit>
View* makeCodeView(const QString& objectName) {
  auto* view = new View;
  view->setObjectName(objectName);
  view->setReadOnly(true);
  view->setLineWrapMode(QPlainTextEdit::NoWrap);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  return view;
}

}  // namespace

CodePreview::CodePreview(QWidget* parent) : QTabWidget(parent) {
  setDocumentMode(true);

  passCombo_ = new QComboBox;
  passCombo_->setObjectName(QStringLiteral("passCombo"));
  passCombo_->setToolTip(tr("The loop IR after this lowering pass"));
  passCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  passCombo_->setEnabled(false);
  connect(passCombo_, &QComboBox::currentIndexChanged, this, &CodePreview::showPass);
  passInfo_ = new QLabel;
  passInfo_->setObjectName(QStringLiteral("passInfo"));
  passInfo_->setForegroundRole(QPalette::PlaceholderText);

  loopIR_ = makeCodeView<AnnotatedCodeView>(QStringLiteral("loopIRView"));
  llvmIR_ = makeCodeView(QStringLiteral("llvmIRView"));
  assembly_ = makeCodeView(QStringLiteral("assemblyView"));

  auto* passRow = new QHBoxLayout;
  passRow->setContentsMargins(4, 4, 4, 0);
  passRow->addWidget(new QLabel(tr("After pass:")));
  passRow->addWidget(passCombo_);
  passRow->addWidget(passInfo_, 1);
  auto* loopPage = new QWidget;
  auto* loopLayout = new QVBoxLayout(loopPage);
  loopLayout->setContentsMargins(0, 0, 0, 0);
  loopLayout->setSpacing(2);
  loopLayout->addLayout(passRow);
  loopLayout->addWidget(loopIR_, 1);

  addTab(loopPage, tr("Loop IR"));
  addTab(llvmIR_, tr("LLVM IR"));
  addTab(assembly_, tr("Assembly"));

  notice_ = new QLabel;
  notice_->setObjectName(QStringLiteral("previewNotice"));
  notice_->setStyleSheet(QStringLiteral("color: #9a6700; padding-right: 6px;"));
  setCornerWidget(notice_, Qt::TopRightCorner);
  notice_->hide();
}

void CodePreview::setLoweringPasses(const QList<LoweringPassText>& passes) {
  const QString chosen =
      passCombo_->currentIndex() >= 0 && passCombo_->currentIndex() < passes_.size()
          ? passes_[passCombo_->currentIndex()].pass
          : QString();
  // The last pass was shown by default; a new list keeps showing its last.
  const bool followLast = passCombo_->currentIndex() == passCombo_->count() - 1;
  passes_ = passes;
  {
    const QSignalBlocker blocker(passCombo_);
    passCombo_->clear();
    for (qsizetype i = 0; i < passes.size(); ++i) {
      const LoweringPassText& p = passes[i];
      passCombo_->addItem(QStringLiteral("%1. %2%3")
                              .arg(i + 1)
                              .arg(p.pass, p.ir == kUnchanged ? tr(" (unchanged)") : QString()));
    }
  }
  int index = static_cast<int>(passes.size()) - 1;
  if (!followLast)
    for (qsizetype i = 0; i < passes.size(); ++i)
      if (passes[i].pass == chosen) index = static_cast<int>(i);
  passCombo_->setEnabled(!passes.isEmpty());
  {
    const QSignalBlocker blocker(passCombo_);
    passCombo_->setCurrentIndex(index);
  }
  showPass(index);
}

void CodePreview::showPass(int index) {
  if (index < 0 || index >= passes_.size()) {
    passInfo_->clear();
    return;
  }
  // An unchanged pass shows the IR of the last pass that changed it.
  int shown = index;
  while (shown > 0 && passes_[shown].ir == kUnchanged) --shown;
  const LoweringPassText& pass = passes_[index];
  QString info = tr("%1 ms").arg(pass.milliseconds, 0, 'f', 2);
  if (shown != index) info += tr(" · unchanged since %1").arg(passes_[shown].pass);
  passInfo_->setText(info);
  showLoopIR(passes_[shown].ir == kUnchanged ? QString() : passes_[shown].ir);
  emit passShown(pass.pass);
}

void CodePreview::showLoopIR(const QString& text) {
  setTextKeepingScroll(loopIR_, text);
  if (!annotatedIR_.isEmpty() && text == annotatedIR_) loopIR_->setAnnotations(loopAnnotations_);
}

void CodePreview::setLoopIRAnnotations(const QString& ir,
                                       const QList<LineAnnotation>& annotations) {
  annotatedIR_ = ir;
  loopAnnotations_ = annotations;
  loopIR_->setAnnotations(loopIR_->toPlainText() == ir ? annotations : QList<LineAnnotation>());
}

void CodePreview::setLlvmIR(const QString& text) {
  setTextKeepingScroll(llvmIR_, text);
}

void CodePreview::setAssemblyName(const QString& name) {
  setTabText(AssemblyTab, name);
}

void CodePreview::setAssembly(const QString& text) {
  setTextKeepingScroll(assembly_, text);
}

void CodePreview::clear(const QString& message) {
  passes_.clear();
  annotatedIR_.clear();
  loopAnnotations_.clear();
  {
    const QSignalBlocker blocker(passCombo_);
    passCombo_->clear();
  }
  passCombo_->setEnabled(false);
  passInfo_->clear();
  for (QPlainTextEdit* view : {static_cast<QPlainTextEdit*>(loopIR_), llvmIR_, assembly_})
    view->setPlainText(message);
  setNotice(QString());
}

void CodePreview::setNotice(const QString& notice) {
  notice_->setText(notice);
  notice_->setVisible(!notice.isEmpty());
}

QString CodePreview::notice() const {
  return notice_->text();
}

QString CodePreview::loopIRText() const {
  return loopIR_->toPlainText();
}

QString CodePreview::llvmIRText() const {
  return llvmIR_->toPlainText();
}

QString CodePreview::assemblyText() const {
  return assembly_->toPlainText();
}

QPlainTextEdit* CodePreview::codeView(Tab tab) const {
  switch (tab) {
    case LoopIRTab:
      return loopIR_;
    case LlvmIRTab:
      return llvmIR_;
    case AssemblyTab:
      return assembly_;
  }
  return nullptr;
}

void CodePreview::setTextKeepingScroll(QPlainTextEdit* view, const QString& text) {
  if (view->toPlainText() == text) return;
  // setPlainText scrolls to the top; the reader was looking elsewhere.
  const int vertical = view->verticalScrollBar()->value();
  const int horizontal = view->horizontalScrollBar()->value();
  view->setPlainText(text);
  view->verticalScrollBar()->setValue(vertical);
  view->horizontalScrollBar()->setValue(horizontal);
}

}  // namespace lathe::views
