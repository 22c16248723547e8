// The studio's inspector: everything about one node of the graph shown —
// op, fusion kind, fused group, attributes, input and output values with
// their types and where they come from, MACs, FLOPs, bytes moved — and for
// its weights (constant inputs) their statistics and a histogram. The
// statistics of a large weight are computed off the GUI thread; the newest
// choice wins.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>

#include "driver/tensor_statistics.h"
#include "ir/graph.h"
#include "views/job_tracker.h"

class QComboBox;
class QLabel;
class QTreeWidget;
class QWidget;

namespace lathe::views {

class WeightHistogram;

class InspectorView : public QWidget {
  Q_OBJECT

 public:
  explicit InspectorView(QWidget* parent = nullptr);
  ~InspectorView() override;

  // Shows node `nodeIndex` of `graph`. `where` says which graph it is
  // ("Original", "Fused"), `group` the fused group running the node, if any.
  void showNode(std::shared_ptr<const Graph> graph, int nodeIndex, const QString& where,
                const QString& group = {});
  void clear();

  // The node shown, or an empty string.
  QString nodeName() const;
  QTreeWidget* properties() const { return properties_; }
  // The node's weights; choosing one computes its statistics.
  QComboBox* weightCombo() const { return weightCombo_; }
  QTreeWidget* weightStatistics() const { return statistics_; }
  WeightHistogram* histogram() const { return histogram_; }

  QSize sizeHint() const override { return {380, 560}; }

 signals:
  // The statistics of weight `valueName` are shown.
  void weightStatisticsShown(const QString& valueName);

 private:
  void showWeight(int comboIndex);
  void fillStatistics(const QString& valueName, const driver::TensorStatistics& statistics);

  std::shared_ptr<const Graph> graph_;
  int node_ = -1;
  JobTracker statisticsJobs_{this};  // the newest weight chosen wins

  QLabel* title_ = nullptr;
  QTreeWidget* properties_ = nullptr;
  QWidget* weightPane_ = nullptr;
  QComboBox* weightCombo_ = nullptr;
  QTreeWidget* statistics_ = nullptr;
  WeightHistogram* histogram_ = nullptr;
};

}  // namespace lathe::views
