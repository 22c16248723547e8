// A read-only code view whose lines can carry notes drawn after their text
// (never part of it: what is selected and copied is the code), a coloured
// mark in a line-number gutter, and a tooltip on hovering either. The
// Schedule tab's loop IR uses it for each loop's costs and spill marks.
#pragma once

#include <QColor>
#include <QList>
#include <QPlainTextEdit>
#include <QString>

namespace lathe::views {

struct LineAnnotation {
  int line = 0;  // from 0
  QString note;  // drawn after the line's text
  QColor mark;   // the gutter mark; invalid for none
  QString toolTip;
};

class AnnotatedCodeView : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit AnnotatedCodeView(QWidget* parent = nullptr);

  // Replaces the annotations of the text shown; a new text clears them.
  void setAnnotations(const QList<LineAnnotation>& annotations);
  const QList<LineAnnotation>& annotations() const { return annotations_; }
  // The lines with a gutter mark, ascending.
  QList<int> markedLines() const;
  // What hovering `line` shows; empty for a line without annotation.
  QString toolTipForLine(int line) const;
  // The line under a point of the viewport, or -1.
  int lineAt(const QPoint& viewportPoint) const;
  // Where `line` is drawn, in viewport coordinates.
  QRectF lineGeometry(int line) const;

  QWidget* gutter() const { return gutter_; }
  int gutterWidth() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  class Gutter;
  friend class Gutter;

  const LineAnnotation* annotationAt(int line) const;
  void paintGutter(QPaintEvent* event);
  bool showToolTip(int line, const QPoint& globalPos);
  void updateGutterGeometry();

  QList<LineAnnotation> annotations_;
  QWidget* gutter_ = nullptr;
};

}  // namespace lathe::views
