// What a schedule compiles to, in three read-only tabs: the loop IR after any
// lowering pass (chosen in a combo box), the optimised LLVM IR and the
// assembly. A refresh keeps the chosen pass and each tab's scroll position,
// so an edit's effect can be watched in place. The loop IR as compiled can
// carry per-line annotations (each loop's costs, spill marks in the gutter).
#pragma once

#include <QList>
#include <QString>
#include <QTabWidget>

#include "views/annotated_code_view.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;

namespace lathe::views {

// The loop IR after one lowering pass.
struct LoweringPassText {
  QString pass;
  QString ir;  // "unchanged" when the pass changed nothing (driver::PassSnapshot's convention)
  double milliseconds = 0;
};

class CodePreview : public QTabWidget {
  Q_OBJECT

 public:
  enum Tab { LoopIRTab, LlvmIRTab, AssemblyTab };

  explicit CodePreview(QWidget* parent = nullptr);

  // Replaces the passes; the combo keeps the pass chosen before when the new
  // list has it, else shows the last pass (the function as compiled).
  void setLoweringPasses(const QList<LoweringPassText>& passes);
  void setLlvmIR(const QString& text);
  void setAssembly(const QString& text);
  // What the assembly tab is called: "Assembly" for a CPU, "PTX" for a GPU.
  void setAssemblyName(const QString& name);
  // Annotations of the loop IR `ir`: shown whenever the loop IR tab shows
  // that text (the passes that print it), replaced by the next call.
  void setLoopIRAnnotations(const QString& ir, const QList<LineAnnotation>& annotations);
  // Clears every tab, with `message` in place of the code.
  void clear(const QString& message = QString());

  // A note above the code (why it is not current: "line 3 has an error …"),
  // or no note when empty.
  void setNotice(const QString& notice);
  QString notice() const;

  // The texts shown, for the tests.
  QString loopIRText() const;
  QString llvmIRText() const;
  QString assemblyText() const;
  QComboBox* passCombo() const { return passCombo_; }
  QPlainTextEdit* codeView(Tab tab) const;
  AnnotatedCodeView* loopIRView() const { return loopIR_; }

 signals:
  // The loop IR tab shows another pass (by the user's choice or a refresh).
  void passShown(const QString& pass);

 private:
  void showPass(int index);
  void showLoopIR(const QString& text);
  static void setTextKeepingScroll(QPlainTextEdit* view, const QString& text);

  QList<LoweringPassText> passes_;
  QComboBox* passCombo_ = nullptr;
  QLabel* passInfo_ = nullptr;
  QLabel* notice_ = nullptr;
  AnnotatedCodeView* loopIR_ = nullptr;
  QString annotatedIR_;  // the loop IR loopAnnotations_ belong to
  QList<LineAnnotation> loopAnnotations_;
  QPlainTextEdit* llvmIR_ = nullptr;
  QPlainTextEdit* assembly_ = nullptr;
};

}  // namespace lathe::views
