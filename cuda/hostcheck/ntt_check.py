#!/usr/bin/env python3
"""Recomputes the small cases that ntt_host prints (stdin) with Python big ints, from the constants alone:
r, g = 7, ROOT_OF_UNITY = 7^((r-1)/2^32) (== blstrs' constant), omega = ROOT_OF_UNITY^(2^(32-log_n)).
Semantics as src/backend/cpu/ntt.rs (Domain::ntt/intt/coset_ntt/icoset_ntt) and bellperson's compute_h."""
import sys

r = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
G = 7
ROU = pow(G, (r - 1) >> 32, r)
assert ROU == 0x16A2A19EDFE81F20D09B681922C813B4B63683508C2280B93829971F439F0D2B  # blstrs ROOT_OF_UNITY (canonical)

def dft(x, w):
    n = len(x)
    return [sum(x[j] * pow(w, j * k, r) for j in range(n)) % r for k in range(n)]

def ops(log_n):
    n = 1 << log_n
    w = pow(ROU, 1 << (32 - log_n), r)
    wi, ni, gi = pow(w, r - 2, r), pow(n, r - 2, r), pow(G, r - 2, r)
    fwd = lambda x: dft(x, w)
    inv = lambda x: [v * ni % r for v in dft(x, wi)]
    cfwd = lambda x: dft([v * pow(G, i, r) % r for i, v in enumerate(x)], w)
    cinv = lambda x: [v * pow(gi, i, r) % r for i, v in enumerate(inv(x))]
    zi = pow((pow(G, n, r) - 1) % r, r - 2, r)
    def h(a, b, c):
        a, b, c = (cfwd(inv(v)) for v in (a, b, c))
        return cinv([(x * y - z) * zi % r for x, y, z in zip(a, b, c)])
    return dict(fwd=fwd, inv=inv, cfwd=cfwd, cinv=cinv), h

cases = fails = 0
cur = {}
for line in sys.stdin:
    tok = line.split()
    if not tok:
        continue
    if tok[0] == "case":
        log_n = int(tok[1]); cur = {}; single, h = ops(log_n)
        continue
    vals = [int(t, 16) for t in tok[1:]]
    cur[tok[0]] = vals
    if tok[0] in single:
        want = single[tok[0]](cur["x"])
    elif tok[0] == "h":
        want = h(cur["x"], cur["y"], cur["z"])
    else:
        continue
    cases += 1
    if want != vals:
        fails += 1
        print(f"MISMATCH {tok[0]} at 2^{log_n}")
print(f"python: {cases} cases checked, {fails} mismatches")
sys.exit(1 if fails or cases == 0 else 0)
