// How the studio writes large counts (MACs, parameters): grouped digits for
// exact values, SI prefixes for the "at a glance" form `lathe inspect` prints.
#pragma once

#include <QString>
#include <QtGlobal>

namespace lathe::views {

// 1753408 -> "1,753,408" in the user's locale.
QString groupedNumber(qint64 value);
// 1753408, "MAC" -> "1.75 MMAC"; 320, "" -> "320".
QString siNumber(double value, const QString& unit);

}  // namespace lathe::views
