// The NumPy readers (support/npz.h) on arbitrary bytes: each input is read
// both as an .npz (a zip, through libarchive) and as a bare .npy, since zip's
// CRC keeps most mutations of a member from reaching the .npy header parser.
// Anything but a lathe::Error escaping, or a sanitizer report, is a bug.
#include <cstdint>
#include <string>

#include "fuzz/scratch_file.h"
#include "support/error.h"
#include "support/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lathe::fuzz::ScratchFile file(".npz");
  try {
    for (const auto& [name, array] : lathe::read_npz(file.write(data, size)))
      lathe::serialize_npy(array);
  } catch (const lathe::Error&) {
  }
  try {
    lathe::NpyArray array =
        lathe::parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    lathe::npy_itemsize(array.descr, "fuzz.npy");
  } catch (const lathe::Error&) {
  }
  return 0;
}
