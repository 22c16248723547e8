// GPU (cuda kind) templates per op class, after TVM's topi/cuda, registered
// with define_template(op, "cuda", fn) by register_cuda_templates. Groups
// whose anchor has none take cuda_default_template (schedule_cuda.h). Each
// template's knobs are the tiling factors a tuner can search; its default
// config is the untuned schedule.
#pragma once

#include <vector>

#include "support/vector_unit.h"
#include "te/tensor.h"
#include "topi/config_space.h"

namespace lathe::topi {

class OpStrategyRegistry;

// "reduce.cuda" (schedule_cuda_reduce.cpp), after TVM's schedule_reduce and
// softmax: one block per row, the row's reductions computed by the block's
// threads together (a cross-thread reduction: warp shuffles, then shared
// memory), the row's outputs spread over the same threads. Covers reductions
// with their epilogue, global pools, softmax and the layer norm groups.
// Knob `threads`. A group whose reductions are short (under 32 terms) keeps
// the default one-thread-per-output schedule.
SearchSpace cuda_reduce_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                 const VectorUnit& vector_unit);

// "dense.cuda" (schedule_cuda_dense.cpp), after TVM's dense_small_batch and
// batch_matmul: a product with few output rows (batch 1's Gemm) takes one
// block per few outputs and a cross-thread reduction over k; a larger one
// tiles the output per block, stages the tiles of both operands in shared
// memory step by step of k, and gives each thread a register block of
// outputs. Knobs: `threads` (small), or the tile sizes `tile_i`, `tile_j`,
// the per-thread block `block_i`, `block_j`, the k step `tile_k` and
// `unroll_k` (the step's loop unrolled; untuned: not).
SearchSpace cuda_dense_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                const VectorUnit& vector_unit);

// "conv2d_direct.cuda" (schedule_cuda_conv.cpp), after TVM's conv2d_direct:
// a block computes tile_f output channels of tile_p consecutive pixels, each
// thread block_f channels of one pixel in registers, over steps of tile_c
// input channels whose input window and weights the block fetches into
// shared memory together. Knobs `tile_f`, `block_f`, `tile_h`, `tile_w`,
// `tile_c`, `unroll_window` (the ry, rx loops unrolled; untuned: not),
// constrained to the block's threads and 44 KiB of shared memory. Grouped
// and depthwise convolutions keep the default schedule.
SearchSpace cuda_conv2d_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                 const VectorUnit& vector_unit);

// Registers the templates above for their ops under the "cuda" kind.
void register_cuda_templates(OpStrategyRegistry& registry);

}  // namespace lathe::topi
