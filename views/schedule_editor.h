// The schedule text editor: line numbers, TVM schedule highlighting,
// completion of primitives, tensors and axes (as the text spells them), and
// the lowering's diagnostics underlined where they point, with their messages
// as tooltips. Undo and redo are QPlainTextEdit's own; replaceText keeps them.
#pragma once

#include <QList>
#include <QPlainTextEdit>
#include <QString>
#include <QStringList>
#include <QTextEdit>

#include "views/schedule_editor_vocabulary.h"

class QCompleter;
class QStandardItemModel;

namespace lathe::views {

class ScheduleHighlighter;

// One problem the lowering found: 1-based line and column (0 when it has no
// place in the text), as driver::ScheduleDiagnostic carries them.
struct ScheduleEditorDiagnostic {
  int line = 0;
  int column = 0;
  QString message;

  QString location() const;  // "line 3, column 17", or "" without a place
};

class ScheduleEditor : public QPlainTextEdit {
  Q_OBJECT

 public:
  // The role completion items match and insert by; the display role shows
  // signatures and extents.
  static constexpr int CompletionRole = Qt::UserRole + 1;

  explicit ScheduleEditor(QWidget* parent = nullptr);
  ~ScheduleEditor() override;

  void setVocabulary(const ScheduleVocabulary& vocabulary);
  const ScheduleVocabulary& vocabulary() const { return vocabulary_; }

  // Replaces the whole text as one step of the undo history.
  void replaceText(const QString& text);

  // Underlines each diagnostic at its line:column; an empty list clears them.
  void setDiagnostics(const QList<ScheduleEditorDiagnostic>& diagnostics);
  const QList<ScheduleEditorDiagnostic>& diagnostics() const { return diagnostics_; }
  // The wavy underlines drawn now; their cursors follow later edits.
  const QList<QTextEdit::ExtraSelection>& diagnosticSelections() const { return underlines_; }
  // The message of the diagnostic underlined at `position`, or "".
  QString diagnosticAt(int position) const;

  QCompleter* completer() const { return completer_; }
  // What the completion popup would list for the text left of the cursor
  // (the completion roles), as Ctrl+Space shows it.
  QStringList completionsAtCursor();

  int lineNumberAreaWidth() const;

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  class LineNumberArea;

  // Which completions apply where the cursor is: methods after "s[C]." or
  // "s.", names elsewhere; `prefix` is what the user typed of it.
  struct CompletionContext {
    enum class Kind { None, StageMethod, ScheduleMethod, Name } kind = Kind::None;
    QString prefix;
  };
  CompletionContext completionContext() const;
  void fillCompletionModel(CompletionContext::Kind kind);
  bool showCompletions(bool forced);
  void insertCompletion(const QModelIndex& index);

  void paintLineNumbers(QPaintEvent* event);
  void updateLineNumberArea(const QRect& rect, int dy);
  void refreshExtraSelections();
  QTextCursor diagnosticRange(const ScheduleEditorDiagnostic& diagnostic) const;

  ScheduleHighlighter* highlighter_ = nullptr;
  QCompleter* completer_ = nullptr;
  QStandardItemModel* completionModel_ = nullptr;
  CompletionContext::Kind completionKind_ = CompletionContext::Kind::None;
  LineNumberArea* lineNumberArea_ = nullptr;
  ScheduleVocabulary vocabulary_;
  QList<ScheduleEditorDiagnostic> diagnostics_;
  QList<QTextEdit::ExtraSelection> underlines_;
  QList<int> diagnosticLines_;  // 0-based block numbers, for the gutter
};

}  // namespace lathe::views
