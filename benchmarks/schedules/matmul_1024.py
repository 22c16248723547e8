# Hand-written schedule of the 1024x1024x1024 float32 matmul benchmark, after
# TVM's "How to optimize GEMM on CPU": 5x64 register tiles accumulated in a
# local cache (20 of the 32 AVX-512 registers; the last row tile is guarded),
# and for each 64-column panel of C the matching panel of B packed once into a
# contiguous local buffer (256 KB, in L2), reused by all row tiles. Panels run
# in parallel. Per step of k the tile loads 4 B vectors and broadcasts 5 A
# values for 20 FMAs (0.45 loads an FMA); the former 8x32 tile needed 10 for 16
# (0.63) and measured ~5 points of peak lower here (bench_kernels, 2 threads).
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
BB = s.cache_read(B, "local", [CC])
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 5, 64)
s[C].reorder(no, mo, mi, ni)
s[CC].compute_at(s[C], mo)
s[BB].compute_at(s[C], no)
mc, nc = s[CC].op.axis
k, = s[CC].op.reduce_axis
ko, ki = s[CC].split(k, factor=4)
s[CC].reorder(ko, ki, mc, nc)
s[CC].vectorize(nc)
s[CC].unroll(mc)
s[CC].unroll(ki)
bk, bn = s[BB].op.axis
s[BB].vectorize(bn)
s[C].vectorize(ni)
s[C].parallel(no)
