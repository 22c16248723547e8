# Hand-written schedule of the 1024x1024x1024 float32 matmul benchmark, after
# TVM's "How to optimize GEMM on CPU": 8x32 register tiles accumulated in a
# local cache (16 AVX-512 accumulators), and for each 32-column panel of C the
# matching panel of B packed once into a contiguous local buffer, reused by
# all 128 row tiles. Panels run in parallel.
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
BB = s.cache_read(B, "local", [CC])
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 32)
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
