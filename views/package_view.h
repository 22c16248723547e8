// A compiled package on one page: a summary (file, the target mod.so was built
// for, inputs, outputs, sizes) over three tables: the executor graph's nodes,
// the parameters and the memory plan (views/package_models).
#pragma once

#include <QString>
#include <QWidget>
#include <memory>

class QLabel;
class QTableView;
class QTabWidget;

namespace lathe::driver {
struct PackageContents;
}

namespace lathe::views {

class PackageNodeModel;
class PackageParamModel;
class PackageStorageModel;

class PackageView : public QWidget {
  Q_OBJECT

 public:
  explicit PackageView(QWidget* parent = nullptr);

  // `target`: what mod.so says it was built for ("llvm -mcpu=znver3"), or
  // empty when it could not be loaded here.
  void setContents(std::shared_ptr<const driver::PackageContents> contents, const QString& target);
  void clear();

  QLabel* summary() const { return summary_; }
  QTabWidget* tables() const { return tables_; }
  PackageNodeModel* nodeModel() const { return nodeModel_; }
  PackageParamModel* paramModel() const { return paramModel_; }
  PackageStorageModel* storageModel() const { return storageModel_; }

 private:
  QLabel* summary_ = nullptr;
  QTabWidget* tables_ = nullptr;
  PackageNodeModel* nodeModel_ = nullptr;
  PackageParamModel* paramModel_ = nullptr;
  PackageStorageModel* storageModel_ = nullptr;
  QTableView* nodeTable_ = nullptr;
  QTableView* paramTable_ = nullptr;
  QTableView* storageTable_ = nullptr;
};

}  // namespace lathe::views
