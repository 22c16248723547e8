"""TVM's parameter blob (mod.params, runtime/params.h), read and written with
NumPy: how the GPU device check hands inputs and outputs to lathe_device_run
and reads its results. Float32, int64, int32, uint8, int8 and bool arrays."""

import struct

import numpy as np

LIST_MAGIC = 0xF7E58D4F05049CB7
ARRAY_MAGIC = 0xDD5E40F096B4A13F
# DLPack (code, bits) <-> NumPy.
DTYPES = {(2, 32): np.float32, (2, 16): np.float16, (0, 64): np.int64, (0, 32): np.int32,
          (0, 8): np.int8, (1, 8): np.uint8, (1, 1): np.bool_}
CODES = {np.dtype(v): k for k, v in DTYPES.items()}


def save(path, arrays):
    """Writes {name: array} in name order, as runtime::save_params does."""
    names = sorted(arrays)
    out = [struct.pack("<QQQ", LIST_MAGIC, 0, len(names))]
    for name in names:
        data = name.encode()
        out.append(struct.pack("<Q", len(data)) + data)
    out.append(struct.pack("<Q", len(names)))
    for name in names:
        a = np.ascontiguousarray(arrays[name])
        code, bits = CODES[a.dtype]
        out.append(struct.pack("<QQiiiBBH", ARRAY_MAGIC, 0, 1, 0, a.ndim, code, bits, 1))
        out.append(struct.pack(f"<{a.ndim}q", *a.shape))
        raw = a.tobytes()
        out.append(struct.pack("<q", len(raw)) + raw)
    with open(path, "wb") as f:
        f.write(b"".join(out))


def load(path):
    """{name: array} from a parameter blob."""
    with open(path, "rb") as f:
        blob = f.read()
    at = 0

    def take(fmt):
        nonlocal at
        values = struct.unpack_from(fmt, blob, at)
        at += struct.calcsize(fmt)
        return values

    magic, _, count = take("<QQQ")
    if magic != LIST_MAGIC:
        raise ValueError(f"{path}: not a TVM parameter file (magic {magic:#x})")
    names = []
    for _ in range(count):
        (length,) = take("<Q")
        names.append(blob[at:at + length].decode())
        at += length
    (arrays,) = take("<Q")
    result = {}
    for name in names[:arrays]:
        magic, _, _, _, ndim, code, bits, lanes = take("<QQiiiBBH")
        if magic != ARRAY_MAGIC or lanes != 1:
            raise ValueError(f"{path}: array '{name}' is not one this reader knows")
        shape = take(f"<{ndim}q")
        (nbytes,) = take("<q")
        dtype = DTYPES[(code, bits)]
        result[name] = np.frombuffer(blob[at:at + nbytes], dtype=dtype).reshape(shape).copy()
        at += nbytes
    return result
