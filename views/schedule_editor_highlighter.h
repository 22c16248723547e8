// Colours a schedule text the way a Python editor colours TVM's schedule
// tutorials: comments, strings, numbers, Python keywords, the te/tvm modules,
// schedule primitives, the task's tensors and the axis accessors.
#pragma once

#include <QList>
#include <QRegularExpression>
#include <QStringList>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace lathe::views {

class ScheduleHighlighter : public QSyntaxHighlighter {
  Q_OBJECT

 public:
  explicit ScheduleHighlighter(QTextDocument* document);

  // The task's tensor names, coloured as stages; rehighlights the document.
  void setTensorNames(const QStringList& names);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
    int group = 0;  // the capture group the format applies to
  };
  QList<Rule> rules_;  // keywords, modules, primitives, accessors, numbers
  Rule tensorRule_;    // rebuilt by setTensorNames
  Rule stringRule_;    // strings and comments go last: they override the rest
  QTextCharFormat commentFormat_;
};

}  // namespace lathe::views
