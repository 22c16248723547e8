// The tuner's cost model: features of lowered kernels tell schedules apart in
// the ways that decide speed, and the XGBoost ranking model learns a known
// ordering of candidates from half of them well enough to order the others.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "schedule/schedule.h"
#include "support/error.h"
#include "tir/lower.h"
#include "topi/nn.h"
#include "tune/cost_model.h"
#include "tune/features.h"

using namespace lathe;
using namespace lathe::tune;

namespace {

// A matmul's schedule knobs, as a tuning template has them: tile sizes of i,
// j and k (loop order io, jo, ko, ii, ki, ji) and what the inner loops do.
struct Knobs {
  int64_t ti = 1, tj = 1, tk = 1;
  bool vectorize = false, parallel = false, unroll = false, prefetch = false;
};

struct MatmulShape {
  int64_t m, n, k;
};

tir::PrimFunc lower_matmul(const MatmulShape& shape, const Knobs& c) {
  te::Tensor a = te::placeholder({shape.m, shape.k}, te::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({shape.k, shape.n}, te::DataType::Float(32), "B");
  te::Tensor out = topi::matmul(a, b);
  schedule::Schedule sch({out.op()});
  schedule::Stage s = sch[out];
  auto [io, ii] = s.split(s.axis()[0], c.ti);
  auto [jo, ji] = s.split(s.axis()[1], c.tj);
  auto [ko, ki] = s.split(s.reduce_axis()[0], c.tk);
  s.reorder({io, jo, ko, ii, ki, ji});
  if (c.parallel) s.parallel(io);
  if (c.vectorize) s.vectorize(ji);
  if (c.unroll) s.unroll(ki);
  if (c.prefetch) s.prefetch(b, ko, 1);
  return tir::lower(sch, {a, b, out}, "kernel", {.record_ir = false}).func;
}

// The plain matmul, or with its own loop order (i, k, j when `k_before_j`).
tir::PrimFunc lower_plain_matmul(bool k_before_j) {
  te::Tensor a = te::placeholder({64, 32}, te::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({32, 48}, te::DataType::Float(32), "B");
  te::Tensor out = topi::matmul(a, b);
  schedule::Schedule sch({out.op()});
  schedule::Stage s = sch[out];
  if (k_before_j) s.reorder({s.axis()[0], s.reduce_axis()[0], s.axis()[1]});
  return tir::lower(sch, {a, b, out}, "kernel", {.record_ir = false}).func;
}

constexpr MatmulShape kSmall{64, 48, 32};

// The named feature; NaN (failing every comparison) for an unknown name.
float feature(const std::vector<float>& f, const std::string& name) {
  std::vector<std::string> names = feature_names();
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? NAN : f[it - names.begin()];
}

bool all_finite(const std::vector<float>& f) {
  return std::all_of(f.begin(), f.end(), [](float v) { return std::isfinite(v); });
}

// The synthetic "measured" throughput: a known function of the knobs, in the
// direction real hardware agrees with (wider vectors, threads, unrolled
// reductions and taller tiles are faster).
double synthetic_gflops(const Knobs& c) {
  double g = 1 + 0.1 * std::log2(static_cast<double>(c.ti));
  if (c.parallel) g *= 3;
  if (c.vectorize && c.tj > 1) g *= 1 + std::log2(static_cast<double>(c.tj));
  if (c.unroll && c.tk > 1) g *= 1.25;
  return g;
}

// `count` distinct knob settings, drawn with a fixed seed.
std::vector<Knobs> distinct_knobs(size_t count, unsigned seed) {
  std::vector<Knobs> all;
  for (int64_t ti : {1, 2, 4, 8, 16})
    for (int64_t tj : {1, 2, 4, 8, 16})
      for (int64_t tk : {1, 2, 4, 8})
        for (int flags = 0; flags < 8; ++flags)
          all.push_back({ti, tj, tk, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0});
  std::mt19937 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min(count, all.size()));
  return all;
}

struct Sample {
  std::vector<float> features;
  double gflops;
  int task;
};

// Fraction of the pairs of one task with different throughputs whose scores
// order them the same way.
double pair_agreement(const std::vector<Sample>& samples, const std::vector<double>& scores) {
  int agree = 0, pairs = 0;
  for (size_t i = 0; i < samples.size(); ++i)
    for (size_t j = i + 1; j < samples.size(); ++j) {
      if (samples[i].task != samples[j].task) continue;
      double truth = samples[i].gflops - samples[j].gflops;
      if (std::abs(truth) < 1e-9) continue;
      ++pairs;
      agree += truth * (scores[i] - scores[j]) > 0;
    }
  return pairs ? static_cast<double>(agree) / pairs : 0;
}

std::vector<std::vector<float>> rows_of(const std::vector<Sample>& samples) {
  std::vector<std::vector<float>> rows;
  for (const Sample& s : samples) rows.push_back(s.features);
  return rows;
}

}  // namespace

class TestCostModel : public QObject {
  Q_OBJECT

 private slots:
  void namesAreUniqueAndOnePerFeature() {
    std::vector<std::string> names = feature_names();
    QCOMPARE(static_cast<int>(names.size()), num_features());
    QCOMPARE(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  }

  void everyScheduleGivesFiniteFeaturesOfFixedLength() {
    for (const Knobs& c :
         {Knobs{}, Knobs{4, 16, 4, true, true, true}, Knobs{8, 1, 8, false, false, true}}) {
      std::vector<float> f = extract_features(lower_matmul(kSmall, c));
      QCOMPARE(static_cast<int>(f.size()), num_features());
      QVERIFY(all_finite(f));
    }
  }

  // Scheduling moves work around; the floating-point work stays 2·M·N·K.
  void flopsAreTheSameUnderEverySchedule() {
    double want = std::log2(1.0 + 2.0 * kSmall.m * kSmall.n * kSmall.k);
    for (const Knobs& c : {Knobs{}, Knobs{4, 16, 1, true, false, false},
                           Knobs{2, 8, 4, true, true, true}, Knobs{16, 4, 8, false, true, true}}) {
      std::vector<float> f = extract_features(lower_matmul(kSmall, c));
      QVERIFY2(std::abs(feature(f, "kernel.flops") - want) < 1e-3,
               qPrintable(
                   QString("flops feature %1, want %2").arg(feature(f, "kernel.flops")).arg(want)));
    }
  }

  void vectorWidthIsTheVectorizedLoopsExtent() {
    std::vector<float> plain = extract_features(lower_matmul(kSmall, {}));
    std::vector<float> vec = extract_features(lower_matmul(kSmall, {1, 16, 1, true, false, false}));
    QCOMPARE(feature(plain, "store0.vector_lanes"), 1.0f);
    QCOMPARE(feature(vec, "store0.vector_lanes"), 16.0f);
    QCOMPARE(feature(vec, "kernel.max_vector_lanes"), 16.0f);
  }

  void parallelLoopIsSeen() {
    std::vector<float> plain =
        extract_features(lower_matmul(kSmall, {4, 1, 1, false, false, false}));
    std::vector<float> par = extract_features(lower_matmul(kSmall, {4, 1, 1, false, true, false}));
    QCOMPARE(feature(plain, "store0.parallel_extent"), 0.0f);
    QCOMPARE(feature(plain, "kernel.parallel_loops"), 0.0f);
    // 64 / 4 = 16 outer iterations run in parallel.
    QCOMPARE(feature(par, "store0.parallel_extent"), std::log2(17.0f));
    QCOMPARE(feature(par, "kernel.parallel_loops"), 1.0f);
    QVERIFY(feature(par, "store0.work_per_thread") < feature(plain, "store0.work_per_thread"));
  }

  // Unrolling leaves no loop behind: the copies in the body tell.
  void unrolledCopiesAreCounted() {
    std::vector<float> plain =
        extract_features(lower_matmul(kSmall, {1, 1, 4, false, false, false}));
    std::vector<float> unrolled =
        extract_features(lower_matmul(kSmall, {1, 1, 4, false, false, true}));
    QCOMPARE(feature(plain, "store0.unroll"), 1.0f);
    QCOMPARE(feature(unrolled, "store0.unroll"), 4.0f);
    QVERIFY(feature(unrolled, "store0.loop_depth") < feature(plain, "store0.loop_depth"));
  }

  // A prefetch adds no arithmetic and no store but is seen: the cache lines
  // it fetches, here B's next 4 x 48 block (12 lines + 1 sample) per ko
  // iteration of each (io, jo).
  void prefetchesAreCounted() {
    const Knobs plain{2, 48, 4, false, false, false};
    Knobs fetched = plain;
    fetched.prefetch = true;
    std::vector<float> a = extract_features(lower_matmul(kSmall, plain));
    std::vector<float> b = extract_features(lower_matmul(kSmall, fetched));
    QCOMPARE(feature(a, "kernel.prefetches"), 0.0f);
    QVERIFY(feature(b, "kernel.prefetches") > 0.0f);
    QCOMPARE(feature(a, "kernel.flops"), feature(b, "kernel.flops"));
    QCOMPARE(feature(a, "kernel.stores"), feature(b, "kernel.stores"));
  }

  void differentTilesGiveDifferentFeatures() {
    std::vector<float> a = extract_features(lower_matmul(kSmall, {8, 4, 1, false, false, false}));
    std::vector<float> b = extract_features(lower_matmul(kSmall, {4, 8, 1, false, false, false}));
    std::vector<float> c = extract_features(lower_matmul(kSmall, {4, 8, 2, false, false, false}));
    QVERIFY(a != b);
    QVERIFY(b != c);
  }

  // With k innermost the load of B strides by a row and C accumulates in
  // place; with j innermost every load is contiguous or invariant and the
  // accumulator is revisited only after a whole row.
  void loopOrderChangesStridesAndReuse() {
    std::vector<float> ijk = extract_features(lower_plain_matmul(false));
    std::vector<float> ikj = extract_features(lower_plain_matmul(true));
    QCOMPARE(feature(ijk, "store0.reduction_update"), 1.0f);
    QCOMPARE(feature(ijk, "store0.contiguous_loads"), 2.0f / 3.0f);
    QCOMPARE(feature(ikj, "store0.contiguous_loads"), 1.0f);
    QCOMPARE(feature(ijk, "store0.store_reuse_bytes"), std::log2(5.0f));
    QCOMPARE(feature(ikj, "store0.store_reuse_bytes"), std::log2(1.0f + 48 * 4));
  }

  // A padded convolution has two stages; both are described, the conv first,
  // and padding adds no floating-point work.
  void convolutionHasOneGroupPerStage() {
    te::Tensor data = te::placeholder({1, 8, 16, 16}, te::DataType::Float(32), "data");
    te::Tensor weight = te::placeholder({16, 8, 3, 3}, te::DataType::Float(32), "weight");
    topi::Conv2dParams p;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    te::Tensor out = topi::conv2d_nchw(data, weight, p);
    schedule::Schedule sch({out.op()});
    std::vector<float> f =
        extract_features(tir::lower(sch, {data, weight, out}, "conv", {.record_ir = false}).func);
    QVERIFY(all_finite(f));
    QVERIFY(feature(f, "kernel.store_groups") >= 2);
    QCOMPARE(feature(f, "store0.reduction_update"), 1.0f);
    QCOMPARE(feature(f, "kernel.flops"), std::log2(1.0f + 2 * 16 * 16 * 16 * 8 * 9));
    QCOMPARE(feature(f, "store1.flops"), 0.0f);
    QCOMPARE(feature(f, "store1.store_to_local"), 1.0f);
  }

  // XGBoost is a module loaded on the first training (tune/xgboost_ranker.h):
  // one that is missing or no module fails that training with a message
  // naming the file, keeps the model as it was, and the next training loads
  // the real one. Runs before any other test trains: a loaded module stays.
  void aModuleThatDoesNotLoadIsNamed() {
    const auto restore = qScopeGuard([] { qunsetenv("LATHE_XGBOOST_RANKER"); });
    const std::vector<std::vector<float>> rows = {{1, 2, 3}, {2, 3, 4}};
    CostModel model;
    auto training_error = [&]() -> QByteArray {
      try {
        model.update(rows, {1.0, 2.0}, {0, 0});
      } catch (const Error& e) {
        return e.what();
      }
      return {};
    };

    const QByteArray missing = "/nonexistent/liblathe_xgboost_ranker.so";
    qputenv("LATHE_XGBOOST_RANKER", missing);
    QByteArray error = training_error();
    QVERIFY2(error.contains(missing), error.constData());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile not_a_module(dir.filePath("liblathe_xgboost_ranker.so"));
    QVERIFY(not_a_module.open(QIODevice::WriteOnly));
    not_a_module.write("not a shared object\n");
    not_a_module.close();
    QVERIFY(not_a_module.setPermissions(not_a_module.permissions() | QFileDevice::ExeOwner));
    qputenv("LATHE_XGBOOST_RANKER", QFile::encodeName(not_a_module.fileName()));
    error = training_error();
    QVERIFY2(error.contains("cannot load " + QFile::encodeName(not_a_module.fileName())),
             error.constData());
    QCOMPARE(model.num_samples(), size_t{0});
    QVERIFY(!model.trained());

    qunsetenv("LATHE_XGBOOST_RANKER");
    model.update(rows, {1.0, 2.0}, {0, 0});
    QVERIFY(model.trained());
  }

  void predictBeforeTrainingIsZero() {
    CostModel model;
    QVERIFY(!model.trained());
    QCOMPARE(model.num_samples(), size_t{0});
    std::vector<double> scores =
        model.predict({std::vector<float>(5, 1.0f), std::vector<float>(5, 2.0f)});
    QCOMPARE(scores, std::vector<double>({0.0, 0.0}));
  }

  void mismatchedInputsThrowAndKeepTheModel() {
    CostModel model;
    std::vector<std::vector<float>> rows = {{1, 2, 3}, {2, 3, 4}, {3, 4, 5}};
    QVERIFY_THROWS_EXCEPTION(Error, model.update(rows, {1.0, 2.0}, {0, 0, 0}));
    QVERIFY_THROWS_EXCEPTION(Error, model.update(rows, {1.0, 2.0, 3.0}, {0, 0}));
    QVERIFY_THROWS_EXCEPTION(Error, model.update({{1, 2, 3}, {1, 2}}, {1.0, 2.0}, {0, 0}));
    QVERIFY_THROWS_EXCEPTION(Error, model.update(rows, {1.0, -2.0, 3.0}, {0, 0, 0}));
    QVERIFY_THROWS_EXCEPTION(Error, model.update(rows, {1.0, NAN, 3.0}, {0, 0, 0}));
    QCOMPARE(model.num_samples(), size_t{0});
    QVERIFY(!model.trained());

    model.update(rows, {1.0, 2.0, 0.0}, {0, 0, 0});
    QVERIFY(model.trained());
    QCOMPARE(model.num_samples(), size_t{3});
    QVERIFY_THROWS_EXCEPTION(Error, model.update({{1, 2}}, {1.0}, {0}));
    QVERIFY_THROWS_EXCEPTION(Error, model.predict({{1, 2, 3}, {1, 2, 3, 4}}));
    QCOMPARE(model.num_samples(), size_t{3});
    QCOMPARE(model.predict(rows).size(), size_t{3});
  }

  // Half of two tasks' candidates train the model; it must order the other
  // half's pairs (within a task) far better than a coin.
  void learnsTheOrderingOfUnseenCandidates() {
    const MatmulShape shapes[] = {{64, 64, 64}, {32, 96, 48}};
    std::vector<Sample> train, test;
    for (int task = 0; task < 2; ++task) {
      std::vector<Knobs> knobs = distinct_knobs(160, 11 + task);
      for (size_t i = 0; i < knobs.size(); ++i) {
        Sample s{extract_features(lower_matmul(shapes[task], knobs[i])), synthetic_gflops(knobs[i]),
                 task};
        (i % 2 ? test : train).push_back(std::move(s));
      }
    }
    // Tasks interleaved, as measurements of several tasks arrive.
    std::vector<Sample> first, second;
    for (size_t i = 0; i < train.size(); ++i) (i % 3 ? first : second).push_back(train[i]);
    std::sort(first.begin(), first.end(),
              [](const Sample& a, const Sample& b) { return a.task > b.task; });

    CostModel model;
    for (const std::vector<Sample>* batch : {&first, &second}) {
      std::vector<double> gflops;
      std::vector<int> groups;
      for (const Sample& s : *batch) {
        gflops.push_back(s.gflops);
        groups.push_back(s.task);
      }
      model.update(rows_of(*batch), gflops, groups);
    }
    QCOMPARE(model.num_samples(), train.size());

    std::vector<double> scores = model.predict(rows_of(test));
    QCOMPARE(scores.size(), test.size());
    double agreement = pair_agreement(test, scores);
    qInfo("pairs of unseen candidates ordered right: %.1f %%", 100 * agreement);
    QVERIFY2(agreement > 0.75, qPrintable(QString("agreement %1").arg(agreement)));
  }

  // A fixed seed: the same samples give the same model.
  void trainingIsDeterministic() {
    std::vector<std::vector<float>> rows;
    std::vector<double> gflops;
    for (const Knobs& c : distinct_knobs(40, 5)) {
      rows.push_back(extract_features(lower_matmul(kSmall, c)));
      gflops.push_back(synthetic_gflops(c));
    }
    std::vector<int> groups(rows.size(), 0);
    CostModel a, b;
    a.update(rows, gflops, groups);
    b.update(rows, gflops, groups);
    std::vector<double> sa = a.predict(rows), sb = b.predict(rows);
    QCOMPARE(sa, sb);
    QVERIFY(std::any_of(sa.begin(), sa.end(), [&](double v) { return v != sa[0]; }));
  }
};

QTEST_APPLESS_MAIN(TestCostModel)
#include "tst_cost_model.moc"
