// NumPy .npy and .npz files: parsing and writing arrays as raw bytes with their
// NumPy dtype string, so that test inputs and reference outputs can travel
// between Lathe and Python. Free of core/ir: callers map descr to a DType.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lathe {

struct NpyArray {
  std::string descr;  // NumPy dtype string: "<f4", "<i8", "|b1", "|u1" ...
  std::vector<int64_t> shape;
  std::vector<char> data;  // C order, little-endian
};

// Bytes per element of a descr ("<f4" -> 4); throws naming `where` when the
// descr is big-endian, an object or structured dtype, or not understood.
size_t npy_itemsize(const std::string& descr, const std::string& where);

// Parses a whole .npy file (format versions 1.0, 2.0 and 3.0, C order only);
// throws lathe::Error naming `where` on any malformation.
NpyArray parse_npy(const std::string& bytes, const std::string& where);
// A version 1.0 .npy file, its header padded to 64 bytes as NumPy pads it
// (version 2.0 only if the header outgrows 1.0's 16-bit length).
std::string serialize_npy(const NpyArray& a);

// The arrays of an .npz file in archive order, keyed by member name without
// ".npy". Members may be stored (np.savez) or deflated (np.savez_compressed).
// Throws lathe::Error naming the path, and the member when one is at fault.
std::vector<std::pair<std::string, NpyArray>> read_npz(const std::string& path);
// Writes an uncompressed .npz, as np.savez does; numpy.load reads it.
void write_npz(const std::string& path,
               const std::vector<std::pair<std::string, NpyArray>>& arrays);

}  // namespace lathe
