#!/usr/bin/env python3
# bench/full_cli/mse.py: MSE of maps against targets, read from the
# uncompressed MAT5 files cli/ee writes
# (pure Python: no numpy or scipy needed). Usage:
#   mse.py TARGET.mat NAME=MAPS.mat ...   (each: MSE per row over T, mean over rows)
import array, struct, sys

def load_A(path):
    b = open(path, 'rb').read()
    e = '<' if b[126:128] == b'IM' else '>'
    def sub(q):
        t, nb = struct.unpack_from(e + 'II', b, q)
        if t >> 16:
            return t & 0xffff, b[q + 4:q + 4 + (t >> 16)], q + 8
        return t, b[q + 8:q + 8 + nb], q + 8 + (nb + 7) // 8 * 8
    p = 128
    while p + 8 <= len(b):
        typ, n = struct.unpack_from(e + 'II', b, p)
        if typ == 14:
            _, fl, q = sub(p + 8)
            _, dm, q = sub(q)
            _, nm, q = sub(q)
            if nm.decode() == 'A':
                t, data, q = sub(q)
                a = array.array({7: 'f', 9: 'd'}[t], data)
                if (e == '<') != (sys.byteorder == 'little'):
                    a.byteswap()
                dims = struct.unpack(e + '%di' % (len(dm) // 4), dm)
                return a, dims[0], dims[1]
        p += 8 + n
    raise SystemExit('no A in ' + path)

ref, N, T = load_A(sys.argv[1])
for arg in sys.argv[2:]:
    name, path = arg.split('=', 1)
    a, n, t = load_A(path)
    assert (n, t) == (N, T), (path, n, t, N, T)
    print('%s %.6g' % (name, sum((x - y) ** 2 for x, y in zip(a, ref)) / (N * T)))
