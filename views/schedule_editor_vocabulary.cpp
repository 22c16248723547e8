// The schedule editor's vocabulary, from the task's tensors and from the text.
#include "views/schedule_editor_vocabulary.h"

#include <QRegularExpression>

#include "schedule/primitives.h"
#include "tune/group_computation.h"

namespace lathe::views {

const QList<SchedulePrimitive>& schedulePrimitives() {
  static const QList<SchedulePrimitive> primitives = [] {
    QList<SchedulePrimitive> list;
    for (const schedule::MethodSignature& m : schedule::method_signatures())
      list.append({QString::fromStdString(m.method), QString::fromStdString(m.signature),
                   m.receiver == schedule::Receiver::Schedule});
    return list;
  }();
  return primitives;
}

ScheduleVocabulary scheduleVocabulary(const tune::GroupComputation& computation) {
  ScheduleVocabulary vocabulary;
  for (const auto& [name, tensor] : computation.tensors) {
    const QString tensorName = QString::fromStdString(name);
    vocabulary.tensors << tensorName;
    const te::ComputeOpNode* compute = tensor.op().as_compute();
    if (!compute) continue;
    vocabulary.stages << tensorName;
    auto addAxes = [&](const std::vector<te::IterVar>& axes, bool reduce) {
      const QString field = reduce ? QStringLiteral("reduce_axis") : QStringLiteral("axis");
      for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t* extent =
            axes[i]->dom.extent.defined() ? te::as_const_int(axes[i]->dom.extent) : nullptr;
        vocabulary.axes.append({QStringLiteral("%1.op.%2[%3]").arg(tensorName, field).arg(i),
                                QString::fromStdString(axes[i].name()), extent ? *extent : 0,
                                reduce});
      }
    };
    addAxes(compute->axis, false);
    addAxes(compute->reduce_axis, true);
  }
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
