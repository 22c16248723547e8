// What the dnnl codegen tells its runtime about one claimed group: the
// primitive, its shapes and attributes, and its fused post-ops, as the JSON
// text mod.json carries in the node's "external_params". Shared by the
// plugin's two halves, which are built together.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lathe::dnnl_plugin {

struct Params {
  enum class Kind { Conv, MatMul, Pool };
  Kind kind = Kind::Conv;
  std::vector<int64_t> src, weights, dst;  // plain layouts: NCHW, OIHW, (M, K) ...
  // Conv and Pool: oneDNN's conventions (dilation 0 is none).
  std::vector<int64_t> strides, dilations, pad_l, pad_r, kernel;
  int64_t group = 1;
  bool weights_transposed = false;  // MatMul: weights are (N, K)
  std::string pool;                 // "max", "avg_include", "avg_exclude"
  bool bias = false;                // a bias input follows the weights
  bool sum = false;                 // an Add of another tensor (the last input)
  std::string eltwise;              // "", "relu", "clip" (alpha, beta), "gelu_erf"
  float alpha = 0, beta = 0;
  // Conv and Pool: channels-last (NHWC, oneDNN's "acdb") instead of NCHW for
  // a tensor that only dnnl calls produce and read, so that no reorder runs
  // between them (the layout oneDNN's convolutions prefer on this CPU).
  bool src_nhwc = false, dst_nhwc = false, sum_nhwc = false;
};

inline const char* kind_name(Params::Kind kind) {
  switch (kind) {
    case Params::Kind::Conv:
      return "conv";
    case Params::Kind::MatMul:
      return "matmul";
    case Params::Kind::Pool:
      return "pool";
  }
  return "?";
}

inline std::string to_text(const Params& p) {
  nlohmann::ordered_json j;
  j["kind"] = kind_name(p.kind);
  j["src"] = p.src;
  if (!p.weights.empty()) j["weights"] = p.weights;
  j["dst"] = p.dst;
  if (p.kind != Params::Kind::MatMul) {
    j["strides"] = p.strides;
    j["dilations"] = p.dilations;
    j["pad_l"] = p.pad_l;
    j["pad_r"] = p.pad_r;
  }
  if (p.kind == Params::Kind::Pool) {
    j["kernel"] = p.kernel;
    j["pool"] = p.pool;
  }
  if (p.group != 1) j["group"] = p.group;
  if (p.weights_transposed) j["weights_transposed"] = true;
  if (p.bias) j["bias"] = true;
  if (p.sum) j["sum"] = true;
  if (!p.eltwise.empty()) {
    j["eltwise"] = p.eltwise;
    if (p.eltwise == "clip") j["clip"] = {p.alpha, p.beta};
  }
  if (p.src_nhwc) j["src_nhwc"] = true;
  if (p.dst_nhwc) j["dst_nhwc"] = true;
  if (p.sum_nhwc) j["sum_nhwc"] = true;
  return j.dump();
}

// Throws std::exception (nlohmann's or std::runtime_error) on malformed text.
inline Params parse_params(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  Params p;
  const std::string kind = j.at("kind").get<std::string>();
  if (kind == "conv")
    p.kind = Params::Kind::Conv;
  else if (kind == "matmul")
    p.kind = Params::Kind::MatMul;
  else if (kind == "pool")
    p.kind = Params::Kind::Pool;
  else
    throw std::runtime_error("unknown primitive kind '" + kind + "'");
  auto ints = [&](const char* key) {
    return j.contains(key) ? j.at(key).get<std::vector<int64_t>>() : std::vector<int64_t>{};
  };
  p.src = ints("src");
  p.weights = ints("weights");
  p.dst = ints("dst");
  p.strides = ints("strides");
  p.dilations = ints("dilations");
  p.pad_l = ints("pad_l");
  p.pad_r = ints("pad_r");
  p.kernel = ints("kernel");
  p.group = j.value("group", int64_t{1});
  p.weights_transposed = j.value("weights_transposed", false);
  p.pool = j.value("pool", std::string());
  p.bias = j.value("bias", false);
  p.sum = j.value("sum", false);
  p.eltwise = j.value("eltwise", std::string());
  p.src_nhwc = j.value("src_nhwc", false);
  p.dst_nhwc = j.value("dst_nhwc", false);
  p.sum_nhwc = j.value("sum_nhwc", false);
  if (p.eltwise == "clip") {
    p.alpha = j.at("clip").at(0).get<float>();
    p.beta = j.at("clip").at(1).get<float>();
  }
  return p;
}

}  // namespace lathe::dnnl_plugin
