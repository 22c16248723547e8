// Pieces the x86 group templates share: finding the anchor's reduction among
// the stages its compute adds, the fused elementwise epilogue, and the stage
// that tiles the output (the epilogue's last stage, or a copy-out of a local
// accumulator) with the reduction attached inside it tile by tile.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "schedule/schedule.h"

namespace lathe::topi {

using OpSet = std::unordered_set<te::Operation, te::OperationHash, te::OperationEqual>;

// The compute tag of `t`, empty for a placeholder.
const std::string& tag_of(const te::Tensor& t);

// The anchor itself or, through the injective stages its compute adds (bias,
// Gemm's scaling), the nearest producer tagged one of `tags`; undefined when none.
te::Tensor find_tagged(const te::Tensor& anchor, std::initializer_list<std::string_view> tags);

bool is_output(const std::vector<te::Tensor>& outputs, const te::Tensor& t);

// The constant extent of reduce axis `index` of `t`'s compute (1 when not constant).
int64_t reduce_extent(const te::Tensor& t, size_t index);

// A padded input computed once, at the root: rows in parallel, the innermost
// axis in vectors when it is a channel block (NCHWc).
void schedule_pad(schedule::Stage pad, bool vector_inner);

// The epilogue of a register tile, over its pixels' `ow_inner` (extent
// `pixels`) and the channel block `block` (innermost): vectors of up to four
// pixels' blocks, so that an 8-bit output narrows four int32 vectors into
// one with x86's saturating packs (codegen/saturating_narrow_x86.cpp); the
// vectors unrolled, so that the tile's reads are at constant offsets and
// LLVM keeps the tile in registers (an indexed read would leave it in memory).
void vectorize_pixel_blocks(schedule::Stage out, const te::IterVar& ow_inner, int64_t pixels,
                            const te::IterVar& block);

// Where the accumulation runs: the anchor's own stage when an epilogue output
// computes it tile by tile, else a local cache of the anchor (whose stage
// becomes the copy-out, itself the tile loop nest).
struct TileStages {
  schedule::Stage loops;         // the stage whose loops tile the output
  schedule::Stage acc;           // the reduction, attached inside `loops`
  std::vector<te::Tensor> path;  // epilogue stages between them, consumers first
};

// Inlines the group's other injective stages (those in `done` excepted), and
// adds the stages it returns to `done`.
TileStages tile_stages(schedule::Schedule& sch, const te::Tensor& reduction,
                       const std::vector<te::Tensor>& outputs, OpSet& done);

// Attaches the epilogue's intermediate stages at `at`, consumers first,
// vectors along their innermost axis: all of it, or with `vector_lanes`,
// vectors of that many lanes in a loop.
void attach_path(const std::vector<te::Tensor>& path, schedule::Schedule& sch,
                 schedule::Stage loops, const te::IterVar& at, int64_t vector_lanes = 0);

}  // namespace lathe::topi
