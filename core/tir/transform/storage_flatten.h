// Storage flattening: tensors become flat buffers. Arguments are the kernel's
// parameters; every other realized tensor is an Allocate of its region, with
// storage_align padding; multi-dimensional reads and writes become flat
// element offsets.
#pragma once

#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace lathe::tir {

PrimFunc storage_flatten(const Stmt& body, const std::vector<te::Tensor>& args,
                         schedule::Schedule& sch, const std::string& name);

}  // namespace lathe::tir
