// The studio's log: what was opened, how long it took, and every problem a
// failed load reported, each line time-stamped. Errors stand out in colour.
#pragma once

#include <QPlainTextEdit>
#include <QString>

namespace lathe::views {

class LogView : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit LogView(QWidget* parent = nullptr);

  void info(const QString& message);
  void error(const QString& message);

 private:
  void append(const QString& message, const QString& color);
};

}  // namespace lathe::views
