#include "studio/executor_report.h"

#include <QLatin1Char>
#include <QString>

namespace lathe::studio {

QStringList runAndTime(driver::GraphExecutor& executor, int repeat, int number) {
  executor.run();
  QStringList lines;
  lines << QStringLiteral("Outputs:");
  for (int i = 0; i < executor.num_outputs(); ++i)
    lines << QStringLiteral("  output_%1: %2 %3")
                 .arg(i)
                 .arg(QString::fromStdString(executor.output_dtype(i).to_string()),
                      QString::fromStdString(driver::shape_to_string(executor.output_shape(i))));
  lines << QStringLiteral("%1 × %2 runs on %3 threads")
               .arg(repeat)
               .arg(number)
               .arg(driver::default_num_threads());
  const driver::TimeSummary times = driver::benchmark(executor, repeat, number);
  lines << QString::fromStdString(driver::format_time_summary(times)).trimmed();
  return lines;
}

}  // namespace lathe::studio
