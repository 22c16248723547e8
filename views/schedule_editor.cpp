// The schedule editor: completion after Qt's Custom Completer example, the
// line-number gutter after its Code Editor example.
#include "views/schedule_editor.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTextBlock>
#include <QToolTip>
#include <algorithm>

#include "driver/schedule_names.h"
#include "views/schedule_editor_highlighter.h"

namespace lathe::views {

namespace {

const QColor kErrorColor(0xc0, 0x39, 0x2b);
const QColor kCurrentLineColor(0xfd, 0xf6, 0xe3);
// The popup opens by itself once a name has this many characters (always
// after a method's dot; Ctrl+Space opens it at any point).
constexpr int kAutoCompleteLength = 2;

bool isNameChar(QChar c) {
  return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// Whether `left` (a line up to the cursor) ends inside a comment or a string.
bool inCommentOrString(const QString& left) {
  QChar quote;
  for (const QChar c : left) {
    if (!quote.isNull()) {
      if (c == quote) quote = QChar();
    } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
      quote = c;
    } else if (c == QLatin1Char('#')) {
      return true;
    }
  }
  return !quote.isNull();
}

}  // namespace

QString ScheduleEditorDiagnostic::location() const {
  if (line <= 0) return {};
  return column > 0 ? QStringLiteral("line %1, column %2").arg(line).arg(column)
                    : QStringLiteral("line %1").arg(line);
}

class ScheduleEditor::LineNumberArea : public QWidget {
 public:
  explicit LineNumberArea(ScheduleEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return {editor_->lineNumberAreaWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { editor_->paintLineNumbers(event); }

 private:
  ScheduleEditor* editor_;
};

ScheduleEditor::ScheduleEditor(QWidget* parent)
    : QPlainTextEdit(parent),
      highlighter_(new ScheduleHighlighter(document())),
      completer_(new QCompleter(this)),
      completionModel_(new QStandardItemModel(this)),
      lineNumberArea_(new LineNumberArea(this)) {
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabStopDistance(4 * fontMetrics().horizontalAdvance(QLatin1Char(' ')));

  completer_->setWidget(this);
  completer_->setModel(completionModel_);
  completer_->setCompletionRole(CompletionRole);
  completer_->setCaseSensitivity(Qt::CaseInsensitive);
  completer_->setFilterMode(Qt::MatchStartsWith);
  completer_->setCompletionMode(QCompleter::PopupCompletion);
  completer_->setWrapAround(false);
  completer_->popup()->setFont(mono);
  completer_->popup()->setObjectName(QStringLiteral("scheduleCompletionPopup"));
  connect(completer_, qOverload<const QModelIndex&>(&QCompleter::activated), this,
          &ScheduleEditor::insertCompletion);

  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, &ScheduleEditor::updateLineNumberArea);
  connect(this, &QPlainTextEdit::cursorPositionChanged, this,
          &ScheduleEditor::refreshExtraSelections);
  setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
  refreshExtraSelections();
}

ScheduleEditor::~ScheduleEditor() = default;

void ScheduleEditor::setVocabulary(const ScheduleVocabulary& vocabulary) {
  vocabulary_ = vocabulary;
  highlighter_->setTensorNames(vocabulary.tensors);
}

void ScheduleEditor::replaceText(const QString& text) {
  if (text == toPlainText()) return;
  QTextCursor cursor(document());
  cursor.beginEditBlock();
  cursor.select(QTextCursor::Document);
  cursor.insertText(text);
  cursor.endEditBlock();
  cursor.movePosition(QTextCursor::Start);
  setTextCursor(cursor);
}

// ---- diagnostics ----

QTextCursor ScheduleEditor::diagnosticRange(const ScheduleEditorDiagnostic& d) const {
  if (d.line < 1 || d.line > document()->blockCount()) return {};
  const QTextBlock block = document()->findBlockByNumber(d.line - 1);
  const QString text = block.text();
  int firstChar = 0;
  while (firstChar < text.size() && text[firstChar].isSpace()) ++firstChar;
  int lastChar = static_cast<int>(text.size());
  while (lastChar > firstChar && text[lastChar - 1].isSpace()) --lastChar;
  if (firstChar == lastChar) return {};  // nothing on the line to underline

  int start = firstChar, end = lastChar;
  // Errors the primitives raise point at their statement (its first column):
  // the whole statement is underlined. Any other column names one token.
  const int column = d.column - 1;
  if (column > firstChar && column < lastChar) {
    start = column;
    end = column + 1;
    if (isNameChar(text[column]))
      while (end < lastChar && isNameChar(text[end])) ++end;
  } else if (column >= lastChar) {
    // Past the end (an unclosed bracket, a missing argument): the last character.
    start = lastChar - 1;
  }
  QTextCursor cursor(block);
  cursor.setPosition(block.position() + start);
  cursor.setPosition(block.position() + end, QTextCursor::KeepAnchor);
  return cursor;
}

void ScheduleEditor::setDiagnostics(const QList<ScheduleEditorDiagnostic>& diagnostics) {
  diagnostics_ = diagnostics;
  underlines_.clear();
  diagnosticLines_.clear();
  for (const ScheduleEditorDiagnostic& d : diagnostics) {
    QTextCursor range = diagnosticRange(d);
    if (range.isNull()) continue;
    QTextEdit::ExtraSelection underline;
    underline.cursor = range;
    underline.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    underline.format.setUnderlineColor(kErrorColor);
    underline.format.setToolTip(d.message);
    underlines_.append(underline);
    diagnosticLines_.append(d.line - 1);
  }
  refreshExtraSelections();
  lineNumberArea_->update();
}

QString ScheduleEditor::diagnosticAt(int position) const {
  for (qsizetype i = 0; i < underlines_.size(); ++i) {
    const QTextCursor& c = underlines_[i].cursor;
    if (position >= c.selectionStart() && position < c.selectionEnd())
      return underlines_[i].format.toolTip();
  }
  return {};
}

void ScheduleEditor::refreshExtraSelections() {
  QList<QTextEdit::ExtraSelection> selections;
  if (!isReadOnly()) {
    QTextEdit::ExtraSelection line;
    line.format.setBackground(kCurrentLineColor);
    line.format.setProperty(QTextFormat::FullWidthSelection, true);
    line.cursor = textCursor();
    line.cursor.clearSelection();
    selections.append(line);
  }
  selections.append(underlines_);
  setExtraSelections(selections);
}

bool ScheduleEditor::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString message = diagnosticAt(cursorForPosition(help->pos()).position());
    if (message.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), message, viewport());
    return true;
  }
  return QPlainTextEdit::viewportEvent(event);
}

// ---- line numbers ----

int ScheduleEditor::lineNumberAreaWidth() const {
  int digits = 1;
  for (int max = std::max(1, blockCount()); max >= 10; max /= 10) ++digits;
  return 12 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(digits, 3);
}

void ScheduleEditor::updateLineNumberArea(const QRect& rect, int dy) {
  if (dy)
    lineNumberArea_->scroll(0, dy);
  else
    lineNumberArea_->update(0, rect.y(), lineNumberArea_->width(), rect.height());
}

void ScheduleEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect area = contentsRect();
  lineNumberArea_->setGeometry(
      QRect(area.left(), area.top(), lineNumberAreaWidth(), area.height()));
}

void ScheduleEditor::paintLineNumbers(QPaintEvent* event) {
  QPainter painter(lineNumberArea_);
  painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
  QTextBlock block = firstVisibleBlock();
  int number = block.blockNumber();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  int bottom = top + qRound(blockBoundingRect(block).height());
  const int current = textCursor().blockNumber();
  QFont bold = font();
  bold.setBold(true);
  while (block.isValid() && top <= event->rect().bottom()) {
    if (block.isVisible() && bottom >= event->rect().top()) {
      const bool error = diagnosticLines_.contains(number);
      painter.setPen(error ? kErrorColor : palette().color(QPalette::PlaceholderText));
      painter.setFont(error || number == current ? bold : font());
      painter.drawText(0, top, lineNumberArea_->width() - 6, fontMetrics().height(), Qt::AlignRight,
                       QString::number(number + 1));
    }
    block = block.next();
    top = bottom;
    bottom = top + qRound(blockBoundingRect(block).height());
    ++number;
  }
}

// ---- completion ----

ScheduleEditor::CompletionContext ScheduleEditor::completionContext() const {
  const QTextCursor cursor = textCursor();
  const QString left = cursor.block().text().left(cursor.positionInBlock());
  if (inCommentOrString(left)) return {};
  // A method of a stage ("s[C].sp") or of the schedule ("s.ca").
  static const QRegularExpression stageMethod(QStringLiteral(R"([\]\)]\.(\w*)$)"));
  static const QRegularExpression scheduleMethod(QStringLiteral(R"((?:^|[^\w.])s\.(\w*)$)"));
  // A name, possibly dotted and indexed: "relu.op.axis[", "ow_ch".
  static const QRegularExpression name(
      QStringLiteral(R"((?:^|[^\w.\]])([A-Za-z_][\w]*(?:\.\w*|\[\d*\]?)*)$)"));
  QRegularExpressionMatch m = stageMethod.match(left);
  if (m.hasMatch()) return {CompletionContext::Kind::StageMethod, m.captured(1)};
  m = scheduleMethod.match(left);
  if (m.hasMatch()) return {CompletionContext::Kind::ScheduleMethod, m.captured(1)};
  m = name.match(left);
  if (m.hasMatch()) return {CompletionContext::Kind::Name, m.captured(1)};
  return {};
}

void ScheduleEditor::fillCompletionModel(CompletionContext::Kind kind) {
  completionModel_->clear();
  completionKind_ = kind;
  auto add = [this](const QString& completion, const QString& display, const QString& toolTip) {
    auto* item = new QStandardItem(display);
    item->setData(completion, CompletionRole);
    item->setToolTip(toolTip);
    item->setEditable(false);
    completionModel_->appendRow(item);
  };
  using Kind = CompletionContext::Kind;
  if (kind == Kind::StageMethod || kind == Kind::ScheduleMethod) {
    for (const SchedulePrimitive& p : schedulePrimitives())
      if (p.onSchedule == (kind == Kind::ScheduleMethod)) add(p.name, p.signature, p.signature);
    if (kind == Kind::StageMethod)
      add(QStringLiteral("op"), QStringLiteral("op  (.axis, .reduce_axis)"),
          QStringLiteral("the stage's operation"));
    return;
  }
  if (kind != Kind::Name) return;
  const QStringList bound = boundNames(toPlainText());
  for (const QString& name : bound)
    if (!vocabulary_.tensors.contains(name))
      add(name, name + QStringLiteral("  (bound in the text)"), QString());
  for (const QString& tensor : vocabulary_.tensors)
    add(tensor,
        tensor + (vocabulary_.stages.contains(tensor) ? QStringLiteral("  (stage)")
                                                      : QStringLiteral("  (input)")),
        QString());
  for (const ScheduleAxis& axis : vocabulary_.axes) {
    const QString detail =
        axis.extent > 0 ? QStringLiteral("%1 · %2").arg(axis.name).arg(axis.extent) : axis.name;
    add(axis.expression, QStringLiteral("%1  %2").arg(axis.expression, detail),
        axis.reduce ? QStringLiteral("reduction axis %1").arg(detail)
                    : QStringLiteral("axis %1").arg(detail));
  }
  add(QStringLiteral("te.create_schedule"), QStringLiteral("te.create_schedule(ops) → s"),
      QString());
  // tensorize's second argument: the declared intrinsics, quoted.
  for (const driver::TensorIntrinsicName& t : driver::tensor_intrinsic_names()) {
    const QString name = QString::fromStdString(t.name);
    add(QStringLiteral("\"%1\"").arg(name), name + QStringLiteral("  (tensor intrinsic)"),
        QString::fromStdString(t.summary));
  }
}

bool ScheduleEditor::showCompletions(bool forced) {
  const CompletionContext context = completionContext();
  using Kind = CompletionContext::Kind;
  const bool method = context.kind == Kind::StageMethod || context.kind == Kind::ScheduleMethod;
  if (context.kind == Kind::None ||
      (!forced && !method && context.prefix.size() < kAutoCompleteLength)) {
    completer_->popup()->hide();
    return false;
  }
  // Names bound in the text change as it is typed: the model is rebuilt each time.
  fillCompletionModel(context.kind);
  completer_->setCompletionPrefix(context.prefix);
  const int count = completer_->completionCount();
  const bool complete =
      count == 1 && completer_->currentCompletion().compare(context.prefix, Qt::CaseSensitive) == 0;
  if (count == 0 || (complete && !forced)) {
    completer_->popup()->hide();
    return false;
  }
  completer_->popup()->setCurrentIndex(completer_->completionModel()->index(0, 0));
  QRect rect = cursorRect();
  rect.translate(viewportMargins().left(), 0);
  rect.setWidth(std::min(width(), completer_->popup()->sizeHintForColumn(0) +
                                      completer_->popup()->verticalScrollBar()->sizeHint().width() +
                                      8));
  completer_->complete(rect);
  return true;
}

QStringList ScheduleEditor::completionsAtCursor() {
  const CompletionContext context = completionContext();
  if (context.kind == CompletionContext::Kind::None) return {};
  fillCompletionModel(context.kind);
  completer_->setCompletionPrefix(context.prefix);
  QStringList completions;
  QAbstractItemModel* model = completer_->completionModel();
  for (int row = 0; row < model->rowCount(); ++row)
    completions << model->index(row, 0).data(CompletionRole).toString();
  return completions;
}

void ScheduleEditor::insertCompletion(const QModelIndex& index) {
  const QString completion = index.data(CompletionRole).toString();
  if (completion.isEmpty()) return;
  QTextCursor cursor = textCursor();
  const QString prefix = completer_->completionPrefix();
  cursor.beginEditBlock();
  cursor.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor, static_cast<int>(prefix.size()));
  cursor.insertText(completion);
  // A primitive is always called; open its argument list unless it is open.
  const bool method = completionKind_ == CompletionContext::Kind::StageMethod ||
                      completionKind_ == CompletionContext::Kind::ScheduleMethod;
  if (method && completion != QLatin1String("op") &&
      document()->characterAt(cursor.position()) != QLatin1Char('('))
    cursor.insertText(QStringLiteral("("));
  cursor.endEditBlock();
  setTextCursor(cursor);
}

void ScheduleEditor::keyPressEvent(QKeyEvent* event) {
  if (completer_->popup()->isVisible()) {
    // The popup handles these itself (choose, dismiss).
    switch (event->key()) {
      case Qt::Key_Enter:
      case Qt::Key_Return:
      case Qt::Key_Escape:
      case Qt::Key_Tab:
      case Qt::Key_Backtab:
        event->ignore();
        return;
      default:
        break;
    }
  }
  const bool forced = (event->modifiers() & Qt::ControlModifier) && event->key() == Qt::Key_Space;
  if (!forced) QPlainTextEdit::keyPressEvent(event);

  const bool typed = !event->text().isEmpty() &&
                     !(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier)) &&
                     event->key() != Qt::Key_Return && event->key() != Qt::Key_Enter;
  if (forced ||
      (typed && (isNameChar(event->text().back()) || event->text().back() == QLatin1Char('.') ||
                 event->key() == Qt::Key_Backspace))) {
    showCompletions(forced);
  } else if (completer_->popup()->isVisible()) {
    completer_->popup()->hide();
  }
}

}  // namespace lathe::views
