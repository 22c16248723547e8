// The machine box's text and button.
#include "views/machine_panel.h"

#include <QDateTime>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace lathe::views {

namespace {

QString capacity(int64_t bytes) {
  return bytes >= (int64_t{1} << 20) ? QStringLiteral("%1 MB").arg(bytes >> 20)
                                     : QStringLiteral("%1 KB").arg(bytes >> 10);
}

}  // namespace

MachinePanel::MachinePanel(QWidget* parent) : QGroupBox(tr("Machine"), parent) {
  setObjectName(QStringLiteral("machinePanel"));
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("machineSummary"));
  summary_->setTextFormat(Qt::RichText);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  measuredAt_ = new QLabel;
  measuredAt_->setWordWrap(true);
  measureButton_ = new QPushButton(tr("Measure again"));
  measureButton_->setObjectName(QStringLiteral("measureMachineButton"));
  measureButton_->setToolTip(
      tr("Measure the FMA peak and the bandwidth of each memory level again (a few seconds, "
         "every core busy) and keep the result for this machine"));
  connect(measureButton_, &QPushButton::clicked, this, &MachinePanel::measureRequested);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(measuredAt_);
  layout->addWidget(measureButton_, 0, Qt::AlignLeft);
  layout->addStretch(1);
  setUnmeasured(tr("Not measured on this machine yet: the first roofline measures it."));
}

void MachinePanel::setMachine(const driver::MachineRoof& machine) {
  const QLocale locale;
  QString html = QStringLiteral("<b>%1</b><br>")
                     .arg(QString::fromStdString(machine.machine.cpu).toHtmlEscaped());
  html += tr("%n thread(s), peak %1 GFLOPS", nullptr, machine.machine.threads)
              .arg(locale.toString(machine.peak_gflops, 'f', 1));
  html += QStringLiteral(
              "<table cellspacing='0' cellpadding='1'><tr><th align='left'>%1</th>"
              "<th align='right'>&nbsp;%2</th><th align='right'>&nbsp;%3</th>"
              "<th align='right'>&nbsp;%4</th></tr>")
              .arg(tr("level"), tr("size"), tr("read"), tr("read+write"));
  for (const BandwidthLevel& l : machine.bandwidth.levels)
    html +=
        QStringLiteral(
            "<tr><td>%1</td><td align='right'>&nbsp;%2</td>"
            "<td align='right'>&nbsp;%3</td><td align='right'>&nbsp;%4</td></tr>")
            .arg(QString::fromStdString(l.name),
                 l.capacity_bytes > 0 ? capacity(l.capacity_bytes) : QStringLiteral("–"),
                 locale.toString(l.read_gbps, 'f', 1), locale.toString(l.read_write_gbps, 'f', 1));
  html += QStringLiteral("</table>") + tr("GB/s, all threads");
  summary_->setText(html);

  const QDateTime when =
      QDateTime::fromString(QString::fromStdString(machine.measured_at), Qt::ISODateWithMs);
  const QString at = when.isValid() ? locale.toString(when.toLocalTime(), QLocale::ShortFormat)
                                    : QString::fromStdString(machine.measured_at);
  measuredAt_->setText(machine.from_cache ? tr("Measured %1 (kept for this machine)").arg(at)
                                          : tr("Measured %1").arg(at));
  measuredAt_->setToolTip(QString::fromStdString(machine.machine.key()));
}

void MachinePanel::setUnmeasured(const QString& why) {
  summary_->setText(why.toHtmlEscaped());
  measuredAt_->clear();
}

void MachinePanel::setMeasuring(bool measuring) {
  measuring_ = measuring;
  if (measuring) measuredAt_->setText(tr("Measuring… (every core busy for a few seconds)"));
  updateButton();
}

void MachinePanel::setMeasureEnabled(bool enabled) {
  enabled_ = enabled;
  updateButton();
}

void MachinePanel::updateButton() {
  measureButton_->setEnabled(enabled_ && !measuring_);
}

}  // namespace lathe::views
