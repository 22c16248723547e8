// DynamicQuantizeLinear's x86 group template (dynamic_quantize_x86.cpp).
#pragma once

#include "topi/op_compute.h"

namespace lathe::topi {

// Registers "dynamic_quantize_linear.x86" as DynamicQuantizeLinear's CPU template.
void register_dynamic_quantize_template(OpStrategyRegistry& registry);

}  // namespace lathe::topi
