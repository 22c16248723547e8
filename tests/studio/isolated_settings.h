// A studio test's settings in a folder of its own run, never the user's:
// QSettings under `dir`, for the organization "LatheTest" and the application
// `name` (each test its own, so two tests running at once do not share one).
#pragma once

#include <QCoreApplication>
#include <QSettings>
#include <QString>

inline void isolate_settings(const QString& dir, const QString& name) {
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir);
  QCoreApplication::setOrganizationName(QStringLiteral("LatheTest"));
  QCoreApplication::setApplicationName(name);
}
