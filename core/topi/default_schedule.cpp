#include "topi/default_schedule.h"

#include "topi/generic_template.h"

namespace lathe::topi {

void apply_default_schedule(schedule::Schedule& sch, const VectorUnit& vector_unit) {
  std::vector<te::Tensor> outputs;
  for (const te::Operation& op : sch.outputs()) outputs.push_back(op.output());
  if (outputs.empty()) return;
  SearchSpace space = generic_template(outputs[0], outputs, vector_unit);
  space.apply(sch, space.default_config);
}

}  // namespace lathe::topi
