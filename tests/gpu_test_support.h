// What the tests of the cuda target share: the device they compile for, the
// message of the error a call throws, and CUDA's ptxas where the machine has
// one. ptxas is not a Debian package: without it the tests check the PTX by
// its text alone and say so.
#pragma once

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <functional>
#include <string>

#include "support/error.h"

namespace lathe::testing {

inline constexpr const char* kH100 = "cuda -arch=sm_90";
inline constexpr const char* kPtxas = "/usr/local/cuda/bin/ptxas";

inline bool has_ptxas() {
  return QFileInfo(kPtxas).isExecutable();
}

// What the Error `f` throws says; empty when it throws none.
inline QString error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// Assembles `ptx` for sm_90 with ptxas: empty when ptxas accepted it, else
// what it said. The caller checks has_ptxas() first.
inline QString ptxas_errors(const std::string& ptx, const QString& name = "kernel") {
  QTemporaryDir dir;
  const QString path = dir.filePath(name + ".ptx");
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return "cannot write " + path;
  file.write(ptx.data(), qint64(ptx.size()));
  file.close();
  QProcess ptxas;
  ptxas.start(kPtxas, {"-arch=sm_90", path, "-o", dir.filePath(name + ".cubin")});
  if (!ptxas.waitForFinished(60000)) return "ptxas did not finish";
  if (ptxas.exitStatus() != QProcess::NormalExit || ptxas.exitCode() != 0)
    return QString::fromLocal8Bit(ptxas.readAllStandardError());
  return {};
}

}  // namespace lathe::testing
