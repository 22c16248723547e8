// Number formatting shared by the node table and the model summary.
#include "views/number_format.h"

#include <QLocale>

namespace lathe::views {

QString groupedNumber(qint64 value) {
  return QLocale().toString(value);
}

QString siNumber(double value, const QString& unit) {
  static const char* const kPrefixes[] = {"", "K", "M", "G", "T"};
  int prefix = 0;
  while (value >= 1000 && prefix < 4) {
    value /= 1000;
    ++prefix;
  }
  // Same precision as `lathe inspect`, so the studio and the CLI agree digit for digit.
  const QString number = QLocale().toString(value, 'f', prefix ? 2 : 0);
  const QString suffix = QLatin1String(kPrefixes[prefix]) + unit;
  return suffix.isEmpty() ? number : number + QLatin1Char(' ') + suffix;
}

}  // namespace lathe::views
