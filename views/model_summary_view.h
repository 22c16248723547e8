// The studio's model summary: inputs, outputs, node and parameter counts,
// MACs and the op histogram of the loaded model, as a small two-column tree.
#pragma once

#include <QString>
#include <QTreeWidget>

#include "driver/model_info.h"

namespace lathe::views {

class ModelSummaryView : public QTreeWidget {
  Q_OBJECT

 public:
  explicit ModelSummaryView(QWidget* parent = nullptr);

  void setModelInfo(const QString& fileName, const driver::ModelInfo& info);
  void clearModelInfo();
};

}  // namespace lathe::views
