// The log dock's text view.
#include "views/log_view.h"

#include <QFontDatabase>
#include <QTime>

namespace lathe::views {

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::NoWrap);
  // A long session should not grow the log without bound.
  setMaximumBlockCount(10000);
}

void LogView::info(const QString& message) {
  append(message, QString());
}

void LogView::error(const QString& message) {
  append(message, QStringLiteral("#c0392b"));
}

void LogView::append(const QString& message, const QString& color) {
  const QString stamp = QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
  // Diagnostics span several lines; every line keeps its indentation.
  QString body = message.toHtmlEscaped();
  body.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  body.replace(QStringLiteral("  "), QStringLiteral("&nbsp;&nbsp;"));
  const QString html =
      color.isEmpty()
          ? QStringLiteral("<span style=\"color:gray\">%1</span> %2").arg(stamp, body)
          : QStringLiteral(
                "<span style=\"color:gray\">%1</span> <span style=\"color:%2\">%3</span>")
                .arg(stamp, color, body);
  appendHtml(html);
}

}  // namespace lathe::views
