// The package's file formats, byte for byte: TVM's parameter blob, TVM's
// graph-executor JSON, DLPack data type text, and the CPU feature check.
#include <QtTest>
#include <cstring>

#include "recorded_cpus.h"
#include "runtime/cpu_features.h"
#include "runtime/graph_json.h"
#include "runtime/params.h"

using namespace lathe::runtime;

namespace {

template <typename T>
void append(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// What TVM's SaveParams writes for {"b": int64 [7, -1], "w": float32 (1, 2) [1.5, -2]},
// assembled field by field from its source (SaveDLTensor).
std::string expected_blob() {
  std::string b;
  append<uint64_t>(b, 0xF7E58D4F05049CB7ULL);  // kTVMNDArrayListMagic
  append<uint64_t>(b, 0);                      // reserved
  append<uint64_t>(b, 2);                      // names
  append<uint64_t>(b, 1);
  b += "b";
  append<uint64_t>(b, 1);
  b += "w";
  append<uint64_t>(b, 2);  // arrays
  // "b"
  append<uint64_t>(b, 0xDD5E40F096B4A13FULL);  // kTVMNDArrayMagic
  append<uint64_t>(b, 0);
  append<int32_t>(b, 1);  // kDLCPU
  append<int32_t>(b, 0);  // device id
  append<int32_t>(b, 1);  // ndim
  append<uint8_t>(b, 0);  // kDLInt
  append<uint8_t>(b, 64);
  append<uint16_t>(b, 1);
  append<int64_t>(b, 2);   // shape
  append<int64_t>(b, 16);  // data bytes
  append<int64_t>(b, 7);
  append<int64_t>(b, -1);
  // "w"
  append<uint64_t>(b, 0xDD5E40F096B4A13FULL);
  append<uint64_t>(b, 0);
  append<int32_t>(b, 1);
  append<int32_t>(b, 0);
  append<int32_t>(b, 2);
  append<uint8_t>(b, 2);  // kDLFloat
  append<uint8_t>(b, 32);
  append<uint16_t>(b, 1);
  append<int64_t>(b, 1);
  append<int64_t>(b, 2);
  append<int64_t>(b, 8);
  append<float>(b, 1.5f);
  append<float>(b, -2.0f);
  return b;
}

ParamMap tiny_params() {
  NDArray b({2}, DataType::int64());
  b.data_as<int64_t>()[0] = 7;
  b.data_as<int64_t>()[1] = -1;
  NDArray w({1, 2}, DataType::float32());
  w.data_as<float>()[0] = 1.5f;
  w.data_as<float>()[1] = -2.0f;
  return {{"b", b}, {"w", w}};
}

// Expects `body` to throw an Error whose message contains `part`.
template <typename F>
QString error_of(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return QStringLiteral("<no error>");
}

GraphModuleDesc two_node_graph() {
  GraphModuleDesc d;
  d.nodes.push_back({"null", "x", {}, "", 0, 1, false, false, ""});
  d.nodes.push_back({"null", "w", {}, "", 0, 1, false, false, ""});
  d.nodes.push_back(
      {"tvm_op", "fused_add", {{0, 0, 0}, {1, 0, 0}}, "fused_add", 2, 1, false, false, ""});
  d.arg_nodes = {0, 1};
  d.heads = {{2, 0, 0}};
  d.dltype = {"float32", "float32", "float32"};
  d.shape = {{1, 4}, {1, 4}, {1, 4}};
  d.storage_id = {0, 1, 2};
  finalize(d);
  return d;
}

}  // namespace

class TestRuntimeFormats : public QObject {
  Q_OBJECT

 private slots:
  void dataTypeText() {
    QCOMPARE(DataType::parse("float32"), DataType::float32());
    QCOMPARE(DataType::parse("int64"), DataType::int64());
    QCOMPARE(DataType::parse("bool"), (DataType{1, 1, 1}));
    QCOMPARE(DataType::parse("uint8"), (DataType{1, 8, 1}));
    QCOMPARE(DataType::parse("float16x4"), (DataType{2, 16, 4}));
    for (const char* text : {"float32", "float64", "int8", "int32", "uint8", "bool", "float32x8"})
      QCOMPARE(QString::fromStdString(DataType::parse(text).to_string()), QString(text));
    QCOMPARE(DataType::boolean().bytes(), 1);
    QCOMPARE(DataType::parse("float16x4").bytes(), 8);
    QVERIFY(error_of([] { DataType::parse("complex64"); }).contains("complex64"));
    QVERIFY(error_of([] { DataType::parse("int0"); }).contains("int0"));
  }

  void shapeTextIsNumpys() {
    QCOMPARE(QString::fromStdString(shape_to_string({1, 3, 224, 224})),
             QString("(1, 3, 224, 224)"));
    QCOMPARE(QString::fromStdString(shape_to_string({16})), QString("(16,)"));
    QCOMPARE(QString::fromStdString(shape_to_string({})), QString("()"));
  }

  void ndarrayIsAlignedAndZeroed() {
    NDArray a({3, 5}, DataType::float32());
    QCOMPARE(a.nbytes(), size_t(60));
    QCOMPARE(reinterpret_cast<uintptr_t>(a.data()) % 64, uintptr_t(0));
    for (int i = 0; i < 15; ++i) QCOMPARE(a.data_as<float>()[i], 0.0f);
    NDArray shared = a;
    NDArray copy = a.clone();
    a.data_as<float>()[0] = 3;
    QCOMPARE(shared.data_as<float>()[0], 3.0f);
    QCOMPARE(copy.data_as<float>()[0], 0.0f);
    QVERIFY(error_of([&] { a.copy_from(copy.data(), 59); }).contains("60 bytes"));
  }

  void paramsHaveTvmsByteLayout() {
    const std::string blob = save_params(tiny_params());
    const std::string want = expected_blob();
    QCOMPARE(blob.size(), want.size());
    QVERIFY(blob == want);
  }

  void paramsRoundTrip() {
    ParamMap loaded = load_params(expected_blob());
    QCOMPARE(loaded.size(), size_t(2));
    QCOMPARE(loaded["b"].dtype(), DataType::int64());
    QCOMPARE(loaded["b"].shape(), std::vector<int64_t>({2}));
    QCOMPARE(loaded["b"].data_as<int64_t>()[1], int64_t(-1));
    QCOMPARE(loaded["w"].shape(), std::vector<int64_t>({1, 2}));
    QCOMPARE(loaded["w"].data_as<float>()[0], 1.5f);
    QCOMPARE(loaded["w"].data_as<float>()[1], -2.0f);
    QVERIFY(save_params(loaded) == expected_blob());

    NDArray flags({3}, DataType::boolean());
    flags.data_as<uint8_t>()[1] = 1;
    ParamMap one = load_params(save_params({{"flags", flags}}));
    QCOMPARE(one["flags"].dtype().to_string(), std::string("bool"));
    QCOMPARE(one["flags"].data_as<uint8_t>()[1], uint8_t(1));
    QVERIFY(load_params(save_params({})).empty());
  }

  void paramsErrorsSayWhatIsWrong() {
    std::string wrong_magic = expected_blob();
    wrong_magic[0] = 0x12;
    QString e = error_of([&] { load_params(wrong_magic); });
    QVERIFY2(e.startsWith("mod.params: not a TVM parameter file (magic 0xF7E58D4F05049C12"),
             qPrintable(e));

    const std::string blob = expected_blob();
    e = error_of([&] { load_params(blob.substr(0, blob.size() - 3)); });
    QVERIFY2(e.contains("mod.params: truncated in array 'w'"), qPrintable(e));
    e = error_of([&] { load_params(blob.substr(0, 30)); });
    QVERIFY2(e.contains("truncated in the name list"), qPrintable(e));
    e = error_of([&] { load_params(blob.substr(0, 4), "weights.bin"); });
    QVERIFY2(e.startsWith("weights.bin: not a TVM parameter file"), qPrintable(e));
    e = error_of([&] { load_params(blob + "xx"); });
    QVERIFY2(e.contains("2 unexpected bytes"), qPrintable(e));

    std::string bad_size = blob;
    // "b"'s data byte count sits right after its shape: claim 24 bytes, not 16.
    const size_t b_size_at = 8 + 8 + 8 + 9 + 9 + 8 + 8 + 8 + 8 + 4 + 4 + 8;
    bad_size[b_size_at] = 24;
    e = error_of([&] { load_params(bad_size); });
    QVERIFY2(e.contains("array 'b' (int64(2,)) says 24 data bytes; expected 16"), qPrintable(e));

    std::string gpu = blob;
    gpu[8 + 8 + 8 + 9 + 9 + 8 + 8 + 8] = 2;  // device_type of "b": kDLCUDA
    e = error_of([&] { load_params(gpu); });
    QVERIFY2(e.contains("device type 2"), qPrintable(e));
  }

  // Found by fuzz_package: 2^62 float32 elements are 2^64 bytes, which wrapped
  // to the 0 data bytes the blob claims, and loaded as a 64-byte array.
  void paramsWhoseByteSizeOverflowsAreRejected() {
    std::string b;
    append<uint64_t>(b, kTVMNDArrayListMagic);
    append<uint64_t>(b, 0);
    append<uint64_t>(b, 1);
    append<uint64_t>(b, 3);
    b += "big";
    append<uint64_t>(b, 1);
    append<uint64_t>(b, kTVMNDArrayMagic);
    append<uint64_t>(b, 0);
    append<int32_t>(b, 1);  // kDLCPU
    append<int32_t>(b, 0);
    append<int32_t>(b, 1);  // ndim
    append<uint8_t>(b, 2);  // kDLFloat
    append<uint8_t>(b, 32);
    append<uint16_t>(b, 1);
    append<int64_t>(b, int64_t{1} << 62);  // shape
    append<int64_t>(b, 0);                 // data bytes, as the product wraps
    const QString e = error_of([&] { load_params(b); });
    QVERIFY2(e.contains("array 'big'") && e.contains("too many bytes"), qPrintable(e));
  }

  void graphJsonRoundTrip() {
    const GraphModuleDesc d = two_node_graph();
    const std::string text = to_json(d);
    QVERIFY2(text.find("\"op\": \"tvm_op\"") != std::string::npos, text.c_str());
    QVERIFY(text.find("\"num_inputs\": \"2\"") != std::string::npos);
    QVERIFY(text.find("\"flatten_data\": \"0\"") != std::string::npos);
    QVERIFY(text.find("\"list_shape\"") != std::string::npos);
    QVERIFY(text.find("\"node_row_ptr\"") != std::string::npos);
    const GraphModuleDesc back = parse_graph_json(text);
    QCOMPARE(back.nodes.size(), size_t(3));
    QCOMPARE(back.nodes[2].func_name, std::string("fused_add"));
    QCOMPARE(back.nodes[2].num_inputs, 2u);
    QVERIFY(back.nodes[2].inputs[1] == (GraphEntryRef{1, 0, 0}));
    QCOMPARE(back.arg_nodes, d.arg_nodes);
    QVERIFY(back.heads == d.heads);
    QCOMPARE(back.node_row_ptr, std::vector<uint32_t>({0, 1, 2, 3}));
    QCOMPARE(back.shape, d.shape);
    QCOMPARE(back.dltype, d.dltype);
    QCOMPARE(back.storage_id, d.storage_id);
    QCOMPARE(to_json(back), text);
  }

  // A cuda package's mod.json: the target and each kernel's launch; a CPU
  // package's has neither key.
  void graphJsonCarriesLaunchRecords() {
    GraphModuleDesc d = two_node_graph();
    const std::string cpu = to_json(d);
    QVERIFY(cpu.find("launches") == std::string::npos &&
            cpu.find("\"target\"") == std::string::npos);
    d.target = "cuda -arch=sm_90";
    d.launches["fused_add"] = {{16, 2, 1}, {256, 1, 1}, 4096};
    const GraphModuleDesc back = parse_graph_json(to_json(d));
    QCOMPARE(back.target, std::string("cuda -arch=sm_90"));
    QCOMPARE(back.launches.size(), size_t(1));
    QVERIFY(back.launches.at("fused_add") == (KernelLaunch{{16, 2, 1}, {256, 1, 1}, 4096}));
    QCOMPARE(to_json(back), to_json(d));

    d.launches["fused_add"].block = {256, 0, 1};
    QString e = error_of([&] { parse_graph_json(to_json(d)); });
    QVERIFY2(e.contains("launches.fused_add: block extent 0 is not in [1, 65535]"), qPrintable(e));
    d.launches["fused_add"] = {{1, 70000, 1}, {1, 1, 1}, 0};
    e = error_of([&] { parse_graph_json(to_json(d)); });
    QVERIFY2(e.contains("launches.fused_add: grid extent 70000"), qPrintable(e));
    std::string text = to_json(two_node_graph());
    text.insert(text.rfind('}'),
                R"(, "launches": {"k": {"grid": [1, 1], "block": [1, 1, 1], "shared_bytes": 0}})");
    e = error_of([&] { parse_graph_json(text); });
    QVERIFY2(e.contains("launches.k.grid: expected 3 extents"), qPrintable(e));
  }

  void graphJsonAsTvmWritesIt() {
    // A graph in the shape relay.build's executor codegen produces, with
    // TVM's extra keys (hash, device_index, metadata) and no node_row_ptr.
    const std::string tvm = R"({
      "nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "p0", "inputs": []},
        {"op": "tvm_op", "name": "tvmgen_default_fused_nn_dense_add",
         "attrs": {"num_outputs": "1", "num_inputs": "2", "flatten_data": "0",
                   "func_name": "tvmgen_default_fused_nn_dense_add", "hash": "1c2d"},
         "inputs": [[0, 0, 0], [1, 0, 0]]}],
      "arg_nodes": [0, 1],
      "heads": [[2, 0, 0]],
      "attrs": {"dltype": ["list_str", ["float32", "float32", "float32"]],
                "device_index": ["list_int", [1, 1, 1]],
                "storage_id": ["list_int", [0, 1, 2]],
                "shape": ["list_shape", [[1, 8], [4, 8], [1, 4]]]},
      "metadata": {"signatures": {}}
    })";
    const GraphModuleDesc d = parse_graph_json(tvm);
    QCOMPARE(d.nodes[2].func_name, std::string("tvmgen_default_fused_nn_dense_add"));
    QCOMPARE(d.num_entries(), 3u);
    QCOMPARE(d.shape[1], std::vector<int64_t>({4, 8}));
  }

  void graphJsonErrorsNameTheKey() {
    QString e = error_of([] { parse_graph_json("{\"nodes\": ["); });
    QVERIFY2(e.contains("not valid JSON"), qPrintable(e));
    // Found by fuzz_package: nlohmann's number overflow escaped as its own exception.
    e = error_of([] { parse_graph_json("{\"nodes\": [1E400]}"); });
    QVERIFY2(e.contains("not valid JSON") && e.contains("number overflow"), qPrintable(e));

    std::string text = to_json(two_node_graph());
    std::string no_func = text;
    no_func.replace(no_func.find("\"func_name\""), 11, "\"func_nam\"");
    e = error_of([&] { parse_graph_json(no_func); });
    QVERIFY2(e.contains("node 2 ('fused_add')") && e.contains("missing key 'func_name'"),
             qPrintable(e));

    std::string bad_tag = text;
    bad_tag.replace(bad_tag.find("\"list_int\""), 10, "\"list_str\"");
    e = error_of([&] { parse_graph_json(bad_tag); });
    QVERIFY2(e.contains("attrs.storage_id"), qPrintable(e));

    GraphModuleDesc forward = two_node_graph();
    forward.nodes[2].inputs[0] = {2, 0, 0};
    e = error_of([&] { parse_graph_json(to_json(forward)); });
    QVERIFY2(e.contains("does not refer to an earlier node"), qPrintable(e));

    GraphModuleDesc short_shapes = two_node_graph();
    short_shapes.shape.pop_back();
    e = error_of([&] { parse_graph_json(to_json(short_shapes)); });
    QVERIFY2(e.contains("attrs.shape") && e.contains("2 values for 3 entries"), qPrintable(e));

    GraphModuleDesc bad_dtype = two_node_graph();
    bad_dtype.dltype[1] = "float31x";
    e = error_of([&] { parse_graph_json(to_json(bad_dtype)); });
    QVERIFY2(e.contains("entry 1") && e.contains("float31x"), qPrintable(e));

    // Found by fuzz_package: the executor sized this entry's storage as 0 bytes.
    GraphModuleDesc huge = two_node_graph();
    huge.shape[1] = {int64_t{1} << 62};
    e = error_of([&] { parse_graph_json(to_json(huge)); });
    QVERIFY2(e.contains("entry 1") && e.contains("too many bytes"), qPrintable(e));
  }

  void recordedCpusDecodeToLlvmNames() {
    using lathe::test::haswell_cpuid;
    const std::set<std::string> haswell = decode_cpu_features(haswell_cpuid());
    for (const char* f : {"sse4.2", "avx", "avx2", "fma", "f16c", "lzcnt", "bmi", "bmi2", "movbe"})
      QVERIFY2(haswell.count(f), f);
    for (const char* f : {"avx512f", "evex512", "sse4a", "prfchw", "adx", "amx-tile"})
      QVERIFY2(!haswell.count(f), f);

    const std::set<std::string> spr = decode_cpu_features(lathe::test::sapphire_rapids_cpuid());
    for (const char* f : {"avx512f", "avx512bw", "avx512vnni", "avx512fp16", "avx512bf16",
                          "avxvnni", "amx-tile", "amx-int8", "amx-bf16", "prfchw", "lzcnt"})
      QVERIFY2(spr.count(f), f);
    for (const char* f : {"sse4a", "clzero", "xop", "avx512vp2intersect"})
      QVERIFY2(!spr.count(f), f);

    const std::set<std::string> zen4 = decode_cpu_features(lathe::test::zen4_cpuid());
    for (const char* f : {"avx512f", "avx512vnni", "avx512bf16", "avx512vbmi2", "sse4a", "lzcnt",
                          "clzero", "sahf", "prfchw"})
      QVERIFY2(zen4.count(f), f);
    for (const char* f : {"avx512fp16", "amx-tile", "avxvnni", "fma4", "xop"})
      QVERIFY2(!zen4.count(f), f);

    const std::set<std::string> zen5_vm = decode_cpu_features(lathe::test::zen5_vm_cpuid());
    for (const char* f : {"avx512f", "avx512vp2intersect", "avx512bf16", "avx512vnni", "gfni",
                          "sse4a", "lzcnt", "movbe", "adx"})
      QVERIFY2(zen5_vm.count(f), f);
    for (const char* f : {"invpcid", "rdseed", "xsaves", "pku", "rdpid", "mwaitx", "rdpru",
                          "wbnoinvd", "avx512fp16", "amx-tile"})
      QVERIFY2(!zen5_vm.count(f), f);
  }

  // CPUID announcing a register file is not enough: the OS must save it.
  void osDisabledStateHidesItsFeatures() {
    CpuidSnapshot no_avx512 = lathe::test::sapphire_rapids_cpuid();
    no_avx512.xcr0 = 0x7;  // AVX saved, AVX-512 and AMX state not
    const std::set<std::string> f = decode_cpu_features(no_avx512);
    QVERIFY(f.count("avx2") && f.count("fma") && f.count("bmi2"));
    QVERIFY(!f.count("avx512f") && !f.count("avx512fp16") && !f.count("amx-tile"));

    CpuidSnapshot no_xsave = lathe::test::haswell_cpuid();
    no_xsave.leaf1.ecx &= ~(1u << 27);  // OSXSAVE clear: XCR0 cannot be read
    const std::set<std::string> g = decode_cpu_features(no_xsave);
    QVERIFY(g.count("sse4.2") && g.count("lzcnt"));
    QVERIFY(!g.count("avx") && !g.count("avx2") && !g.count("fma"));
  }

  void missingFeaturesAreListedInOrder() {
    const std::set<std::string> zen4 = decode_cpu_features(lathe::test::zen4_cpuid());
    const std::set<std::string> haswell = decode_cpu_features(lathe::test::haswell_cpuid());
    QCOMPARE(missing_cpu_features("+sse4.1,+avx2,+lzcnt,+sse4a,+avx512f", zen4),
             std::vector<std::string>());
    QCOMPARE(missing_cpu_features("+avx2,+avx512f,+amx-tile,-sse4a,+avx512bw", haswell),
             std::vector<std::string>({"avx512f", "amx-tile", "avx512bw"}));
    // System facilities are not asked for; a name nobody can vouch for is.
    QCOMPARE(missing_cpu_features("+avx2,+sgx,+xsaves,+shstk,+clzero", haswell),
             std::vector<std::string>());
    QCOMPARE(missing_cpu_features("+avx2,+avx99", zen4), std::vector<std::string>({"avx99"}));
    // Nor are instructions only their own intrinsics reach, which no kernel
    // contains: what a hypervisor hides from a guest refuses nothing.
    const CpuidSnapshot guest_cpuid = lathe::test::as_vm_guest(lathe::test::haswell_cpuid());
    const std::set<std::string> guest = decode_cpu_features(guest_cpuid);
    QVERIFY(!guest.count("invpcid") && !guest.count("rdseed") && !guest.count("fsgsbase"));
    QCOMPARE(
        missing_cpu_features("+avx2,+fma,+invpcid,+rdseed,+xsaves,+pku,+fsgsbase,+sha,+adx", guest),
        std::vector<std::string>());
    QCOMPARE(missing_cpu_features("+avx2,+invpcid,+fma",
                                  decode_cpu_features(lathe::test::without_avx2(guest_cpuid))),
             std::vector<std::string>({"avx2"}));
  }

  // Whatever the machine running the tests is: every feature its CPUID has
  // passes the check, and the host's set is the decoded host snapshot.
  void hostFeaturesComeFromCpuid() {
    const std::set<std::string>& host = host_cpu_features();
    QCOMPARE(host, decode_cpu_features(read_host_cpuid()));
#if defined(__x86_64__)
    QVERIFY(host.count("sse2") && host.count("64bit"));
#endif
    std::string all;
    for (const std::string& f : host) all += (all.empty() ? "+" : ",+") + f;
    QCOMPARE(missing_cpu_features(all), std::vector<std::string>());
  }
};

QTEST_GUILESS_MAIN(TestRuntimeFormats)
#include "tst_runtime_formats.moc"
