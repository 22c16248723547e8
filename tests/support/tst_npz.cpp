// NumPy .npz files: what NumPy wrote reads back, what Lathe writes reads back
// bit for bit, and damaged files fail with the path in the message.
#include <QtTest>

#include <QTemporaryDir>
#include <fstream>

#include "../test_models.h"
#include "driver/tensor_files.h"
#include "support/error.h"
#include "support/npz.h"

using namespace lathe;

class TestNpz : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void readsWhatNumpyWrote() {
    std::string path = lathe::testing::test_models_dir().toStdString() + "/mlp.io.npz";
    driver::NamedTensors t = driver::read_npz_tensors(path);
    QCOMPARE(t.size(), size_t{2});
    QCOMPARE(t[0].first, std::string("input"));
    QCOMPARE(t[0].second.type().to_string(), std::string("float32[1,1,28,28]"));
    QCOMPARE(t[1].second.type().to_string(), std::string("float32[1,10]"));
    // The README promises inputs uniform in [-1, 1].
    for (int64_t i = 0; i < t[0].second.numel(); ++i)
      QVERIFY(std::abs(t[0].second.data<float>()[i]) <= 1.0f);
  }

  void roundTripsEveryDtype() {
    driver::NamedTensors in;
    in.emplace_back("f", Tensor::from_vector<float>({1.5f, -2, 3, 4, 5, 6}, {2, 3}));
    in.emplace_back("d", Tensor::from_vector<double>({0.25}, {}));
    in.emplace_back("i64", Tensor::from_vector<int64_t>({-1, 1LL << 40}, {2}));
    in.emplace_back("u8", Tensor::from_vector<uint8_t>({0, 255, 7}, {3, 1}));
    in.emplace_back("b", Tensor::from_vector<bool>({true, false}, {2}));
    in.emplace_back("empty", Tensor(DType::Int32, {0, 4}));
    std::string path = dir_.filePath("round.npz").toStdString();
    driver::write_npz_tensors(path, in);
    driver::NamedTensors out = driver::read_npz_tensors(path);
    QCOMPARE(out.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      QCOMPARE(out[i].first, in[i].first);
      QCOMPARE(out[i].second.type(), in[i].second.type());
      QCOMPARE(std::memcmp(out[i].second.raw(), in[i].second.raw(), in[i].second.nbytes()), 0);
    }
  }

  void damagedFilesNameThePath() {
    std::string good = dir_.filePath("good.npz").toStdString();
    driver::write_npz_tensors(good, {{"x", Tensor(DType::Float32, {64})}});
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 5}) {
      std::string bad = dir_.filePath(QString("cut%1.npz").arg(cut)).toStdString();
      std::ofstream(bad, std::ios::binary) << bytes.substr(0, cut);
      try {
        driver::read_npz_tensors(bad);
        QFAIL(qPrintable(
            QString("an npz cut to %1 of %2 bytes was read").arg(cut).arg(bytes.size())));
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(bad) != std::string::npos, e.what());
      }
    }
  }

  void rejectsMalformedNpyHeaders() {
    QVERIFY_THROWS_EXCEPTION(Error, parse_npy("not an npy file", "x.npy"));
    NpyArray a{"<f4", {2}, std::vector<char>(8, 0)};
    std::string npy = serialize_npy(a);
    QCOMPARE(parse_npy(npy, "x.npy").shape, (std::vector<int64_t>{2}));
    QVERIFY_THROWS_EXCEPTION(Error, parse_npy(npy.substr(0, npy.size() - 1), "x.npy"));
  }
};

QTEST_GUILESS_MAIN(TestNpz)
#include "tst_npz.moc"
