# Schedule whose lowering time the kernel benchmark reports: a 3x3 conv2d
# (56x56, 64 -> 64 channels) with padding inlined, output channels blocked by
# 16 and vectorized along the row, reduction split and partly unrolled.
s = te.create_schedule(conv.op)
s[conv_pad].compute_inline()
nn, ff, yy, xx = s[conv].op.axis
rc, ry, rx = s[conv].op.reduce_axis
fo, fi = s[conv].split(ff, factor=16)
xo, xi = s[conv].split(xx, factor=8)
rco, rci = s[conv].split(rc, factor=4)
s[conv].reorder(nn, fo, yy, xo, rco, ry, rx, rci, fi, xi)
s[conv].vectorize(xi)
s[conv].unroll(rci)
f = s[conv].fuse(nn, fo)
s[conv].parallel(f)
