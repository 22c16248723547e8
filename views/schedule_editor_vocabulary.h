// The words of a schedule text the editor colours and completes: the schedule
// primitives (with their TVM signatures), the computation's tensors (its
// stages) and each stage's root axes spelled as the text must write them
// (relu.op.axis[3]), plus the names the text itself binds.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace lathe::driver {
struct ScheduleNames;
}

namespace lathe::views {

struct SchedulePrimitive {
  QString name;       // "split"
  QString signature;  // "split(parent, factor=None, nparts=None) → outer, inner"
  // cache_read, cache_write and rfactor are methods of the schedule (s.),
  // every other primitive a method of a stage (s[C].).
  bool onSchedule = false;
};

// The primitives the schedule text accepts, read from core's primitive table
// (schedule/primitives.h), in the order TVM's docs list them.
const QList<SchedulePrimitive>& schedulePrimitives();

struct ScheduleAxis {
  QString expression;  // "relu.op.axis[3]", "conv.op.reduce_axis[0]"
  QString name;        // the loop variable it makes: "i3", "rc"
  qint64 extent = 0;   // 0 when not a constant
  bool reduce = false;
};

struct ScheduleVocabulary {
  QStringList tensors;  // every tensor the text may name: placeholders and stages
  QStringList stages;   // the computed tensors among them
  QList<ScheduleAxis> axes;
};

// The task's names (driver::schedule_names) as the editor keeps them.
ScheduleVocabulary scheduleVocabulary(const driver::ScheduleNames& names);

// Names the text's assignments bind, in order of first binding:
// "xo, xi = s[C].split(...)" binds xo and xi.
QStringList boundNames(const QString& text);

}  // namespace lathe::views
