// Schedule text highlighting, one regular expression per kind of word.
#include "views/schedule_editor_highlighter.h"

#include <QColor>

#include "views/schedule_editor_vocabulary.h"

namespace lathe::views {

namespace {

QTextCharFormat charFormat(const QColor& color, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) f.setFontWeight(QFont::Bold);
  f.setFontItalic(italic);
  return f;
}

}  // namespace

ScheduleHighlighter::ScheduleHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  QStringList primitiveNames;
  for (const SchedulePrimitive& p : schedulePrimitives()) primitiveNames << p.name;

  rules_.append({QRegularExpression(QStringLiteral(
                     R"(\b(import|from|as|for|in|if|else|and|or|not|None|True|False)\b)")),
                 charFormat(QColor(0x8e, 0x44, 0xad), true)});
  rules_.append({QRegularExpression(QStringLiteral(R"(\b(te|tvm)\b)")),
                 charFormat(QColor(0x1f, 0x61, 0x8d))});
  // A primitive is a method: coloured after its dot only, so a tensor that
  // happens to be called "split" keeps the tensor colour.
  rules_.append({QRegularExpression(
                     QStringLiteral(R"(\.(%1|create_schedule)\b)").arg(primitiveNames.join('|'))),
                 charFormat(QColor(0x0b, 0x6e, 0x4f), true), 1});
  rules_.append({QRegularExpression(QStringLiteral(R"(\.(op|axis|reduce_axis|leaf_iter_vars)\b)")),
                 charFormat(QColor(0x80, 0x80, 0x80), false, true), 1});
  rules_.append({QRegularExpression(QStringLiteral(R"(\b\d+(\.\d*)?\b)")),
                 charFormat(QColor(0xb9, 0x6a, 0x00))});
  stringRule_ = {QRegularExpression(QStringLiteral(R"("[^"]*"?|'[^']*'?)")),
                 charFormat(QColor(0xa6, 0x26, 0x1b))};
  commentFormat_ = charFormat(QColor(0x6a, 0x73, 0x7d), false, true);
  tensorRule_.format = charFormat(QColor(0x15, 0x4e, 0xa6), true);
}

void ScheduleHighlighter::setTensorNames(const QStringList& names) {
  QStringList escaped;
  for (const QString& name : names) escaped << QRegularExpression::escape(name);
  // An empty alternation would match everywhere; (?!) never matches.
  tensorRule_.pattern = QRegularExpression(
      escaped.isEmpty() ? QStringLiteral("(?!)")
                        : QStringLiteral(R"(\b(%1)\b)").arg(escaped.join(QLatin1Char('|'))));
  rehighlight();
}

void ScheduleHighlighter::highlightBlock(const QString& text) {
  auto apply = [&](const Rule& rule) {
    if (rule.pattern.pattern().isEmpty()) return;  // no tensor names yet
    for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
      const QRegularExpressionMatch m = it.next();
      setFormat(static_cast<int>(m.capturedStart(rule.group)),
                static_cast<int>(m.capturedLength(rule.group)), rule.format);
    }
  };
  apply(tensorRule_);
  for (const Rule& rule : rules_) apply(rule);
  // A '#' inside a string does not start a comment: the comment is what
  // follows the first '#' outside strings.
  apply(stringRule_);
  bool inString = false;
  QChar quote;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (inString) {
      if (c == quote) inString = false;
    } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
      inString = true;
      quote = c;
    } else if (c == QLatin1Char('#')) {
      setFormat(i, static_cast<int>(text.size()) - i, commentFormat_);
      break;
    }
  }
}

}  // namespace lathe::views
