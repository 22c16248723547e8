// The studio's settings in one typed place (after hotspot's settings.cpp):
// recent files and the window layout, persisted through QSettings on write.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QSettings>
#include <QStringList>

namespace lathe::studio {

class StudioSettings : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMaxRecentFiles = 10;

  explicit StudioSettings(QObject* parent = nullptr);

  // Most recent first. Files that no longer exist are dropped here, and
  // forgotten for good, so the menu never offers a model that cannot open.
  QStringList recentFiles();
  // Moves (or adds) the file to the front, keeping at most kMaxRecentFiles.
  void addRecentFile(const QString& path);
  void clearRecentFiles();

  QByteArray windowGeometry() const;
  void setWindowGeometry(const QByteArray& geometry);
  QByteArray windowState() const;
  void setWindowState(const QByteArray& state);

 signals:
  // Emitted only when the list actually changes.
  void recentFilesChanged(const QStringList& files);

 private:
  void storeRecentFiles(const QStringList& files);

  QSettings settings_;
};

}  // namespace lathe::studio
