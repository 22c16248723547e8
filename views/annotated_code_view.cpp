// Notes painted over the viewport after each line's text, and a gutter
// beside it after Qt's code editor example (line numbers, and the marks).
#include "views/annotated_code_view.h"

#include <QHelpEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>
#include <algorithm>

namespace lathe::views {

class AnnotatedCodeView::Gutter : public QWidget {
 public:
  explicit Gutter(AnnotatedCodeView* view) : QWidget(view), view_(view) {
    setObjectName(QStringLiteral("codeGutter"));
  }
  QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { view_->paintGutter(event); }
  bool event(QEvent* event) override {
    if (event->type() == QEvent::ToolTip) {
      const auto* help = static_cast<QHelpEvent*>(event);
      // The gutter's rows are the viewport's: same y.
      const int line = view_->lineAt(QPoint(0, help->pos().y()));
      if (!view_->showToolTip(line, help->globalPos())) QToolTip::hideText();
      return true;
    }
    return QWidget::event(event);
  }

 private:
  AnnotatedCodeView* view_;
};

namespace {

constexpr int kMarkWidth = 6;
constexpr int kNoteGap = 3;  // characters between a line's text and its note

}  // namespace

AnnotatedCodeView::AnnotatedCodeView(QWidget* parent) : QPlainTextEdit(parent) {
  gutter_ = new Gutter(this);
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterGeometry(); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy)
      gutter_->scroll(0, dy);
    else
      gutter_->update(0, rect.y(), gutter_->width(), rect.height());
  });
  // Annotations belong to the text they were computed for.
  connect(this, &QPlainTextEdit::textChanged, this, [this] {
    if (annotations_.isEmpty()) return;
    annotations_.clear();
    gutter_->update();
  });
  updateGutterGeometry();
}

void AnnotatedCodeView::setAnnotations(const QList<LineAnnotation>& annotations) {
  annotations_ = annotations;
  std::sort(annotations_.begin(), annotations_.end(),
            [](const LineAnnotation& a, const LineAnnotation& b) { return a.line < b.line; });
  viewport()->update();
  gutter_->update();
}

QList<int> AnnotatedCodeView::markedLines() const {
  QList<int> lines;
  for (const LineAnnotation& a : annotations_)
    if (a.mark.isValid()) lines.append(a.line);
  return lines;
}

QString AnnotatedCodeView::toolTipForLine(int line) const {
  const LineAnnotation* a = annotationAt(line);
  return a ? a->toolTip : QString();
}

int AnnotatedCodeView::lineAt(const QPoint& viewportPoint) const {
  // cursorForPosition clamps to the nearest line; below the last line is none.
  QTextBlock block = firstVisibleBlock();
  qreal top = blockBoundingGeometry(block).translated(contentOffset()).top();
  while (block.isValid()) {
    const qreal bottom = top + blockBoundingRect(block).height();
    if (viewportPoint.y() >= top && viewportPoint.y() < bottom) return block.blockNumber();
    if (top > viewportPoint.y()) break;
    top = bottom;
    block = block.next();
  }
  return -1;
}

QRectF AnnotatedCodeView::lineGeometry(int line) const {
  const QTextBlock block = document()->findBlockByNumber(line);
  return block.isValid() ? blockBoundingGeometry(block).translated(contentOffset()) : QRectF();
}

int AnnotatedCodeView::gutterWidth() const {
  int digits = 1;
  for (int n = std::max(1, blockCount()); n >= 10; n /= 10) ++digits;
  return 6 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits + kMarkWidth + 4;
}

const LineAnnotation* AnnotatedCodeView::annotationAt(int line) const {
  const auto it = std::lower_bound(annotations_.begin(), annotations_.end(), line,
                                   [](const LineAnnotation& a, int l) { return a.line < l; });
  return it != annotations_.end() && it->line == line ? &*it : nullptr;
}

void AnnotatedCodeView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  updateGutterGeometry();
}

void AnnotatedCodeView::updateGutterGeometry() {
  setViewportMargins(gutterWidth(), 0, 0, 0);
  const QRect r = contentsRect();
  gutter_->setGeometry(r.left(), r.top(), gutterWidth(), r.height());
}

void AnnotatedCodeView::paintEvent(QPaintEvent* event) {
  QPlainTextEdit::paintEvent(event);
  if (annotations_.isEmpty()) return;
  QPainter painter(viewport());
  QFont font = this->font();
  font.setItalic(true);
  painter.setFont(font);
  painter.setPen(palette().color(QPalette::PlaceholderText));
  const qreal gap = fontMetrics().horizontalAdvance(QLatin1Char(' ')) * kNoteGap;
  const QPointF offset = contentOffset();
  for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
    const QRectF box = blockBoundingGeometry(block).translated(offset);
    if (box.top() > event->rect().bottom()) break;
    const LineAnnotation* a = annotationAt(block.blockNumber());
    if (!a || a->note.isEmpty() || !block.layout() || block.layout()->lineCount() == 0) continue;
    const QTextLine line = block.layout()->lineAt(0);
    painter.drawText(
        QPointF(box.left() + line.naturalTextWidth() + gap, box.top() + line.y() + line.ascent()),
        a->note);
  }
}

bool AnnotatedCodeView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    if (!showToolTip(lineAt(help->pos()), help->globalPos())) QToolTip::hideText();
    return true;
  }
  return QPlainTextEdit::viewportEvent(event);
}

bool AnnotatedCodeView::showToolTip(int line, const QPoint& globalPos) {
  const QString text = toolTipForLine(line);
  if (text.isEmpty()) return false;
  QToolTip::showText(globalPos, text, this);
  return true;
}

void AnnotatedCodeView::paintGutter(QPaintEvent* event) {
  QPainter painter(gutter_);
  painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
  const int numberRight = gutter_->width() - kMarkWidth - 6;
  const QPointF offset = contentOffset();
  for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
    const QRectF box = blockBoundingGeometry(block).translated(offset);
    if (box.top() > event->rect().bottom()) break;
    if (!block.isVisible() || box.bottom() < event->rect().top()) continue;
    const int top = static_cast<int>(box.top());
    const int height = static_cast<int>(box.height());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(0, top, numberRight, height, Qt::AlignRight | Qt::AlignVCenter,
                     QString::number(block.blockNumber() + 1));
    const LineAnnotation* a = annotationAt(block.blockNumber());
    if (a && a->mark.isValid())
      painter.fillRect(gutter_->width() - kMarkWidth - 2, top + 1, kMarkWidth, height - 2, a->mark);
  }
}

}  // namespace lathe::views
