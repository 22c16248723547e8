// InjectPrefetch (after TVM's pass of that name, which Stage::prefetch feeds):
// while iteration v of a marked loop runs, fetch the cache lines of a tensor
// that iteration v + offset will read. TVM issues the whole region at the top
// of each iteration; here its lines are spread over the iterations of the
// loops inside, a few per iteration, because a core tracks only about a dozen
// outstanding misses: a burst of a conv's next weight block (hundreds of
// lines) would stall the arithmetic just as the demand misses it replaces did.
#pragma once

#include "te/tensor.h"
#include "tir/stmt.h"

namespace lathe::tir {

// The marker ScheduleOps puts around a loop that has a prefetch; storage
// flattening turns its value into a load of the tensor's buffer.
Stmt mark_prefetch(const te::Tensor& tensor, int64_t offset, Stmt loop);

// Replaces each marker by prefetch calls inside its loop; runs after
// storage flattening, on flat loads.
Stmt inject_prefetch(const Stmt& s);

}  // namespace lathe::tir
