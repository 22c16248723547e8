#include "tune/worker/cuda_measure.h"

#include <algorithm>

#include "runtime/cuda_device_api.h"
#include "support/error.h"
#include "tune/cuda_kernel_object.h"

namespace lathe::tune {
namespace {

constexpr int kMaxNumber = 1 << 20;

}  // namespace

void CudaMeasurer::set_buffers(const std::vector<runtime::NDArray>* host, int num_inputs) {
  host_ = host;
  num_inputs_ = num_inputs;
  buffers_.clear();
  pointers_.clear();
}

void CudaMeasurer::upload() {
  if (!device_) device_ = runtime::CudaDeviceAPI::get(0);
  LATHE_CHECK(host_, "measure: no buffers");
  for (size_t i = 0; i < host_->size(); ++i) {
    const runtime::NDArray& h = (*host_)[i];
    runtime::NDArray d(h.shape(), h.dtype(), device_);
    if (static_cast<int>(i) < num_inputs_) d.copy_from(h.data(), h.nbytes());
    pointers_.push_back(d.data());
    buffers_.push_back(std::move(d));
  }
}

CudaMeasurement CudaMeasurer::measure(const std::vector<char>& bytes, int number, int repeat,
                                      double min_repeat_ms, bool return_outputs) {
  loaded_ = false;
  const CudaKernelObject object = decode_cuda_kernel_object(bytes);
  if (buffers_.empty()) upload();
  const runtime::CudaModule module(device_, object.ptx);
  const runtime::CudaFunction function = module.function(object.kernel, object.launch);
  loaded_ = true;
  auto run = [&] { module.launch(function, object.launch, pointers_.data(), pointers_.size()); };

  // A warm-up run on outputs of all-ones bytes (NaN as floats): an element
  // the kernel never writes cannot pass for a computed zero.
  for (size_t i = static_cast<size_t>(num_inputs_); i < buffers_.size(); ++i) {
    const std::vector<char> ones(buffers_[i].nbytes(), static_cast<char>(0xff));
    buffers_[i].copy_from(ones.data(), ones.size());
  }
  run();
  device_->synchronize();
  CudaMeasurement m;
  if (return_outputs)
    for (size_t i = static_cast<size_t>(num_inputs_); i < buffers_.size(); ++i) {
      std::vector<char>& out = m.outputs.emplace_back(buffers_[i].nbytes());
      buffers_[i].copy_to(out.data(), out.size());
    }

  // Each repeat: `number` launches between two CUDA events, the device's own
  // time (no host launch gaps counted beyond the queue's), grown as the
  // CPU worker grows its batches until one lasts min_repeat_ms.
  auto batch_ms = [&](int n) {
    const std::unique_ptr<runtime::DeviceTimer> timer = device_->create_timer();
    timer->start();
    for (int i = 0; i < n; ++i) run();
    timer->stop();
    return timer->elapsed_ms();
  };
  number = std::clamp(number, 1, kMaxNumber);
  for (int r = 0; r < std::max(1, repeat); ++r) {
    double ms = batch_ms(number);
    while (ms < min_repeat_ms && number < kMaxNumber) {
      const double per_run = ms / number;
      const double enough = per_run > 0 ? min_repeat_ms / per_run + 1 : 2.0 * number;
      number = static_cast<int>(std::min<double>(kMaxNumber, std::max(enough, number * 1.618)));
      ms = batch_ms(number);
    }
    m.costs_ms.push_back(ms / number);
    m.runs.push_back(number);
  }
  return m;
}

}  // namespace lathe::tune
