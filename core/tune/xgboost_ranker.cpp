#include "tune/xgboost_ranker.h"

#include <dlfcn.h>

#include <mutex>

#include "support/error.h"
#include "support/program_files.h"

namespace lathe::tune {
namespace {

const LatheXgboostRanker* load() {
  const std::string path =
      find_program_file(kXgboostRankerModule, "LATHE_XGBOOST_RANKER", ProgramFileKind::Module);
  // Never closed: boosters and XGBoost's thread-local state live as long as the process.
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module) fail(str("cost model: cannot load ", path, ": ", dlerror()));
  auto entry =
      reinterpret_cast<LatheXgboostRankerEntry>(dlsym(module, LATHE_XGBOOST_RANKER_SYMBOL));
  if (!entry) fail(str("cost model: ", path, " has no ", LATHE_XGBOOST_RANKER_SYMBOL));
  const LatheXgboostRanker* ranker = entry();
  LATHE_CHECK(ranker && ranker->abi_version == LATHE_XGBOOST_RANKER_ABI_VERSION,
              "cost model: ", path, " has interface version ", ranker ? ranker->abi_version : 0,
              ", expected ", LATHE_XGBOOST_RANKER_ABI_VERSION);
  return ranker;
}

}  // namespace

const LatheXgboostRanker& xgboost_ranker() {
  static std::mutex mutex;
  static const LatheXgboostRanker* ranker = nullptr;
  const std::lock_guard lock(mutex);
  if (!ranker) ranker = load();
  return *ranker;
}

}  // namespace lathe::tune
