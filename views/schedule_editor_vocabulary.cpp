// The schedule editor's vocabulary, from the task's tensors and from the text.
#include "views/schedule_editor_vocabulary.h"

#include <QRegularExpression>

#include "driver/schedule_names.h"

namespace lathe::views {

const QList<SchedulePrimitive>& schedulePrimitives() {
  static const QList<SchedulePrimitive> primitives = {
      {QStringLiteral("split"),
       QStringLiteral("split(parent, factor=None, nparts=None) → outer, inner"), false},
      {QStringLiteral("tile"),
       QStringLiteral("tile(x_parent, y_parent, x_factor, y_factor) → xo, yo, xi, yi"), false},
      {QStringLiteral("fuse"), QStringLiteral("fuse(*args) → fused"), false},
      {QStringLiteral("reorder"), QStringLiteral("reorder(*args)"), false},
      {QStringLiteral("parallel"), QStringLiteral("parallel(var)"), false},
      {QStringLiteral("vectorize"), QStringLiteral("vectorize(var)"), false},
      {QStringLiteral("unroll"), QStringLiteral("unroll(var)"), false},
      {QStringLiteral("compute_at"), QStringLiteral("compute_at(parent, scope)"), false},
      {QStringLiteral("compute_inline"), QStringLiteral("compute_inline()"), false},
      {QStringLiteral("compute_root"), QStringLiteral("compute_root()"), false},
      {QStringLiteral("cache_read"),
       QStringLiteral("s.cache_read(tensor, scope, readers) → cache tensor"), true},
      {QStringLiteral("cache_write"), QStringLiteral("s.cache_write(tensor, scope) → cache tensor"),
       true},
      {QStringLiteral("rfactor"),
       QStringLiteral("s.rfactor(tensor, axis, factor_axis=0) → factored tensor"), true},
      {QStringLiteral("storage_align"), QStringLiteral("storage_align(axis, factor, offset)"),
       false},
      {QStringLiteral("pragma"), QStringLiteral("pragma(var, pragma_type, pragma_value=None)"),
       false},
      {QStringLiteral("prefetch"), QStringLiteral("prefetch(tensor, var, offset)"), false},
      {QStringLiteral("bind"), QStringLiteral("bind(ivar, thread_ivar)"), false},
  };
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
