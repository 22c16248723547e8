# Hand-written schedule of the 1024x1024x1024 float32 matmul benchmark, after
# TVM's "How to optimize GEMM on CPU": 8x32 register tiles accumulated in a
# local cache, B's 32-column panel packed per tile column, rows in parallel.
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 32)
s[CC].compute_at(s[C], no)
mc, nc = s[CC].op.axis
k, = s[CC].op.reduce_axis
ko, ki = s[CC].split(k, factor=4)
s[CC].reorder(ko, ki, mc, nc)
s[CC].vectorize(nc)
s[CC].unroll(mc)
s[CC].unroll(ki)
s[C].vectorize(ni)
s[C].parallel(mo)
