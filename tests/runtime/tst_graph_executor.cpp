// The graph executor with kernels written in C++ and handed over through the
// lookup: inputs, bound parameters, node order, storage sharing, errors,
// external codegens' nodes, the per-kernel profile and TVM's timing text.
#include <QtTest>
#include <cmath>
#include <cstdio>

#include "../counting_device_api.h"
#include "runtime/device_api.h"
#include "runtime/graph_executor.h"
#include "runtime/graph_json.h"

using namespace lathe::runtime;

namespace {

constexpr int kN = 6;

int add_calls = 0;

void add_kernel(void** args) {
  ++add_calls;
  auto* a = static_cast<const float*>(args[0]);
  auto* b = static_cast<const float*>(args[1]);
  auto* c = static_cast<float*>(args[2]);
  for (int i = 0; i < kN; ++i) c[i] = a[i] + b[i];
}

void relu_kernel(void** args) {
  auto* x = static_cast<const float*>(args[0]);
  auto* y = static_cast<float*>(args[1]);
  for (int i = 0; i < kN; ++i) y[i] = std::max(x[i], 0.0f);
}

// Two outputs: the sum and the difference.
void sum_diff_kernel(void** args) {
  auto* a = static_cast<const float*>(args[0]);
  auto* b = static_cast<const float*>(args[1]);
  auto* s = static_cast<float*>(args[2]);
  auto* d = static_cast<float*>(args[3]);
  for (int i = 0; i < kN; ++i) {
    s[i] = a[i] + b[i];
    d[i] = a[i] - b[i];
  }
}

KernelFunction lookup(const std::string& name) {
  if (name == "add") return add_kernel;
  if (name == "relu") return relu_kernel;
  if (name == "sum_diff") return sum_diff_kernel;
  return nullptr;
}

// An external codegen's table (runtime/external_abi.h) whose kernels scale
// their input by the factor their parameters name: "scale 3".
int live_scale_kernels = 0;

void* create_scale(const char* params, char* error, size_t error_size) {
  float factor = 0;
  if (std::sscanf(params, "scale %f", &factor) != 1) {
    std::snprintf(error, error_size, "bad parameters '%s'", params);
    return nullptr;
  }
  ++live_scale_kernels;
  return new float(factor);
}

void run_scale(void* kernel, void** args) {
  auto* x = static_cast<const float*>(args[0]);
  auto* y = static_cast<float*>(args[1]);
  for (int i = 0; i < kN; ++i) y[i] = x[i] * *static_cast<float*>(kernel);
}

void destroy_scale(void* kernel) {
  --live_scale_kernels;
  delete static_cast<float*>(kernel);
}

const LatheExternalFunctions kScale = {LATHE_EXTERNAL_ABI_VERSION, create_scale, run_scale,
                                       destroy_scale};

const LatheExternalFunctions* external_lookup(const std::string& name) {
  return name == "scale_functions" ? &kScale : nullptr;
}

GraphNode input(const std::string& name) {
  return {"null", name, {}, "", 0, 1, false, false, ""};
}

GraphNode op(const std::string& name, const std::string& func, std::vector<GraphEntryRef> in,
             uint32_t outputs = 1) {
  const uint32_t n = static_cast<uint32_t>(in.size());
  return {"tvm_op", name, std::move(in), func, n, outputs, false, false, ""};
}

// y = relu(x + w) with w a parameter; entries x, w, t, y.
GraphModuleDesc add_relu_graph() {
  GraphModuleDesc d;
  d.nodes = {input("x"), input("w"), op("fused_add", "add", {{0, 0, 0}, {1, 0, 0}}),
             op("fused_relu", "relu", {{2, 0, 0}})};
  d.arg_nodes = {0, 1};
  d.heads = {{3, 0, 0}};
  d.dltype.assign(4, "float32");
  d.shape.assign(4, {2, 3});
  d.storage_id = {0, 1, 2, 3};
  finalize(d);
  return d;
}

NDArray floats(std::vector<float> values) {
  NDArray a({2, 3}, DataType::float32());
  a.copy_from(values.data(), values.size() * sizeof(float));
  return a;
}

template <typename F>
QString error_of(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return QStringLiteral("<no error>");
}

std::vector<float> output_values(const GraphExecutor& ex, int index) {
  std::vector<float> out(static_cast<size_t>(ex.output(index).numel()));
  ex.copy_output(index, out.data(), out.size() * sizeof(float));
  return out;
}

using lathe::testing::CountingDeviceAPI;

DeviceKernels device_kernels(std::shared_ptr<DeviceAPI> device) {
  return {std::move(device), [](const std::string& name) -> DeviceKernel {
            KernelFunction f = lookup(name);
            if (!f) return {};
            return [f](void* const* buffers, size_t) { f(const_cast<void**>(buffers)); };
          }};
}

}  // namespace

class TestGraphExecutor : public QObject {
  Q_OBJECT

 private slots:
  void runsKernelsInNodeOrderWithBoundParams() {
    GraphExecutor ex(add_relu_graph(), lookup, {{"w", floats({1, 1, 1, -10, -10, -10})}});
    QCOMPARE(ex.num_inputs(), 1);  // w is a parameter, not an input
    QCOMPARE(ex.input_name(0), std::string("x"));
    QCOMPARE(ex.input_shape(0), std::vector<int64_t>({2, 3}));
    QCOMPARE(ex.input_dtype(0), DataType::float32());
    QCOMPARE(ex.input_index("x"), 0);
    QCOMPARE(ex.input_index("w"), -1);
    QCOMPARE(ex.num_outputs(), 1);
    QCOMPARE(ex.output_shape(0), std::vector<int64_t>({2, 3}));
    QCOMPARE(ex.storage_bytes(), size_t(4 * 24));

    const std::vector<float> x = {1, -2, 3, 4, 5, 6};
    ex.set_input("x", x.data(), x.size() * sizeof(float));
    ex.run();
    QCOMPARE(output_values(ex, 0), std::vector<float>({2, 0, 4, 0, 0, 0}));
    QCOMPARE(ex.output(0).data_as<float>()[2], 4.0f);

    // Parameters stay bound across runs and inputs.
    const std::vector<float> x2 = {0, 0, 0, 20, 20, 20};
    ex.set_input(0, x2.data(), x2.size() * sizeof(float));
    ex.run();
    QCOMPARE(output_values(ex, 0), std::vector<float>({1, 1, 1, 10, 10, 10}));
  }

  void sharedStorageAndMultipleOutputs() {
    // s, d = sum_diff(x, y); t = add(s, d) reuses nothing; u = relu(t) reuses s's storage.
    GraphModuleDesc d;
    d.nodes = {input("x"), input("y"), op("sd", "sum_diff", {{0, 0, 0}, {1, 0, 0}}, 2),
               op("t", "add", {{2, 0, 0}, {2, 1, 0}}), op("u", "relu", {{3, 0, 0}})};
    d.arg_nodes = {0, 1};
    d.heads = {{4, 0, 0}, {2, 1, 0}};
    d.dltype.assign(6, "float32");
    d.shape.assign(6, {2, 3});
    d.storage_id = {0, 1, 2, 3, 4, 2};  // entries x, y, s, d, t, u
    finalize(d);
    GraphExecutor ex(d, lookup);
    QCOMPARE(ex.num_inputs(), 2);
    QCOMPARE(ex.num_storages(), size_t(5));
    QCOMPARE(ex.storage_bytes(), size_t(5 * 24));
    const std::vector<float> x = {1, 2, 3, -4, -5, -6}, y = {1, 1, 1, 1, 1, 1};
    ex.set_input("x", x.data(), 24);
    ex.set_input("y", y.data(), 24);
    ex.run();
    // t = (x + y) + (x - y) = 2x; u = relu(2x); d = x - y.
    QCOMPARE(output_values(ex, 0), std::vector<float>({2, 4, 6, 0, 0, 0}));
    QCOMPARE(output_values(ex, 1), std::vector<float>({0, 1, 2, -5, -6, -7}));
  }

  void errorsNameWhatIsWrong() {
    QString e = error_of([] {
      GraphModuleDesc d = add_relu_graph();
      d.nodes[3].func_name = "gelu";
      GraphExecutor ex(d, lookup);
    });
    QVERIFY2(e.contains("kernel 'gelu'") && e.contains("fused_relu"), qPrintable(e));

    e = error_of([] {
      GraphExecutor ex(add_relu_graph(), lookup, {{"v", NDArray({1}, DataType::float32())}});
    });
    QVERIFY2(e.contains("parameter 'v' is not an argument"), qPrintable(e));

    e = error_of([] {
      GraphExecutor ex(add_relu_graph(), lookup, {{"w", NDArray({3}, DataType::float32())}});
    });
    QVERIFY2(e.contains("parameter 'w' is float32(3,); the graph expects float32(2, 3)"),
             qPrintable(e));

    e = error_of([] {
      GraphModuleDesc d = add_relu_graph();
      d.storage_id = {0, 1, 0, 2};  // the add would overwrite input x
      GraphExecutor ex(d, lookup);
    });
    QVERIFY2(e.contains("argument node 0 ('x')") && e.contains("shared"), qPrintable(e));

    GraphExecutor ex(add_relu_graph(), lookup, {{"w", floats({0, 0, 0, 0, 0, 0})}});
    float small[3] = {};
    e = error_of([&] { ex.set_input("x", small, sizeof small); });
    QVERIFY2(e.contains("input 'x' (float32(2, 3)) takes 24 bytes; got 12"), qPrintable(e));
    e = error_of([&] { ex.set_input("w", small, sizeof small); });
    QVERIFY2(e.contains("no input 'w' (inputs: x)"), qPrintable(e));
    e = error_of([&] { ex.copy_output(0, small, sizeof small); });
    QVERIFY2(e.contains("holds 24 bytes"), qPrintable(e));
    e = error_of([&] { ex.output(1); });
    QVERIFY2(e.contains("output index 1 out of range"), qPrintable(e));
  }

  // y = scale(x + w): the last node runs through an external codegen's table,
  // built from its parameters once and destroyed with the executor.
  void externalNodesRunThroughTheirTable() {
    GraphModuleDesc d = add_relu_graph();
    d.nodes[3].func_name = "scale_functions";
    d.nodes[3].external = true;
    d.nodes[3].external_params = "scale 3";
    // mod.json carries the parameters.
    const GraphModuleDesc parsed = parse_graph_json(to_json(d));
    QVERIFY(parsed.nodes[3].external);
    QCOMPARE(parsed.nodes[3].external_params, std::string("scale 3"));
    QVERIFY(!parsed.nodes[2].external);
    {
      GraphExecutor ex(parsed, lookup, {{"w", floats({1, 1, 1, 1, 1, 1})}}, external_lookup);
      QCOMPARE(live_scale_kernels, 1);
      const std::vector<float> x = {-2, -1, 0, 1, 2, 3};
      ex.set_input("x", x.data(), x.size() * sizeof(float));
      ex.run();
      QCOMPARE(output_values(ex, 0), (std::vector<float>{-3, 0, 3, 6, 9, 12}));
    }
    QCOMPARE(live_scale_kernels, 0);

    QString e = error_of([&] { GraphExecutor ex(d, lookup, {}); });
    QCOMPARE(e, QString("external function 'scale_functions' of node 3 ('fused_relu') is not in "
                        "any loaded library"));
    d.nodes[3].external_params = "double";
    e = error_of([&] { GraphExecutor ex(d, lookup, {}, external_lookup); });
    QCOMPARE(e, QString("external function 'scale_functions' of node 3 ('fused_relu'): bad "
                        "parameters 'double'"));
  }

  // On a device the memory plan is the device's, parameters go there once,
  // inputs when set, and run() copies the outputs back and waits: nothing
  // else crosses.
  void deviceExecutorCopiesAtTheGraphsBoundaryOnly() {
    auto device = std::make_shared<CountingDeviceAPI>();
    GraphExecutor ex(add_relu_graph(), device_kernels(device),
                     {{"w", floats({1, 1, 1, -10, -10, -10})}});
    QCOMPARE(device->allocations, 4);  // one pool per storage id
    QCOMPARE(device->to_device, 1);    // w
    const std::vector<float> x = {1, -2, 3, 4, 5, 6};
    ex.set_input("x", x.data(), x.size() * sizeof(float));
    QCOMPARE(device->to_device, 2);
    for (int run = 1; run <= 3; ++run) {
      ex.run();
      QCOMPARE(device->to_host, run);  // the one output
      QCOMPARE(device->syncs, run);
    }
    QCOMPARE(device->to_device, 2);
    QCOMPARE(output_values(ex, 0), std::vector<float>({2, 0, 4, 0, 0, 0}));
    // The output is a host copy, not a view of the device's memory.
    QVERIFY(ex.output(0).is_host());
    const std::vector<KernelProfile> rows = ex.profile(2);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[1].func_name, std::string("relu"));
    QCOMPARE(device->to_host, 3);  // the profile copies nothing
  }

  void deviceExecutorErrorsNameTheNode() {
    auto device = std::make_shared<CountingDeviceAPI>();
    GraphModuleDesc d = add_relu_graph();
    d.nodes[3].func_name = "scale_functions";
    d.nodes[3].external = true;
    QString e = error_of([&] { GraphExecutor ex(d, device_kernels(device)); });
    QCOMPARE(e, QString("node 3 ('fused_relu') runs through an external codegen "
                        "('scale_functions'), which runs on the host only"));
    QCOMPARE(device->allocations, 0);  // refused before any memory is taken
    d = add_relu_graph();
    d.nodes[3].func_name = "tanh";
    e = error_of([&] { GraphExecutor ex(d, device_kernels(device)); });
    QCOMPARE(e, QString("kernel 'tanh' of node 3 ('fused_relu') is not in the module"));

    // A launch that fails names its node and the device.
    DeviceKernels failing{device, [](const std::string& name) -> DeviceKernel {
                            if (name == "relu")
                              return [](void* const*, size_t) { throw Error("launch refused"); };
                            return [](void* const*, size_t) {};
                          }};
    GraphExecutor ex(add_relu_graph(), failing, {{"w", floats({0, 0, 0, 0, 0, 0})}});
    e = error_of([&] { ex.run(); });
    QCOMPARE(e, QString("node 3 ('fused_relu') on host: launch refused"));
  }

  void profileHasOneRowPerKernel() {
    GraphExecutor ex(add_relu_graph(), lookup, {{"w", floats({0, 0, 0, 0, 0, 0})}});
    add_calls = 0;
    const std::vector<KernelProfile> rows = ex.profile(5);
    QCOMPARE(add_calls, 5);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[0].node_name, std::string("fused_add"));
    QCOMPARE(rows[1].func_name, std::string("relu"));
    QCOMPARE(rows[1].shape, std::vector<int64_t>({2, 3}));
    QVERIFY(rows[0].time_us >= 0);
  }

  void profileTableIsTvmsDebugLayout() {
    const std::vector<KernelProfile> rows = {{"fused_relu", "relu", 25.0, {1, 64}},
                                             {"fused_conv2d_add", "conv_kernel", 75.0, {1, 8}}};
    const std::string want =
        "Node Name         Ops          Time(us)  Time(%)  Shape    \n"
        "---------         ---          --------  -------  -----    \n"
        "fused_conv2d_add  conv_kernel  75.000    75.000   (1, 8)   \n"
        "fused_relu        relu         25.000    25.000   (1, 64)  \n"
        "Total_time        -            100.000   -        -        \n";
    QCOMPARE(QString::fromStdString(GraphExecutor::format_profile(rows)),
             QString::fromStdString(want));
  }

  void timeSummaryIsTvmcsText() {
    const TimeSummary s = TimeSummary::from_samples({1.0, 2.0, 4.0, 5.0});
    QCOMPARE(s.mean, 3.0);
    QCOMPARE(s.median, 3.0);
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 5.0);
    QCOMPARE(s.std, std::sqrt(2.5));  // population std, as np.std
    QCOMPARE(TimeSummary::from_samples({3.0, 1.0, 2.0}).median, 2.0);

    TimeSummary t;
    t.mean = 1.2345;
    t.median = 1.2;
    t.max = 1.5;
    t.min = 1.1;
    t.std = 0.1;
    // Python: f"{'mean (ms)':^12} ..." and f"{mean:^12.4f} ..." + 15 spaces.
    const std::string want =
        "Execution time summary:\n"
        " mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)  \n"
        "   1.2345       1.2000       1.5000       1.1000       0.1000                  ";
    QCOMPARE(QString::fromStdString(format_time_summary(t)), QString::fromStdString(want));

    t.mean = 123.45678;
    const std::string wide = format_time_summary(t);
    QVERIFY2(wide.find("\n  123.4568  ") != std::string::npos, wide.c_str());
  }

  void benchmarkRunsRepeatTimesNumber() {
    GraphExecutor ex(add_relu_graph(), lookup, {{"w", floats({0, 0, 0, 0, 0, 0})}});
    add_calls = 0;
    const TimeSummary s = benchmark(ex, 3, 4);
    QCOMPARE(add_calls, 1 + 3 * 4);  // one warm-up run
    QCOMPARE(s.results.size(), size_t(3));
    QVERIFY(s.min <= s.median && s.median <= s.max && s.min >= 0);
    QVERIFY(error_of([&] { benchmark(ex, 0, 1); }).contains("at least 1"));
  }
};

QTEST_GUILESS_MAIN(TestGraphExecutor)
#include "tst_graph_executor.moc"
