// Inference for the layout op family the CPU layout pass introduces:
// LayoutTransform (data and weight re-blocking) and Conv2dNCHWc (TVM's
// conv2d_NCHWc: a 2-D convolution on channel-blocked data and weights).
#include "ir/ops/layout.h"

#include <cctype>

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

// Parses the decimal number at text[pos...], advancing pos; 0 when none.
int64_t parse_number(std::string_view text, size_t& pos) {
  int64_t v = 0;
  size_t start = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) &&
         pos - start < 9)
    v = v * 10 + (text[pos++] - '0');
  return v;
}

[[noreturn]] void fail_layout(std::string_view text) {
  fail(str("unknown layout '", text,
           "' (expected NCHW, NCHW<b>c such as NCHW16c, OIHW or OIHW<i>i<o>o such as OIHW8i16o)"));
}

}  // namespace

TensorLayout TensorLayout::parse(std::string_view text) {
  TensorLayout layout;
  if (text == "NCHW") return layout;
  if (text == "OIHW") {
    layout.kind = Kind::OIHW;
    return layout;
  }
  const std::string_view head = text.substr(0, 4);
  size_t pos = 4;
  if (head == "NCHW") {
    layout.kind = Kind::NCHWc;
    layout.block = parse_number(text, pos);
    if (layout.block < 1 || pos + 1 != text.size() || text[pos] != 'c') fail_layout(text);
    return layout;
  }
  if (head == "OIHW") {
    layout.kind = Kind::OIHWio;
    layout.block = parse_number(text, pos);
    if (layout.block < 1 || pos >= text.size() || text[pos] != 'i') fail_layout(text);
    ++pos;
    layout.out_block = parse_number(text, pos);
    if (layout.out_block < 1 || pos + 1 != text.size() || text[pos] != 'o') fail_layout(text);
    return layout;
  }
  fail_layout(text);
}

std::string TensorLayout::to_string() const {
  switch (kind) {
    case Kind::NCHW:
      return "NCHW";
    case Kind::NCHWc:
      return nchwc_layout(block);
    case Kind::OIHW:
      return "OIHW";
    case Kind::OIHWio:
      return oihwio_layout(block, out_block);
  }
  return "?";
}

int TensorLayout::physical_rank() const {
  switch (kind) {
    case Kind::NCHWc:
      return 5;
    case Kind::OIHWio:
      return 6;
    default:
      return 4;
  }
}

Shape TensorLayout::physical_shape(const Shape& logical) const {
  LATHE_CHECK(logical.size() == 4, "layout ", to_string(), " needs a 4-D tensor, got ",
              shape_to_string(logical));
  switch (kind) {
    case Kind::NCHW:
    case Kind::OIHW:
      return logical;
    case Kind::NCHWc:
      LATHE_CHECK(logical[1] % block == 0, "layout ", to_string(), ": block ", block,
                  " does not divide the ", logical[1], " channels of ", shape_to_string(logical));
      return {logical[0], logical[1] / block, logical[2], logical[3], block};
    case Kind::OIHWio:
      LATHE_CHECK(logical[0] % out_block == 0, "layout ", to_string(), ": block ", out_block,
                  " does not divide the ", logical[0], " output channels of ",
                  shape_to_string(logical));
      LATHE_CHECK(logical[1] % block == 0, "layout ", to_string(), ": block ", block,
                  " does not divide the ", logical[1], " input channels of ",
                  shape_to_string(logical));
      return {logical[0] / out_block, logical[1] / block, logical[2], logical[3], block, out_block};
  }
  return logical;
}

Shape TensorLayout::logical_shape(const Shape& physical) const {
  LATHE_CHECK(static_cast<int>(physical.size()) == physical_rank(), "layout ", to_string(),
              " needs a ", physical_rank(), "-D tensor, got ", shape_to_string(physical));
  switch (kind) {
    case Kind::NCHW:
    case Kind::OIHW:
      return physical;
    case Kind::NCHWc:
      LATHE_CHECK(physical[4] == block, "layout ", to_string(), " needs an innermost extent of ",
                  block, ", got ", shape_to_string(physical));
      return {physical[0], physical[1] * block, physical[2], physical[3]};
    case Kind::OIHWio:
      LATHE_CHECK(physical[4] == block && physical[5] == out_block, "layout ", to_string(),
                  " needs innermost extents ", block, " x ", out_block, ", got ",
                  shape_to_string(physical));
      return {physical[0] * out_block, physical[1] * block, physical[2], physical[3]};
  }
  return physical;
}

int64_t TensorLayout::offset(const std::array<int64_t, 4>& i, const Shape& p) const {
  switch (kind) {
    case Kind::NCHW:
    case Kind::OIHW:
      return ((i[0] * p[1] + i[1]) * p[2] + i[2]) * p[3] + i[3];
    case Kind::NCHWc:
      return (((i[0] * p[1] + i[1] / block) * p[2] + i[2]) * p[3] + i[3]) * block + i[1] % block;
    case Kind::OIHWio:
      return (((((i[0] / out_block) * p[1] + i[1] / block) * p[2] + i[2]) * p[3] + i[3]) * block +
              i[1] % block) *
                 out_block +
             i[0] % out_block;
  }
  return 0;
}

int64_t channel_block(int64_t channels, int64_t max_block) {
  int64_t best = 1;
  for (int64_t b = max_block; b > 1; --b)
    if (channels % b == 0) {
      best = b;
      break;
    }
  // A block of whole half-vectors beats a larger odd one: 1000 channels in
  // blocks of 10 made every vector op a 16-lane one with 6 lanes idle and
  // ran a 1x1 conv at a third of the speed of blocks of 8.
  const int64_t half = max_block / 2;
  if (best % half != 0 && half >= 4 && channels % half == 0) best = half;
  return best;
}

GroupNesting group_nesting(int64_t group, int64_t group_channels, int64_t group_filters,
                           int64_t data_block, int64_t in_block, int64_t out_block) {
  if (group == 1 || (group_channels == 1 && group_filters == 1)) return GroupNesting::None;
  if (group_filters % out_block == 0 && in_block == data_block && group_channels % data_block == 0)
    return GroupNesting::BlockInGroup;
  if (out_block % group_filters == 0 && group_filters == group_channels && data_block == out_block)
    return GroupNesting::GroupsInBlock;
  return GroupNesting::None;
}

std::string nchwc_layout(int64_t block) {
  return str("NCHW", block, "c");
}

std::string oihwio_layout(int64_t in_block, int64_t out_block) {
  return str("OIHW", in_block, "i", out_block, "o");
}

namespace {

// Runs `f`, prefixing any error with the node, since layout ops come from
// passes rather than a model file whose importer would say where.
template <typename F>
void naming_node(const InferContext& ctx, F&& f) {
  try {
    f();
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(str("node ", describe_node(ctx.node()), ": ", e.what()));
  } catch (const Error& e) {
    throw Error(str("node ", describe_node(ctx.node()), ": ", e.what()));
  }
}

void infer_layout_transform(InferContext& ctx) {
  naming_node(ctx, [&] {
    LATHE_CHECK(ctx.attrs().has("src_layout") && ctx.attrs().has("dst_layout"),
                "LayoutTransform needs the attributes src_layout and dst_layout");
    const TensorLayout src = TensorLayout::parse(ctx.attrs().get_string("src_layout", ""));
    const TensorLayout dst = TensorLayout::parse(ctx.attrs().get_string("dst_layout", ""));
    LATHE_CHECK(src.is_weight() == dst.is_weight(), "cannot transform layout ", src.to_string(),
                " into ", dst.to_string(), " (data and weight layouts do not mix)");
    const TensorType& x = ctx.input(0);
    ctx.set_output(0, {x.dtype, dst.physical_shape(src.logical_shape(x.shape))});
  });
}

std::vector<int64_t> ints_of_size(const Attributes& attrs, const std::string& name, size_t n,
                                  int64_t fallback, int64_t min_value) {
  std::vector<int64_t> v = attrs.get_ints(name);
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  LATHE_CHECK(v.size() == n, "attribute '", name, "' has ", v.size(), " values, expected ", n);
  for (int64_t e : v)
    LATHE_CHECK(e >= min_value, "attribute '", name, "' has value ", e,
                ", expected >= ", min_value);
  return v;
}

void infer_conv2d_nchwc(InferContext& ctx) {
  naming_node(ctx, [&] {
    ctx.check_dtype(0, kFloatTypes);
    check_same_dtype(ctx);
    const TensorType& x = ctx.input(0);
    const TensorType& w = ctx.input(1);
    LATHE_CHECK(x.rank() == 5, "Conv2dNCHWc data must be [N, C/b, H, W, b], got ", x.to_string());
    LATHE_CHECK(w.rank() == 6, "Conv2dNCHWc weight must be [O/o, I/i, KH, KW, i, o], got ",
                w.to_string());
    const std::string auto_pad = ctx.attrs().get_string("auto_pad", "NOTSET");
    LATHE_CHECK(auto_pad == "NOTSET", "Conv2dNCHWc takes explicit pads, not auto_pad ", auto_pad);
    const int64_t channels = x.shape[1] * x.shape[4];
    const int64_t filters = w.shape[0] * w.shape[5];
    const int64_t group_channels = w.shape[1] * w.shape[4];
    const int64_t group = ctx.attrs().get_int("group", 1);
    LATHE_CHECK(group >= 1 && channels % group == 0 && filters % group == 0, "group ", group,
                " must divide both the input channels ", channels, " and the filters ", filters);
    LATHE_CHECK(group_channels * group == channels, "weight ", w.to_string(), " expects ",
                group_channels * group, " input channels with group ", group, ", data ",
                x.to_string(), " has ", channels);
    if (ctx.has_input(2)) {
      const TensorType& b = ctx.input(2);
      LATHE_CHECK(b.shape == Shape({w.shape[0], w.shape[5]}), "bias must be [", w.shape[0], ",",
                  w.shape[5], "], got ", b.to_string());
    }
    const std::vector<int64_t> strides = ints_of_size(ctx.attrs(), "strides", 2, 1, 1);
    const std::vector<int64_t> dilations = ints_of_size(ctx.attrs(), "dilations", 2, 1, 1);
    const std::vector<int64_t> pads = ints_of_size(ctx.attrs(), "pads", 4, 0, 0);
    const std::vector<int64_t> ks = ctx.attrs().get_ints("kernel_shape");
    LATHE_CHECK(ks.empty() || ks == std::vector<int64_t>({w.shape[2], w.shape[3]}), "kernel_shape ",
                shape_to_string(ks), " does not match the weight ", w.to_string());
    Shape out = {x.shape[0], w.shape[0], 0, 0, w.shape[5]};
    for (size_t d = 0; d < 2; ++d) {
      const int64_t padded = x.shape[2 + d] + pads[d] + pads[2 + d];
      const int64_t extent = (w.shape[2 + d] - 1) * dilations[d] + 1;
      LATHE_CHECK(padded >= extent, "spatial dimension ", d, ": padded input extent ", padded,
                  " is smaller than the window extent ", extent);
      out[2 + d] = (padded - extent) / strides[d] + 1;
    }
    ctx.set_output(0, {x.dtype, out});
  });
}

// As Conv: every output element takes (input channels per group) x KH x KW MACs.
int64_t conv2d_nchwc_macs(const Node&, const std::vector<TensorType>& in,
                          const std::vector<TensorType>& out) {
  const Shape& w = in[1].shape;
  return out[0].numel() * w[1] * w[2] * w[3] * w[4];
}

}  // namespace

void register_layout_ops(OpRegistry& r) {
  r.define("LayoutTransform", FusionKind::Injective, infer_layout_transform);
  r.define("Conv2dNCHWc", FusionKind::OutEWiseFusable, infer_conv2d_nchwc).macs = conv2d_nchwc_macs;
}

}  // namespace lathe
