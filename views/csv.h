// Comma-separated values as the studio's exports write them (the benchmark
// table, the roofline's kernels): RFC 4180 quoting, numbers that read back
// exactly enough for a spreadsheet.
#pragma once

#include <QString>

namespace lathe::views {

// A field with a comma, quote or line break is quoted, its quotes doubled.
inline QString csvField(QString text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n')))
    return text;
  text.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + text + QLatin1Char('"');
}

inline QString csvNumber(double value) {
  return QString::number(value, 'g', 8);
}

}  // namespace lathe::views
