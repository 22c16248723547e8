// Filling a graph executor's inputs from an .npz or with random values.
#include "studio/executor_inputs.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>
#include <map>
#include <random>
#include <vector>

#include "driver/graph_compiler.h"
#include "driver/tensor_files.h"
#include "support/float16.h"

namespace lathe::studio {

QString ioNpzPathFor(const QString& modelPath) {
  const QFileInfo model(modelPath);
  const QString npz = model.dir().filePath(model.completeBaseName() + QStringLiteral(".io.npz"));
  return QFileInfo::exists(npz) ? npz : QString();
}

namespace {

std::vector<char> randomBytes(const driver::DataType& dtype, int64_t elements,
                              std::mt19937& random) {
  std::vector<char> bytes(static_cast<size_t>(elements * dtype.bytes()), 0);
  if (dtype.lanes != 1) return bytes;
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  if (dtype.code == driver::DataType::kBFloat && dtype.bits == 16) {
    auto* values = reinterpret_cast<BFloat16*>(bytes.data());
    for (int64_t i = 0; i < elements; ++i)
      values[i] = BFloat16(static_cast<float>(uniform(random)));
  }
  if (dtype.code != driver::DataType::kFloat) return bytes;
  if (dtype.bits == 16) {
    auto* values = reinterpret_cast<Float16*>(bytes.data());
    for (int64_t i = 0; i < elements; ++i) values[i] = Float16(static_cast<float>(uniform(random)));
  } else if (dtype.bits == 32) {
    auto* values = reinterpret_cast<float*>(bytes.data());
    for (int64_t i = 0; i < elements; ++i) values[i] = static_cast<float>(uniform(random));
  } else if (dtype.bits == 64) {
    auto* values = reinterpret_cast<double*>(bytes.data());
    for (int64_t i = 0; i < elements; ++i) values[i] = uniform(random);
  }
  return bytes;
}

}  // namespace

QString feedInputs(driver::GraphExecutor& executor, const QString& modelPath,
                   std::vector<std::vector<char>>* fed) {
  return feedInputsFrom(executor, ioNpzPathFor(modelPath), fed);
}

QString feedInputsFrom(driver::GraphExecutor& executor, const QString& npz,
                       std::vector<std::vector<char>>* fed) {
  std::map<std::string, Tensor> given;
  if (!npz.isEmpty())
    for (auto& [name, tensor] : driver::read_npz_tensors(QFile::encodeName(npz).toStdString()))
      given.emplace(name, std::move(tensor));

  std::mt19937 random(0);
  QStringList fromFile, randomInputs;
  for (int i = 0; i < executor.num_inputs(); ++i) {
    const std::string& name = executor.input_name(i);
    auto it = given.find(name);
    if (it != given.end()) {
      const std::optional<DType> dtype = dtype_from_name(executor.input_dtype(i).to_string());
      if (dtype) it->second = driver::as_input_dtype(it->second, *dtype);
    }
    if (it != given.end() && it->second.nbytes() == executor.input_nbytes(i) &&
        driver::dltype_name(it->second.dtype()) == executor.input_dtype(i).to_string() &&
        it->second.shape() == executor.input_shape(i)) {
      executor.set_input(i, it->second.raw(), it->second.nbytes());
      if (fed) {
        const char* raw = static_cast<const char*>(it->second.raw());
        fed->emplace_back(raw, raw + it->second.nbytes());
      }
      fromFile << QString::fromStdString(name);
      continue;
    }
    const std::vector<char> bytes =
        randomBytes(executor.input_dtype(i), driver::num_elements(executor.input_shape(i)), random);
    executor.set_input(i, bytes.data(), bytes.size());
    if (fed) fed->push_back(bytes);
    randomInputs << QString::fromStdString(name);
  }
  if (randomInputs.isEmpty())
    return QStringLiteral("inputs from %1").arg(QFileInfo(npz).fileName());
  const QString randomText =
      QStringLiteral("random inputs (floats uniform in [-1, 1], seed 0; integers 0): %1")
          .arg(randomInputs.join(QStringLiteral(", ")));
  if (fromFile.isEmpty()) return randomText;
  return QStringLiteral("%1 from %2; %3")
      .arg(fromFile.join(QStringLiteral(", ")), QFileInfo(npz).fileName(), randomText);
}

}  // namespace lathe::studio
