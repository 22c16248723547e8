#include "views/schedule_diff_view.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "views/aligned_diff_model.h"

namespace lathe::views {

namespace {

using driver::RowChange;

enum MeasurementRow { Schedule, Median, Best, Gflops, PercentOfRoof, Roof, Bound, Reference };

QStringList linesOf(const std::vector<std::string>& lines) {
  QStringList list;
  list.reserve(static_cast<qsizetype>(lines.size()));
  for (const std::string& line : lines) list << QString::fromStdString(line);
  return list;
}

QTableView* alignedTable(AlignedDiffModel* model, const QString& name) {
  auto* table = new QTableView;
  table->setObjectName(name);
  table->setModel(model);
  table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  table->setShowGrid(false);
  table->setWordWrap(false);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 2);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  return table;
}

QTableWidgetItem* item(const QString& text) {
  auto* cell = new QTableWidgetItem(text);
  cell->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  return cell;
}

QString knobText(const std::vector<int64_t>& value) {
  return QString::fromStdString(driver::knob_value_text(value));
}

}  // namespace

ScheduleDiffView::ScheduleDiffView(QWidget* parent)
    : QWidget(parent),
      scheduleModel_(new AlignedDiffModel(this)),
      loopIRModel_(new AlignedDiffModel(this)) {
  measurements_ = new QTableWidget(Reference + 1, 2);
  measurements_->setObjectName(QStringLiteral("diffMeasurements"));
  measurements_->setHorizontalHeaderLabels({tr("A"), tr("B")});
  measurements_->setVerticalHeaderLabels({tr("Schedule"), tr("Median ms"), tr("Best ms"),
                                          tr("GFLOPS"), tr("% of roof"), tr("Roof GFLOPS"),
                                          tr("Bound"), tr("Reference")});
  measurements_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  measurements_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  measurements_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // Every row in view: the reference check is the last and must not hide.
  measurements_->setMinimumHeight(measurements_->horizontalHeader()->sizeHint().height() +
                                  measurements_->verticalHeader()->length() +
                                  2 * measurements_->frameWidth());
  verdict_ = new QLabel;
  verdict_->setObjectName(QStringLiteral("diffVerdict"));
  verdict_->setWordWrap(true);

  knobs_ = new QTableWidget(0, 3);
  knobs_->setObjectName(QStringLiteral("diffKnobs"));
  knobs_->setHorizontalHeaderLabels({tr("Knob"), tr("A"), tr("B")});
  knobs_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  knobs_->verticalHeader()->hide();
  knobs_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  knobs_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  knobNote_ = new QLabel;
  knobNote_->setObjectName(QStringLiteral("diffKnobNote"));
  knobNote_->setWordWrap(true);

  auto* measurementPane = new QWidget;
  auto* measurementLayout = new QVBoxLayout(measurementPane);
  measurementLayout->setContentsMargins(0, 0, 0, 0);
  measurementLayout->addWidget(measurements_, 1);
  measurementLayout->addWidget(verdict_);
  auto* knobPane = new QWidget;
  auto* knobLayout = new QVBoxLayout(knobPane);
  knobLayout->setContentsMargins(0, 0, 0, 0);
  knobLayout->addWidget(knobNote_);
  knobLayout->addWidget(knobs_, 1);
  auto* top = new QSplitter(Qt::Horizontal);
  top->addWidget(measurementPane);
  top->addWidget(knobPane);
  top->setChildrenCollapsible(false);

  scheduleTable_ = alignedTable(scheduleModel_, QStringLiteral("diffSchedules"));
  loopIRTable_ = alignedTable(loopIRModel_, QStringLiteral("diffLoopIR"));

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(top);
  splitter->addWidget(scheduleTable_);
  splitter->addWidget(loopIRTable_);
  splitter->setChildrenCollapsible(false);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 2);
  splitter->setStretchFactor(2, 5);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  clear(QString());
}

void ScheduleDiffView::setDiff(const driver::ScheduleDiff& diff) {
  const QString a = QString::fromStdString(diff.a.schedule.label);
  const QString b = QString::fromStdString(diff.b.schedule.label);
  scheduleModel_->setHeaders(tr("A: %1 (schedule)").arg(a), tr("B: %1 (schedule)").arg(b));
  scheduleModel_->setLines(linesOf(diff.a.schedule_lines), linesOf(diff.b.schedule_lines),
                           diff.schedule_rows);
  loopIRModel_->setHeaders(tr("A: %1 (loop IR)").arg(a), tr("B: %1 (loop IR)").arg(b));
  loopIRModel_->setLines(linesOf(diff.a.loop_ir_lines), linesOf(diff.b.loop_ir_lines),
                         diff.loop_ir_rows);
  // The first changed loop in view: where the reader starts.
  for (int row = 0; row < loopIRModel_->rowCount(); ++row)
    if (loopIRModel_->change(row) != RowChange::Same) {
      loopIRTable_->scrollTo(loopIRModel_->index(row, 0), QAbstractItemView::PositionAtTop);
      break;
    }
  showMeasurements(diff);
  showKnobs(diff);
}

void ScheduleDiffView::clear(const QString& message) {
  scheduleModel_->clear();
  loopIRModel_->clear();
  for (int r = 0; r < measurements_->rowCount(); ++r)
    for (int c = 0; c < 2; ++c) measurements_->setItem(r, c, item(QString()));
  knobs_->setRowCount(0);
  knobNote_->setText(QString());
  verdict_->setText(message);
}

void ScheduleDiffView::showMeasurements(const driver::ScheduleDiff& diff) {
  const driver::ScheduleDiffSide* sides[] = {&diff.a, &diff.b};
  for (int c = 0; c < 2; ++c) {
    const driver::ScheduleDiffSide& side = *sides[c];
    QTableWidgetItem* label = item(QString::fromStdString(side.schedule.label));
    label->setToolTip(QString::fromStdString(side.schedule.detail));
    measurements_->setItem(Schedule, c, label);
    const auto& m = side.measurement;
    auto number = [&](double v, int digits) {
      return m ? QString::number(v, 'f', digits) : QStringLiteral("—");
    };
    measurements_->setItem(Median, c, item(number(m ? m->kernel.median_ms : 0, 4)));
    measurements_->setItem(Best, c, item(number(m ? m->kernel.best_ms : 0, 4)));
    measurements_->setItem(Gflops, c, item(number(m ? m->kernel.gflops : 0, 2)));
    measurements_->setItem(PercentOfRoof, c, item(number(m ? m->percent_of_roof : 0, 1)));
    measurements_->setItem(Roof, c, item(number(m ? m->roof.roof_gflops : 0, 1)));
    measurements_->setItem(Bound, c,
                           item(m ? QString::fromStdString(m->roof.bound) : QStringLiteral("—")));
    QTableWidgetItem* reference =
        item(!m ? QStringLiteral("—")
             : m->kernel.matches_reference()
                 ? tr("ok")
                 : tr("MISMATCH (max error %1)").arg(m->kernel.max_error, 0, 'g', 3));
    if (m && !m->kernel.matches_reference()) reference->setForeground(QColor(0xc0, 0x39, 0x2b));
    measurements_->setItem(Reference, c, reference);
  }
  if (!diff.a.measurement || !diff.b.measurement) {
    verdict_->setText(tr("Not measured"));
    return;
  }
  const double a = diff.a.measurement->kernel.median_ms;
  const double b = diff.b.measurement->kernel.median_ms;
  verdict_->setText(
      a <= 0 || b <= 0 ? QString()
      : b <= a
          ? tr("B is %1× faster than A (medians, measured alternately)").arg(a / b, 0, 'f', 2)
          : tr("B is %1× slower than A (medians, measured alternately)").arg(b / a, 0, 'f', 2));
}

void ScheduleDiffView::showKnobs(const driver::ScheduleDiff& diff) {
  knobs_->setRowCount(static_cast<int>(diff.knobs.size()));
  int differing = 0;
  for (int r = 0; r < knobs_->rowCount(); ++r) {
    const driver::KnobRow& knob = diff.knobs[static_cast<size_t>(r)];
    QTableWidgetItem* cells[] = {item(QString::fromStdString(knob.knob)), item(knobText(knob.a)),
                                 item(knobText(knob.b))};
    for (int c = 0; c < 3; ++c) {
      if (knob.differs()) {
        QFont bold = cells[c]->font();
        bold.setBold(true);
        cells[c]->setFont(bold);
        cells[c]->setBackground(AlignedDiffModel::background(RowChange::Changed, c));
        cells[c]->setForeground(QColor(Qt::black));
      }
      knobs_->setItem(r, c, cells[c]);
    }
    differing += knob.differs();
  }
  knobs_->setVisible(diff.knobs_comparable());
  if (diff.knobs_comparable()) {
    knobNote_->setText(tr("Knobs of %1: %2 of %3 differ")
                           .arg(QString::fromStdString(diff.a.schedule.space))
                           .arg(differing)
                           .arg(diff.knobs.size()));
    return;
  }
  const auto primitives = std::count_if(diff.schedule_rows.begin(), diff.schedule_rows.end(),
                                        [](const auto& r) { return r.change != RowChange::Same; });
  knobNote_->setText(
      tr("No template config on both sides: %n line(s) of the schedule texts "
         "differ (coloured below)",
         nullptr, static_cast<int>(primitives)));
}

}  // namespace lathe::views
