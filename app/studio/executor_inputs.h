// Inputs for the runs the studio times (Benchmark tab, Run package): the
// arrays of the model's NAME.io.npz when one lies next to the model, as the
// shared models carry their reference inputs, else seeded random values.
#pragma once

#include <QString>
#include <vector>

#include "driver/executor.h"

namespace lathe::studio {

// NAME.io.npz beside NAME.onnx; empty when there is none.
QString ioNpzPathFor(const QString& modelPath);

// Sets every input of `executor`: from the .io.npz of `modelPath` where it
// holds an array of that name, type and shape, else floats uniform in
// [-1, 1] (seed 0) and zeros for integers, which stay valid indices. Returns
// one line saying where the inputs came from. Throws lathe::Error for an
// unreadable .npz. With `fed`, also hands back each input's bytes, in input
// order (for another runtime to run on the same values).
QString feedInputs(driver::GraphExecutor& executor, const QString& modelPath,
                   std::vector<std::vector<char>>* fed = nullptr);
// The same from the arrays of `npzPath` (a user's inputs for a package); an
// empty path gives random values for every input.
QString feedInputsFrom(driver::GraphExecutor& executor, const QString& npzPath,
                       std::vector<std::vector<char>>* fed = nullptr);

}  // namespace lathe::studio
