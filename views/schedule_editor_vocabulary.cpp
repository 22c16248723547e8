// The schedule editor's vocabulary, from the task's tensors and from the text.
#include "views/schedule_editor_vocabulary.h"

#include <QRegularExpression>

#include "driver/schedule_names.h"

namespace lathe::views {

const QList<SchedulePrimitive>& schedulePrimitives() {
  static const QList<SchedulePrimitive> primitives = [] {
    QList<SchedulePrimitive> list;
    for (const driver::ScheduleMethod& m : driver::schedule_methods())
      list.append(
          {QString::fromStdString(m.method), QString::fromStdString(m.signature), m.on_schedule});
    return list;
  }();
  return primitives;
}

ScheduleVocabulary scheduleVocabulary(const driver::ScheduleNames& names) {
  ScheduleVocabulary vocabulary;
  for (const std::string& tensor : names.tensors)
    vocabulary.tensors << QString::fromStdString(tensor);
  for (const std::string& stage : names.stages) vocabulary.stages << QString::fromStdString(stage);
  for (const driver::StageAxis& axis : names.axes)
    vocabulary.axes.append({QString::fromStdString(axis.expression),
                            QString::fromStdString(axis.name), axis.extent, axis.reduce});
  return vocabulary;
}

QStringList boundNames(const QString& text) {
  // The targets of an assignment at the start of a line: "a", "a, b", "(a, b)";
  // "==" is a comparison, not an assignment.
  static const QRegularExpression assignment(
      QStringLiteral(R"(^\s*\(?\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*\)?\s*=(?!=))"),
      QRegularExpression::MultilineOption);
  static const QRegularExpression separator(QStringLiteral(R"(\s*,\s*)"));
  QStringList names;
  for (auto it = assignment.globalMatch(text); it.hasNext();) {
    for (const QString& name : it.next().captured(1).split(separator, Qt::SkipEmptyParts))
      if (!names.contains(name)) names << name;
  }
  return names;
}

}  // namespace lathe::views
