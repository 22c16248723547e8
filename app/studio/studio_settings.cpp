// Settings keys and the recent-files rules.
#include "studio/studio_settings.h"

#include <QFileInfo>

namespace lathe::studio {

namespace {

const QString kRecentFilesKey = QStringLiteral("recentFiles");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");

}  // namespace

StudioSettings::StudioSettings(QObject* parent) : QObject(parent) {}

QStringList StudioSettings::recentFiles() {
  const QStringList stored = settings_.value(kRecentFilesKey).toStringList();
  QStringList existing;
  for (const QString& path : stored)
    if (QFileInfo::exists(path) && !existing.contains(path)) existing << path;
  if (existing.size() > kMaxRecentFiles)
    existing.erase(existing.begin() + kMaxRecentFiles, existing.end());
  if (existing != stored) storeRecentFiles(existing);
  return existing;
}

void StudioSettings::addRecentFile(const QString& path) {
  // One spelling per file, so "./a.onnx" and "/home/me/a.onnx" are one entry.
  const QString canonical = QFileInfo(path).canonicalFilePath();
  const QString entry = canonical.isEmpty() ? QFileInfo(path).absoluteFilePath() : canonical;
  QStringList files = recentFiles();
  files.removeAll(entry);
  files.prepend(entry);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  storeRecentFiles(files);
}

void StudioSettings::clearRecentFiles() {
  storeRecentFiles({});
}

void StudioSettings::storeRecentFiles(const QStringList& files) {
  if (settings_.value(kRecentFilesKey).toStringList() == files) return;
  settings_.setValue(kRecentFilesKey, files);
  settings_.sync();
  emit recentFilesChanged(files);
}

QByteArray StudioSettings::windowGeometry() const {
  return settings_.value(kGeometryKey).toByteArray();
}

void StudioSettings::setWindowGeometry(const QByteArray& geometry) {
  settings_.setValue(kGeometryKey, geometry);
  settings_.sync();
}

QByteArray StudioSettings::windowState() const {
  return settings_.value(kStateKey).toByteArray();
}

void StudioSettings::setWindowState(const QByteArray& state) {
  settings_.setValue(kStateKey, state);
  settings_.sync();
}

}  // namespace lathe::studio
