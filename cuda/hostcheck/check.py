#!/usr/bin/env python3
"""Host check of cuda/curve.cuh, cuda/msm.cu and cuda/batch_add.cu without a GPU.

Run from the repository root:   python3 cuda/hostcheck/check.py   (needs g++; ~1-2 minutes)
With ASAN=1 the harness is built with AddressSanitizer/UBSan (its buffers have the device buffers' sizes).

Builds cuda/hostcheck/hostcheck.cpp (the kernels compiled as host C++, their launch sequences emulated thread
by thread) and checks its output against an independent big-integer model of BLS12-381 written here:
G1/G2 group operations (mixed add, doubling, P + P, P + (-P), XYZZ add, identity handling, XYZZ -> Jacobian in
blst's layout), MSMs at several sizes and windows (n = 0, 1, 2, 3, non-powers of two; c = 1 .. 16; scalars
0, 1, r - 1, (r -+ 1)/2, 2^253, 2^254, repeated scalars, repeated bases, bases at infinity, several passes),
and G1/G2 batch additions (bitmap edges, bits past n, infinity bases, the multi-level reduction).
Points are encoded exactly as blst/blstrs lay them out (Montgomery limbs, little-endian u64).
"""
import os
import random
import subprocess
import sys
import tempfile

P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001

# ---- fields: Fp as int, Fp2 as (c0, c1) with u^2 = -1 ----
class Fp:
    zero, one = 0, 1
    add = staticmethod(lambda a, b: (a + b) % P)
    sub = staticmethod(lambda a, b: (a - b) % P)
    mul = staticmethod(lambda a, b: a * b % P)
    inv = staticmethod(lambda a: pow(a, -1, P))
    neg = staticmethod(lambda a: -a % P)

    @staticmethod
    def limbs(a):
        m = a * (1 << 384) % P
        return [(m >> (64 * i)) & (2**64 - 1) for i in range(6)]

    @staticmethod
    def from_limbs(l):
        m = sum(v << (64 * i) for i, v in enumerate(l[:6]))
        assert m < P, "non-reduced Fp"
        return m * pow(1 << 384, -1, P) % P

    nlimbs = 6


class Fp2:
    zero, one = (0, 0), (1, 0)
    add = staticmethod(lambda a, b: ((a[0] + b[0]) % P, (a[1] + b[1]) % P))
    sub = staticmethod(lambda a, b: ((a[0] - b[0]) % P, (a[1] - b[1]) % P))
    mul = staticmethod(lambda a, b: ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P))
    neg = staticmethod(lambda a: (-a[0] % P, -a[1] % P))

    @staticmethod
    def inv(a):
        d = pow(a[0] * a[0] + a[1] * a[1], -1, P)
        return (a[0] * d % P, -a[1] * d % P)

    @staticmethod
    def limbs(a):
        return Fp.limbs(a[0]) + Fp.limbs(a[1])

    @staticmethod
    def from_limbs(l):
        return (Fp.from_limbs(l[:6]), Fp.from_limbs(l[6:12]))

    nlimbs = 12


# ---- affine curve arithmetic (None = identity), a = 0 ----
def on_curve(F, b, pt):
    if pt is None:
        return True
    x, y = pt
    return F.mul(y, y) == F.add(F.mul(F.mul(x, x), x), b)


def add(F, p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if y1 != y2 or y1 == F.zero:
            return None
        lam = F.mul(F.mul((3, 0) if F is Fp2 else 3, F.mul(x1, x1)), F.inv(F.add(y1, y1)))
    else:
        lam = F.mul(F.sub(y2, y1), F.inv(F.sub(x2, x1)))
    x3 = F.sub(F.sub(F.mul(lam, lam), x1), x2)
    return (x3, F.sub(F.mul(lam, F.sub(x1, x3)), y1))


def neg(F, p):
    return None if p is None else (p[0], F.neg(p[1]))


def mul(F, p, k):
    acc = None
    for bit in bin(k)[2:] if k > 0 else "":
        acc = add(F, acc, acc)
        if bit == "1":
            acc = add(F, acc, p)
    return acc


G1 = (0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
      0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1)
G2 = ((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
       0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
      (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
       0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE))
B1, B2 = 4, (4, 4)
assert on_curve(Fp, B1, G1) and on_curve(Fp2, B2, G2)


def enc_affine(F, pt):
    if pt is None:
        return [0] * (2 * F.nlimbs)
    return F.limbs(pt[0]) + F.limbs(pt[1])


def dec_jacobian(F, l):
    n = F.nlimbs
    X, Y, Z = F.from_limbs(l[:n]), F.from_limbs(l[n:2 * n]), F.from_limbs(l[2 * n:3 * n])
    if Z == F.zero:
        assert X == F.zero and Y == F.zero, "identity not all-zero"
        return None
    zi = F.inv(Z)
    zi2 = F.mul(zi, zi)
    pt = (F.mul(X, zi2), F.mul(Y, F.mul(zi2, zi)))
    assert on_curve(F, B1 if F is Fp else B2, pt), "result off the curve"
    return pt


def enc_scalar(s):
    m = s * (1 << 256) % R
    return [(m >> (64 * i)) & (2**64 - 1) for i in range(4)]


def hx(v):
    return " ".join("%x" % x for x in v)


# ---- harness driver ----
def build():
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(tempfile.gettempdir(), "cuzk-hostcheck")
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"] if os.environ.get("ASAN") else []
    subprocess.run(["g++", "-O2", "-std=c++17"] + san + ["-Wall", "-Wno-unused-function", "-Wno-unknown-pragmas", "-x", "c++",
                    os.path.join(here, "hostcheck.cpp"), "-o", exe], check=True)
    return exe


class Harness:
    def __init__(self, exe):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, text, lines):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()
        out = []
        for _ in range(lines):
            line = self.p.stdout.readline()
            if not line:
                sys.exit("harness died")
            out.append([int(t, 16) for t in line.split()])
        return out


fails = 0


def check(what, got, want):
    global fails
    if got != want:
        fails += 1
        print("FAIL", what)


def test_ops(h, rng):
    for F, G, name, nn in ((Fp, G1, "g1", 18), (Fp2, G2, "g2", 36)):
        pairs = []
        for _ in range(3):
            pairs.append((mul(F, G, rng.randrange(1, R)), mul(F, G, rng.randrange(1, R))))
        p0 = mul(F, G, rng.randrange(1, R))
        pairs += [(p0, p0), (p0, neg(F, p0))]
        for P_, Q_ in pairs:
            out = h.call("%sops %s %s" % (name, hx(enc_affine(F, P_)), hx(enc_affine(F, Q_))), 10)
            got = [dec_jacobian(F, o) for o in out]
            assert all(len(o) == nn for o in out)
            pq = add(F, P_, Q_)
            want = [pq, add(F, P_, P_), None, add(F, add(F, P_, P_), pq), add(F, pq, pq), None, add(F, pq, pq),
                    mul(F, pq, 12345), P_, P_]
            for i, (g, w) in enumerate(zip(got, want)):
                check("%s op %d" % (name, i), g, w)
    print("group ops: done")


def chain_points(F, G, n, rng, inf_every=0):
    """n points k_i·G with k_i = k0 + i·d (one addition each); k_i = 0 (identity) every inf_every-th."""
    k0, d = rng.randrange(1, R), rng.randrange(1, R)
    pt, dp = mul(F, G, k0), mul(F, G, d)
    pts, ks = [], []
    for i in range(n):
        if inf_every and i % inf_every == inf_every - 1:
            pts.append(None)
            ks.append(0)
        else:
            pts.append(pt)
            ks.append((k0 + i * d) % R)
        pt = add(F, pt, dp)
    return pts, ks


def test_msm(h, rng):
    half = (R - 1) // 2
    edge = [0, 1, R - 1, 2, R - 2, half, half + 1, half - 1, 2**253, 2**254, 2**254 - 1, 3, R - 3]
    cases = []  # (name, n, c, budget_log2, scalars fn, inf_every, same_base)
    rnd = lambda n: [rng.randrange(R) for _ in range(n)]
    cases += [("n=0", 0, 8, 28, lambda n: [], 0, False)]
    cases += [("one %x" % s, 1, 4, 28, (lambda s: lambda n: [s])(s), 0, False) for s in (0, 1, R - 1, half, half + 1)]
    cases += [("n=1 random c=8", 1, 8, 28, rnd, 0, False)]
    cases += [("edge c=%d" % c, len(edge), c, 28, lambda n: list(edge), 0, False) for c in (1, 2, 3, 5, 8, 13, 16)]
    cases += [("random n=100 c=1", 100, 1, 28, rnd, 0, False)]
    cases += [("random n=257 c=7 inf", 257, 7, 28, rnd, 5, False)]
    cases += [("random n=300 c=13", 300, 13, 28, rnd, 0, False)]
    cases += [("random n=300 c=9 passes", 300, 9, 9, rnd, 0, False)]   # 2^9/300 -> 1 window per pass
    cases += [("random n=200 c=6 passes", 200, 6, 10, rnd, 0, False)]  # 5 windows per pass, ragged last pass
    cases += [("same scalar n=200 c=8", 200, 8, 28, lambda n: [rng.randrange(R)] * n, 0, False)]
    cases += [("same base+scalar n=64 c=6", 64, 6, 28, lambda n: [rng.randrange(R)] * n, 0, True)]
    cases += [("same base mixed n=40 c=4", 40, 4, 28, lambda n: [rng.choice(edge) for _ in range(n)], 0, True)]
    cases += [("small scalars n=333 c=10", 333, 10, 28, lambda n: [rng.randrange(6) for _ in range(n)], 3, False)]
    cases += [("random n=129 c=16", 129, 16, 28, rnd, 0, False)]
    mix = lambda n: [rng.choice([0, 1, R - 1, rng.randrange(R)]) for _ in range(n)]  # as tests/gpu.rs "mix"
    cases += [("mix n=4097 c=10 (window_for)", 4097, 10, 28, mix, 0, False)]
    cases += [("mix n=1023 c=4", 1023, 4, 28, mix, 0, False)]
    cases += [("same scalar 5 n=4097 c=10", 4097, 10, 28, lambda n: [5] * n, 0, False)]
    few = lambda k: lambda n: (lambda vals: [rng.choice(vals) for _ in range(n)])([rng.randrange(R) for _ in range(k)])
    cases += [("40 distinct scalars n=20000 c=12 (> 64 large buckets)", 20000, 12, 28, few(40), 0, False)]
    cases += [("same base+scalar n=20000 c=16", 20000, 16, 28, lambda n: [rng.randrange(R)] * n, 0, True)]
    cases += [("few scalars n=9000 c=5 passes", 9000, 5, 15, lambda n: [rng.choice(edge) for _ in range(n)], 0, False)]
    # Accumulation shapes (budget given as (budget_log2, accum_threads_log2)): long level-1 slices over many
    # buckets, one bucket per window split over threads, one huge bucket over many levels, half the scalars equal.
    cases += [("random n=3000 c=8 long slices", 3000, 8, (28, 6), rnd, 7, False)]
    cases += [("same scalar n=5000 c=10 long slices", 5000, 10, (28, 4), lambda n: [rng.randrange(R)] * n, 0, False)]
    cases += [("random n=1000 c=5 (buckets cut over ~8 slices: fix-up and levels)", 1000, 5, 28, rnd, 0, False)]
    cases += [("runs of +-1 n=3000 c=6", 3000, 6, 28, lambda n: [1 if (i // 7) % 2 else R - 1 for i in range(n)], 0, False)]
    cases += [("half equal n=4000 c=9", 4000, 9, (28, 8), (lambda v: lambda n: [v if i % 2 else rng.randrange(R) for i in range(n)])(rng.randrange(R)), 0, False)]
    # Flat walk (msm.cu msm_flat_body): buckets far apart (empty ones between: its binary-search step), long
    # slices crossing many buckets, a slice ending exactly at a bucket end, infinity bases inside buckets.
    cases += [("sparse buckets n=600 c=14 long slices", 600, 14, (28, 3), rnd, 0, False)]
    cases += [("small scalars n=2048 c=12 long slices inf", 2048, 12, (28, 5), lambda n: [rng.randrange(40) for _ in range(n)], 4, False)]
    cases += [("pairs n=1024 c=8 k1=8", 1024, 8, 28, lambda n: [v for _ in range(n // 2) for v in [rng.randrange(R)] * 2], 0, False)]
    for name, n, c, budget, sfn, inf_every, same_base in cases:
        budget, acc = budget if isinstance(budget, tuple) else (budget, 19)
        if same_base:
            b = mul(Fp, G1, rng.randrange(1, R))
            pts = [b if i % 2 == 0 else neg(Fp, b) for i in range(n)] if "mixed" in name else [b] * n
            kb = None
        else:
            pts, ks = chain_points(Fp, G1, n, rng, inf_every)
        scal = sfn(n)
        # expected Σ s_i P_i, directly (independent of windows)
        if same_base:
            tot = 0
            for i, s in enumerate(scal):
                tot += s if pts[i] == b else -s
            want = mul(Fp, b, tot % R)
        else:
            want = mul(Fp, G1, sum(s * k for s, k in zip(scal, ks)) % R)
        data = "%s %s" % (hx([v for p in pts for v in enc_affine(Fp, p)]), hx([v for s in scal for v in enc_scalar(s)]))
        # Each schedule (hostcheck.cpp "var"): one pass, the windows split into three passes, shifted bases in
        # one and in two passes.
        for var, vname in MSM_VARIANTS:
            windows = (255 + c - 1) // c
            out = h.call("msm %x %x %x %x %x %s" % (n, c, budget, acc, var, data), windows)
            got = None
            for w in reversed(range(windows)):
                if not var & 8:  # folded (shifted bases): the slots are pass sums, added as they are
                    got = mul(Fp, got, 1 << c) if got is not None else None
                got = add(Fp, got, dec_jacobian(Fp, out[w]))
            check("msm %s [%s]" % (name, vname), got, want)
    print("msm: %d cases x %d variants done" % (len(cases), len(MSM_VARIANTS)))


def test_msm_g2(h, rng):
    """G2 MSMs (msm_g2.cu's steps 5-7 over msm.cu's sort) over gathered bases: idx picks each MSM base from a
    pool, with repeats (the same point in one bucket: its doubling branch) and P, -P pairs (their sum cancels)."""
    half = (R - 1) // 2
    edge = [0, 1, R - 1, 2, R - 2, half, half + 1, 2**253, 2**254, 3]
    rnd = lambda n: [rng.randrange(R) for _ in range(n)]
    mix = lambda n: [rng.choice([0, 1, R - 1, rng.randrange(R)]) for _ in range(n)]
    cases = [("n=0", 0, 8, 28, 19, [], "perm"), ("n=1", 1, 4, 28, 19, rnd, "perm"),
             ("edge c=3", len(edge), 3, 28, 19, lambda n: list(edge), "perm"),
             ("random n=100 c=5", 100, 5, 28, 19, rnd, "perm"),
             ("random n=257 c=7 inf", 257, 7, 28, 19, rnd, "inf"),
             ("repeats n=300 c=8", 300, 8, 28, 19, rnd, "repeat"),
             ("same point, same scalar n=200 c=6", 200, 6, 28, 19, lambda n: [rng.randrange(R)] * n, "one"),
             ("P and -P, same scalar n=64 c=4", 64, 4, 28, 19, lambda n: [rng.randrange(R)] * n, "pm"),
             ("mix n=1500 c=9 passes", 1500, 9, 11, 19, mix, "perm"),
             ("random n=2000 c=10 long slices", 2000, 10, 28, 6, rnd, "repeat"),
             ("random n=700 c=5 (buckets cut: fix-up and levels)", 700, 5, 28, 19, rnd, "perm"),
             ("random n=333 c=13 three passes", 333, 13, 28, 19, rnd, "perm3")]
    for name, n, c, budget, acc, sfn, shape in cases:
        pool_n = max(n, 1)
        pool, ks = chain_points(Fp2, G2, pool_n, rng, 6 if shape == "inf" else 0)
        if shape == "one":
            idx = [0] * n
        elif shape == "pm":
            pool[1], ks[1] = neg(Fp2, pool[0]), (R - ks[0]) % R
            idx = [i % 2 for i in range(n)]
        elif shape == "repeat":
            idx = [rng.randrange(pool_n // 3 + 1) for _ in range(n)]
        else:
            idx = list(range(n))
            rng.shuffle(idx)
        scal = sfn(n) if n else []
        want = mul(Fp2, G2, sum(s * ks[j] for s, j in zip(scal, idx)) % R)
        data = "%s %s %s" % (hx([v for p in pool for v in enc_affine(Fp2, p)]),
                             hx([v for s in scal for v in enc_scalar(s)]), hx(idx))
        var = 3 << 8 if shape == "perm3" else 0
        windows = (255 + c - 1) // c
        if n == 0:
            data = ""
        out = h.call("msm2 %x %x %x %x %x %s" % (n, c, budget, acc, var, data), windows)
        got = None
        for w in reversed(range(windows)):
            got = mul(Fp2, got, 1 << c) if got is not None else None
            got = add(Fp2, got, dec_jacobian(Fp2, out[w]))
        check("msm2 %s" % name, got, want)
    print("msm g2: %d cases done" % len(cases))


MSM_VARIANTS = [(0, "one pass"), (3 << 8, "three passes"), (8, "shifted"), (8 | 2 << 8, "shifted, two passes")]


def test_ba(h, rng):
    for F, G, name in ((Fp, G1, "ba1"), (Fp2, G2, "ba2")):
        sizes = [1, 63, 64, 65, 300] + ([64 * 4 * 65 + 17] if F is Fp else [64 * 4 * 65 + 1])
        for n in sizes:
            pts, ks = chain_points(F, G, n, rng, 7)
            words = (n + 63) // 64
            for mode in ("random", "all", "none", "one"):
                if mode == "random":
                    bm = [rng.getrandbits(64) for _ in range(words)]
                elif mode == "all":
                    bm = [2**64 - 1] * words
                elif mode == "none":
                    bm = [0] * words
                else:
                    bm = [0] * words
                    bm[(n - 1) // 64] = 1 << ((n - 1) % 64)
                tot = sum(ks[i] for i in range(n) if (bm[i // 64] >> (i % 64)) & 1) % R
                want = mul(F, G, tot)
                text = "%s %x %s %s" % (name, n, hx([v for p in pts for v in enc_affine(F, p)]), hx(bm))
                got = dec_jacobian(F, h.call(text, 1)[0])
                check("%s n=%d %s" % (name, n, mode), got, want)
    print("batch add: done")


def test_field32():
    """field32.cuh is what gen_field.py generates, and its instruction sequences are right (big-int check)."""
    global fails
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import gen_field
    with open(os.path.join(here, "..", "field32.cuh")) as f:
        if f.read() != gen_field.generate():
            print("FAIL field32.cuh is stale: rerun python3 cuda/hostcheck/gen_field.py")
            fails += 1
    fails += gen_field.check()


def main():
    rng = random.Random(int(os.environ.get("SEED", "1")))
    test_field32()
    h = Harness(build())
    test_ops(h, rng)
    test_msm(h, rng)
    test_msm_g2(h, rng)
    test_ba(h, rng)
    print("hostcheck: %s" % ("OK" if fails == 0 else "%d FAILURES" % fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
