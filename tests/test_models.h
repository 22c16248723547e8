// Where the test models are: tools/models/export_models.py exports them from
// PyTorch into the build tree (the ctest fixture "test_models"), with
// PyTorch's outputs beside them as NAME.io.npz. Nothing outside the
// repository is needed.
#pragma once

#include <QString>
#include <QtGlobal>

namespace lathe::testing {

inline QString test_models_dir() {
  const QString dir = qEnvironmentVariable("LATHE_TEST_MODELS");
  if (dir.isEmpty())
    qFatal(
        "LATHE_TEST_MODELS is not set: run the tests through ctest, whose fixture "
        "test_models exports the models into the build tree");
  return dir;
}

}  // namespace lathe::testing
