// The project's one error measure (ir/normalized_error.h) on the cases a
// std::max loop gets wrong: a NaN anywhere in the output, an all-NaN output,
// infinities; and its value on ordinary ones.
#include <QtTest>

#include <cmath>
#include <limits>

#include "ir/normalized_error.h"
#include "support/error.h"

using namespace lathe;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor floats(const std::vector<float>& values) {
  return Tensor::from_vector<float>(values, {static_cast<int64_t>(values.size())});
}

}  // namespace

class TestNormalizedError : public QObject {
  Q_OBJECT

 private slots:
  void largestDifferenceOverLargestReference() {
    QCOMPARE(normalized_error(floats({1, -2, 4}), floats({1, -2, 4})), 0.0);
    // max |got - want| = 0.5 (at -2), max |want| = 4.
    QCOMPARE(normalized_error(floats({1.25f, -2.5f, 4}), floats({1, -2, 4})), 0.125);
    // An all-zero reference: the absolute difference.
    QCOMPARE(normalized_error(floats({0, 0.5f}), floats({0, 0})), 0.5);
  }

  // Wherever the NaN is (first, last, everywhere), the error is infinite, so
  // that `error <= tolerance` fails.
  void aNaNOutputIsInfinitelyWrong_data() {
    QTest::addColumn<std::vector<float>>("got");
    QTest::newRow("first") << std::vector<float>{kNaN, 2, 3};
    QTest::newRow("last") << std::vector<float>{1, 2, kNaN};
    QTest::newRow("all") << std::vector<float>{kNaN, kNaN, kNaN};
  }

  void aNaNOutputIsInfinitelyWrong() {
    QFETCH(std::vector<float>, got);
    const double error = normalized_error(floats(got), floats({1, 2, 3}));
    QVERIFY2(std::isinf(error), qPrintable(QString::number(error)));
    QVERIFY(!(error <= 1e-4));
  }

  // A NaN the reference has too is a match; one it has alone is not.
  void nansMatchOnlyNaNs() {
    QCOMPARE(normalized_error(floats({kNaN, 2}), floats({kNaN, 2})), 0.0);
    QVERIFY(std::isinf(normalized_error(floats({1, 2}), floats({kNaN, 2}))));
  }

  // An infinite reference is matched exactly and leaves the scale to the
  // finite values.
  void infinitiesMatchOnlyThemselves() {
    QCOMPARE(normalized_error(floats({kInf, 1.5f}), floats({kInf, 2})), 0.25);
    QVERIFY(std::isinf(normalized_error(floats({-kInf, 2}), floats({kInf, 2}))));
    QVERIFY(std::isinf(normalized_error(floats({1e30f, 2}), floats({kInf, 2}))));
    QVERIFY(std::isinf(normalized_error(floats({kInf, 2}), floats({1, 2}))));
  }

  void integersAndDoublesToo() {
    // max |got - want| = 2, max |want| = 4.
    QCOMPARE(normalized_error(Tensor::from_vector<int64_t>({3, -4}, {2}),
                              Tensor::from_vector<int64_t>({4, -2}, {2})),
             0.5);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(std::isinf(normalized_error(Tensor::from_vector<double>({nan}, {1}),
                                        Tensor::from_vector<double>({1}, {1}))));
  }

  void differentTypesAreAnError() {
    QVERIFY_THROWS_EXCEPTION(Error, normalized_error(floats({1, 2}), floats({1, 2, 3})));
    QVERIFY_THROWS_EXCEPTION(
        Error, normalized_error(Tensor::from_vector<double>({1, 2}, {2}), floats({1, 2})));
  }
};

QTEST_APPLESS_MAIN(TestNormalizedError)
#include "tst_normalized_error.moc"
