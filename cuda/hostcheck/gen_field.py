#!/usr/bin/env python3
"""Generates cuda/field32.cuh: Montgomery multiplication, addition and subtraction over BLS12-381's Fp
(12 × 32-bit limbs) and Fr (8 × 32-bit limbs), each as ONE inline-PTX block on the device and as the same
instruction sequence in portable C++ on the host (g++), so cuda/hostcheck runs exactly what the GPU runs.

    python3 cuda/hostcheck/gen_field.py           # rewrite cuda/field32.cuh
    python3 cuda/hostcheck/gen_field.py --check   # interpret the sequences against Python big integers
    python3 cuda/hostcheck/gen_field.py --stdout  # print the file instead of writing it

Multiplication is CIOS with 32-bit limbs and the even/odd split of the accumulator: row i adds a·b_i as two
numbers, the products of even limbs (lo/hi halves land on disjoint limb pairs 2k, 2k+1 of E) and of odd limbs
(pairs of O, which sits one limb higher), so each row is one unbroken carry chain of `mad.lo.cc`/`madc.hi.cc`
pairs on the same operands (ptxas fuses such a pair into one IMAD.WIDE with carries on sm_90). The reduction
adds m·p the same way, then the two halves swap roles instead of shifting (the limb that falls off E moves into
the other half's carry chain). Invariant (inputs < p, 2p < 2^(32n)): the accumulator stays below 2^(32(n+1)),
so neither half carries out of its top limb; the result is < 2p and one conditional subtraction leaves it
canonical (< p), as field.cuh's equality and zero tests and the byte-exact CPU comparison need.

Fp also has a dedicated squaring (mont_sqr_fp, see mont_sqr): doubled cross products plus diagonal squares, then
the same pair-chain reduction, 78 instead of 144 products.
"""
import os
import random
import sys

P_FP = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
P_FR = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
M32 = 0xFFFFFFFF


def limbs32(v, n):
    return [(v >> (32 * i)) & M32 for i in range(n)]


def inv32(p):  # −p^(−1) mod 2^32
    return (-pow(p, -1, 1 << 32)) % (1 << 32)


# ---- instruction sequences: (op, dst, src...) over u32 registers; ints are immediates ----
# ops: mul.lo mul.hi | mad.lo.cc madc.lo.cc madc.hi.cc madc.hi | add.cc addc.cc addc | sub.cc subc.cc subc |
#      and | selne (dst = c != 0 ? a : b, i.e. setp.ne + selp) | shl (dst = a << k) |
#      shf.l (dst = high word of (hi:lo) << k, i.e. shf.l.wrap.b32 dst, lo, hi, k)


def mont_mul(n, p, lazy=False):
    """a·b·R⁻¹ mod p for a, b < p. `lazy`: no final subtraction, the result only < 2p (the NTT's lazy form,
    mont_mul_fr_lz): for a < p and b < 2p, T < a·b/R + p < 2p·p/R + p < 2p as 2p < R (Fr), and each partial
    sum stays below a + p < 2p exactly as for b < p (a is the operand that multiplies b's limbs), so the chains
    carry nothing out."""
    pl, inv = limbs32(p, n), inv32(p)
    special = pl[0] == 1 and pl[1] == M32 and inv == M32  # Fr's low limbs (below)
    E = ["e%d" % i for i in range(n)]
    O = ["o%d" % i for i in range(n)]
    a = ["a%d" % i for i in range(n)]
    b = ["b%d" % i for i in range(n)]
    s = []
    for i in range(n):
        X, Y = (E, O) if i % 2 == 0 else (O, E)  # X at limb 0, Y one limb higher
        bi = b[i]
        if i == 0:
            for j in range(0, n, 2):
                s += [("mul.lo", X[j], a[j], bi), ("mul.hi", X[j + 1], a[j], bi)]
            for j in range(1, n, 2):
                s += [("mul.lo", Y[j - 1], a[j], bi), ("mul.hi", Y[j], a[j], bi)]
        else:
            # T/2^32 of the last step: X (the old Y) gets the old X's limb 1; its carry starts Y's chain.
            s.append(("add.cc", X[0], X[0], Y[1]))
            # Y ← (old X >> 64) + odd products, one chain; no carry out (invariant).
            for j in range(0, n - 2, 2):
                s += [("madc.lo.cc", Y[j], a[j + 1], bi, Y[j + 2]), ("madc.hi.cc", Y[j + 1], a[j + 1], bi, Y[j + 3])]
            s += [("madc.lo.cc", Y[n - 2], a[n - 1], bi, 0), ("madc.hi", Y[n - 1], a[n - 1], bi, 0)]
            # X += even products; the carry out lands in Y's top limb.
            s.append(("mad.lo.cc", X[0], a[0], bi, X[0]))
            s.append(("madc.hi.cc", X[1], a[0], bi, X[1]))
            for j in range(2, n, 2):
                s += [("madc.lo.cc", X[j], a[j], bi, X[j]), ("madc.hi.cc", X[j + 1], a[j], bi, X[j + 1])]
            s.append(("addc", Y[n - 1], Y[n - 1], 0))
        # Reduction: m = X[0]·(−p^(−1)); X + Y·2^32 += m·p, which clears X[0].
        if special:
            # Fr: −p⁻¹ = 2³² − 1, p₀ = 1, p₁ = 2³² − 1, so m = −X[0], m·p₀ = m and m·p₁ = (m − [X[0] ≠ 0])·2³² +
            # X[0]: three products per row on the ALU instead of the IMAD pipe (the same values and carries).
            s.append(("sub.cc", "m", 0, X[0]))  # m = −X[0]; borrow = [X[0] ≠ 0]
            s.append(("subc", "h", "m", 0))  # high word of m·p₁
            s.append(("add.cc", Y[0], Y[0], X[0]))  # + low word of m·p₁
            s.append(("addc.cc", Y[1], Y[1], "h"))
        else:
            s.append(("mul.lo", "m", X[0], inv))
            s.append(("mad.lo.cc", Y[0], "m", pl[1], Y[0]))
            s.append(("madc.hi.cc", Y[1], "m", pl[1], Y[1]))
        for j in range(3, n, 2):
            s += [("madc.lo.cc", Y[j - 1], "m", pl[j], Y[j - 1]), ("madc.hi.cc", Y[j], "m", pl[j], Y[j])]
        if special:
            s.append(("add.cc", X[0], X[0], "m"))  # + m·p₀
            s.append(("addc.cc", X[1], X[1], 0))
        else:
            s.append(("mad.lo.cc", X[0], "m", pl[0], X[0]))
            s.append(("madc.hi.cc", X[1], "m", pl[0], X[1]))
        for j in range(2, n, 2):
            s += [("madc.lo.cc", X[j], "m", pl[j], X[j]), ("madc.hi.cc", X[j + 1], "m", pl[j], X[j + 1])]
        s.append(("addc", Y[n - 1], Y[n - 1], 0))
    # n even: the last step had X = O (O[0] = 0). Result Y + (X >> 32) < 2p.
    X, Y = O, E
    D = ["r%d" % i for i in range(n)] if lazy else Y
    s.append(("add.cc", D[0], Y[0], X[1]))
    for j in range(1, n - 1):
        s.append(("addc.cc", D[j], Y[j], X[j + 1]))
    s.append(("addc", D[n - 1], Y[n - 1], 0))
    if not lazy:
        s += final_sub(n, pl, Y, X, ["r%d" % i for i in range(n)])
    return s


def final_sub(n, pl, v, t, out):
    """out = v − p if v ≥ p else v (v < 2p); t is scratch."""
    s = [("sub.cc", t[0], v[0], pl[0])]
    for j in range(1, n):
        s.append(("subc.cc", t[j], v[j], pl[j]))
    s.append(("subc", "m", 0, 0))  # 0 or 0xffffffff (borrow: v < p)
    for j in range(n):
        s.append(("selne", out[j], v[j], t[j], "m"))
    return s

def mont_sqr(n, p):
    """Montgomery square a²·R⁻¹ mod p (SOS), one operand. a = Σ a_k 2^(32k) < p < 2^(32n−1).

    1. Doubled cross products 2·Σ_{i<j} a_i a_j 2^(32(i+j)) without a doubling pass: row i multiplies a_i by
       the limbs of 2·⌊a / 2^(32(i+1))⌋·2^(32(i+1)), i.e. s_{i+1} = a_{i+1} << 1 for j = i+1 and
       d_j = (a_j:a_{j−1}) << 1 (funnel shift) for j > i+1 (shifts run on the ALU pipe; d_n = a_{n−1} >> 31 = 0
       as a < 2^(32n−1)). Products whose position i+j is even go to E (limb k = E[k]), odd ones to O (limb k =
       O[k−1]), so within a row each half is one carry chain of mad.lo.cc/madc.hi.cc pairs on (even, odd)
       register pairs (one IMAD.WIDE.U32.X each). Rows 0..i sum to at most 2a·Σ_{r≤i} a_r 2^(32r) <
       2^(32(n+i+1)) (2a < 2^(32n)), and E and O·2^32 are each at most that sum, so after row i E's limbs from
       n+i+1 up and O's from n+i up are zero: the chain that reaches that limb (E on odd rows, O on even ones)
       ends with madc.hi and no carry; the other one's carry goes to a new limb above its top pair (addc t,
       0, 0), which the next row's chain then covers.
    2. E += a_k² at limbs (2k, 2k+1): one chain of pairs; E + D ≤ a² < 2^(64n), so no carry out.
    3. Reduction of T_lo = E[0..n−1] + O[0..n−2]·2^32 (< 2^(32n+1)) as n rows of CIOS without the product:
       m = X[0]·(−p⁻¹), X (limb 0) and Y (limb 1) += m·p as two pair chains; dividing by 2^32 is a renaming (the
       new X is Y, the new Y is X's limbs 2.. plus two fresh zero limbs, X's limb 1 is added into the new X[0]
       first and that carry starts the next Y chain). V + m·p < 2^(32n+1) + 2^32·p < 2^(32(n+1)), so the Y
       chain (whose value is at most that / 2^32) never carries out of its top limb and the X chain's carry
       fits in it.
    4. Result = (z + X + Y·2^32) + T_hi with T_hi = E[n..2n−1] + O[n−1..2n−2] (limb n up; O's top limb is
       zero by 1.): three add chains. The total is (T + M·p)/R < (p² + R·p)/R < 2p < 2^(32n) and every partial
       sum is part of it, so none carries out; one conditional subtraction leaves it canonical.
    IMAD-pipe work: 66 + 12 + 144 product pairs and 12 m's (mont_mul: 288 pairs and 12 m's)."""
    assert p < 1 << (32 * n - 1) and n % 2 == 0
    pl, inv = limbs32(p, n), inv32(p)
    a = ["a%d" % i for i in range(n)]
    E = ["e%d" % i for i in range(2 * n)]
    O = ["o%d" % i for i in range(2 * n - 1)]
    s = []
    # Doubled multiplicand limbs: s_j = a_j << 1 (lowest limb of a row), d_j = (a_j:a_{j−1}) << 1.
    sl = {j: "s%d" % j for j in range(1, n)}
    dl = {j: "d%d" % j for j in range(2, n)}
    for j in range(1, n):
        s.append(("shl", sl[j], a[j], 1))
        if j >= 2:
            s.append(("shf.l", dl[j], a[j - 1], a[j], 1))
    live = set()   # limbs of E / O that hold a value
    carry = set()  # limbs that hold only a chain's carry (≤ 2)

    def chain(prs, acc, top, zero):
        """prs: (limb index in acc, x, y) with consecutive even indices; carry into acc[top], or none when
        top ≥ zero (acc's limbs from `zero` up are provably zero after this row)."""
        out = []
        for k, (idx, x, y) in enumerate(prs):
            lo, hi = acc[idx], acc[idx + 1]
            last = k == len(prs) - 1 and top >= zero
            out.append(("mad.lo.cc" if k == 0 else "madc.lo.cc", lo, x, y, lo if lo in live else 0))
            out.append(("madc.hi" if last else "madc.hi.cc", hi, x, y, hi if hi in live else 0))
            live.update((lo, hi))
            carry.discard(lo)
            carry.discard(hi)
        if top < zero:
            t = acc[top]
            assert t not in live or t in carry
            out.append(("addc", t, t if t in live else 0, 0))
            live.add(t)
            carry.add(t)
        return out

    for i in range(n - 1):
        mult = [(j, sl[j] if j == i + 1 else dl[j]) for j in range(i + 1, n)]
        ev = [(i + j, a[i], c) for j, c in mult if (i + j) % 2 == 0]      # E[i+j], E[i+j+1]
        od = [(i + j - 1, a[i], c) for j, c in mult if (i + j) % 2 == 1]  # O[i+j−1], O[i+j]
        if i == 0:  # fresh accumulators: plain products, no carries
            for acc, prs in ((E, ev), (O, od)):
                for idx, x, y in prs:
                    s += [("mul.lo", acc[idx], x, y), ("mul.hi", acc[idx + 1], x, y)]
                    live.update((acc[idx], acc[idx + 1]))
            continue
        # Rows 0..i sum to ≤ 2a·Σ_{r≤i} a_r 2^(32r) < 2^(32(n+i+1)), and E, O·2^32 are parts of that sum.
        if ev:
            s += chain(ev, E, ev[-1][0] + 2, n + i + 1)
        if od:
            s += chain(od, O, od[-1][0] + 2, n + i)
    # Diagonal squares into E; E + D ≤ a² < 2^(64n): no carry out of E's top limb.
    s += [("mul.lo", E[0], a[0], a[0]), ("mul.hi", E[1], a[0], a[0])]
    for k in range(1, n):
        lo, hi = E[2 * k], E[2 * k + 1]
        s.append(("mad.lo.cc" if k == 1 else "madc.lo.cc", lo, a[k], a[k], lo if lo in live else 0))
        s.append(("madc.hi.cc" if k < n - 1 else "madc.hi", hi, a[k], a[k], hi if hi in live else 0))
        live.update((lo, hi))
    # Reduction of T_lo = X + Y·2^32; Y's top limb (limb n) starts at zero.
    X, Y, z = E[:n], O[:n - 1] + ["y"], None
    fresh = {"y"}  # limbs of Y that are zero (addend 0)
    for i in range(n):
        if z is not None:
            s.append(("add.cc", X[0], X[0], z))
        s.append(("mul.lo", "m", X[0], inv))
        for j in range(0, n, 2):
            first = j == 0 and z is None
            lo, hi = Y[j], Y[j + 1]
            s.append(("mad.lo.cc" if first else "madc.lo.cc", lo, "m", pl[j + 1], 0 if lo in fresh else lo))
            s.append(("madc.hi.cc" if j < n - 2 else "madc.hi", hi, "m", pl[j + 1], 0 if hi in fresh else hi))
        for j in range(0, n, 2):
            s.append(("mad.lo.cc" if j == 0 else "madc.lo.cc", X[j], "m", pl[j], X[j]))
            s.append(("madc.hi.cc", X[j + 1], "m", pl[j], X[j + 1]))
        s.append(("addc", Y[n - 1], Y[n - 1], 0))
        # ÷ 2^32: X[0] = 0; X[1] is the new limb 0's other half, X[2..] the new Y, X[0] / X[1] its fresh top.
        # (Y[n−1] is the old X[1]: the next row reads it as z before its Y chain overwrites it.)
        X, Y, z = Y, X[2:] + X[:2], X[1]
        fresh = {Y[n - 2], Y[n - 1]}
    # Result = z + X + Y·2^32 (Y's top two limbs zero) + T_hi (E[n..], O[n−1..]).
    v = X
    s.append(("add.cc", v[0], v[0], z))
    for j in range(1, n - 1):
        s.append(("addc.cc", v[j], v[j], Y[j - 1]))
    s.append(("addc", v[n - 1], v[n - 1], 0))
    for hi in (E[n:], O[n - 1:]):
        hi = [x if x in live else 0 for x in hi]  # O's top limb (limb 2n−1) is provably zero
        s.append(("add.cc", v[0], v[0], hi[0]))
        for j in range(1, n - 1):
            s.append(("addc.cc", v[j], v[j], hi[j]))
        s.append(("addc", v[n - 1], v[n - 1], hi[n - 1]))
    s += final_sub(n, pl, v, Y, ["r%d" % i for i in range(n)])
    return s


def mod_add(n, p):
    pl = limbs32(p, n)
    a = ["a%d" % i for i in range(n)]
    b = ["b%d" % i for i in range(n)]
    e = ["e%d" % i for i in range(n)]
    o = ["o%d" % i for i in range(n)]
    s = [("add.cc", e[0], a[0], b[0])]
    for j in range(1, n - 1):
        s.append(("addc.cc", e[j], a[j], b[j]))
    s.append(("addc", e[n - 1], a[n - 1], b[n - 1]))  # a + b < 2p < 2^(32n): no carry out
    return s + final_sub(n, pl, e, o, ["r%d" % i for i in range(n)])


def mod_sub(n, p):
    pl = limbs32(p, n)
    a = ["a%d" % i for i in range(n)]
    b = ["b%d" % i for i in range(n)]
    e = ["e%d" % i for i in range(n)]
    r = ["r%d" % i for i in range(n)]
    s = [("sub.cc", e[0], a[0], b[0])]
    for j in range(1, n):
        s.append(("subc.cc", e[j], a[j], b[j]))
    s.append(("subc", "m", 0, 0))  # all ones on borrow: add p back
    s.append(("and", "o0", "m", pl[0]))
    s.append(("add.cc", r[0], e[0], "o0"))
    for j in range(1, n):
        s.append(("and", "o0", "m", pl[j]))
        s.append(("addc.cc" if j < n - 1 else "addc", r[j], e[j], "o0"))
    return s


# ---- the NTT's lazy form: values < 2p between its stages (p < 2^(32n)/4 not needed: 2p < 2^(32n) is) ----
def add_lz(n, p):
    """a + b − 2p if that is ≥ 0 else a + b, for a, b < 2p: < 2p. a + b may carry out of n limbs (Fr: 4p > R);
    the carry joins the borrow of the subtraction (carry − borrow = 0: take the difference)."""
    p2 = limbs32(2 * p, n)
    a = ["a%d" % i for i in range(n)]
    b = ["b%d" % i for i in range(n)]
    e = ["e%d" % i for i in range(n)]
    o = ["o%d" % i for i in range(n)]
    s = [("add.cc", e[0], a[0], b[0])]
    for j in range(1, n):
        s.append(("addc.cc", e[j], a[j], b[j]))
    s.append(("addc", "m", 0, 0))  # the carry out
    s.append(("sub.cc", o[0], e[0], p2[0]))
    for j in range(1, n):
        s.append(("subc.cc", o[j], e[j], p2[j]))
    s.append(("subc", "m", "m", 0))  # 0: a + b ≥ 2p; all ones: keep a + b
    for j in range(n):
        s.append(("selne", "r%d" % j, e[j], o[j], "m"))
    return s


def sub_lz(n, p):
    """a − b, + 2p on a borrow, for a, b < 2p: < 2p (mod_sub with 2p)."""
    return mod_sub(n, 2 * p)


def reduce_lz(n, p):
    """a mod p for a < 2p: the lazy form's canonical value (one operand)."""
    return final_sub(n, limbs32(p, n), ["a%d" % i for i in range(n)], ["o%d" % i for i in range(n)],
                     ["r%d" % i for i in range(n)])


# ---- interpreter (the check) ----
def run(seq, regs):
    cf = 0
    val = lambda x: x if isinstance(x, int) else regs[x]
    for ins in seq:
        op, d, *src = ins
        v = [val(x) for x in src]
        if op == "mul.lo":
            r = (v[0] * v[1]) & M32
        elif op == "mul.hi":
            r = (v[0] * v[1]) >> 32
        elif op.startswith("mad"):
            prod = v[0] * v[1]
            part = (prod & M32) if ".lo" in op else (prod >> 32)
            t = part + v[2] + (cf if op.startswith("madc") else 0)
            r = t & M32
            if op.endswith(".cc"):
                cf = t >> 32
        elif op.startswith("add"):
            t = v[0] + v[1] + (cf if op.startswith("addc") else 0)
            r = t & M32
            if op.endswith(".cc"):
                cf = t >> 32
        elif op.startswith("sub"):
            t = v[0] - v[1] - (cf if op.startswith("subc") else 0)
            r = t & M32
            if op.endswith(".cc"):
                cf = 1 if t < 0 else 0
        elif op == "and":
            r = v[0] & v[1]
        elif op == "selne":
            r = v[0] if v[2] != 0 else v[1]
        elif op == "shl":
            r = (v[0] << v[1]) & M32
        elif op == "shf.l":
            r = (((v[1] << 32) | v[0]) << v[2] >> 32) & M32
        else:
            raise ValueError(op)
        regs[d] = r
    return regs


def check():
    rng = random.Random(1)
    fails = 0
    for name, p, n in (("fp", P_FP, 12), ("fr", P_FR, 8)):
        R = 1 << (32 * n)
        rinv = pow(R, -1, p)
        seqs = {"mul": mont_mul(n, p), "add": mod_add(n, p), "sub": mod_sub(n, p)}
        # The device's form of the multiplication: reduction multipliers as operands bound to the table's values.
        dev, _ = opaque_reduction(seqs["mul"], p, n, "T")
        table = {"%%%d" % (3 * (n // 2) + i): v for i, v in enumerate(limbs32(p, n) + [inv32(p)])}
        seqs["mul (device operands)"] = dev
        if name == "fp":
            seqs["sqr"] = mont_sqr(n, p)  # one operand: reads only a (x of each pair)
        want = {
            "mul": lambda x, y: x * y * rinv % p,
            "sqr": lambda x, y: x * x * rinv % p,
            "add": lambda x, y: (x + y) % p,
            "sub": lambda x, y: (x - y) % p,
        }
        edge = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, R % p, (R * R) % p, (1 << (32 * n - 8)) % p,
                M32, p - M32, (p >> 32) << 32]
        vals = edge + [rng.randrange(p) for _ in range(300)]
        pairs = [(x, y) for x in edge for y in edge] + [(rng.choice(vals), rng.choice(vals)) for _ in range(800)]
        for op, seq in seqs.items():
            bad = 0
            for x, y in pairs:
                regs = dict(table)
                for i in range(n):
                    regs["a%d" % i] = (x >> (32 * i)) & M32
                    regs["b%d" % i] = (y >> (32 * i)) & M32
                out = run(seq, regs)
                got = sum(out["r%d" % i] << (32 * i) for i in range(n))
                if got != want[op.split()[0]](x, y):
                    bad += 1
                    if bad < 3:
                        print("%s %s: %x op %x -> %x want %x" % (name, op, x, y, got, want[op.split()[0]](x, y)))
            print("%s %-3s %5d cases, %d PTX instructions: %s" % (name, op, len(pairs), len(seq),
                                                                 "OK" if bad == 0 else "%d BAD" % bad))
            fails += bad
    return fails + check_lz(rng)


def check_lz(rng):
    """Fr's lazy forms on their domains: results congruent to the exact ones and < 2p (reduce: exact)."""
    p, n = P_FR, 8
    R = 1 << (32 * n)
    rinv = pow(R, -1, p)
    dev, _ = opaque_reduction(mont_mul(n, p, lazy=True), p, n, "T")
    table = {"%%%d" % (3 * (n // 2) + i): v for i, v in enumerate(limbs32(p, n) + [inv32(p)])}
    canon = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, R % p, M32, p - M32, (1 << 224) - 1, (1 << 192) - 1]
    lazy = canon + [p, p + 1, 2 * p - 1, 2 * p - 2, 2 * p - M32, p + (1 << 224) - 1, 2 * p - (1 << 200)]
    rl = lambda: rng.randrange(2 * p)
    cases = {  # op: (sequence, a's values, b's values, the exact result mod p)
        "mul_lz": (mont_mul(n, p, lazy=True), canon + [rng.randrange(p) for _ in range(25)], lazy + [rl() for _ in range(25)],
                   lambda x, y: x * y * rinv % p),
        "mul_lz (device operands)": (dev, canon + [rng.randrange(p) for _ in range(25)], lazy + [rl() for _ in range(25)],
                                     lambda x, y: x * y * rinv % p),
        "add_lz": (add_lz(n, p), lazy + [rl() for _ in range(25)], lazy + [rl() for _ in range(25)],
                   lambda x, y: (x + y) % p),
        "sub_lz": (sub_lz(n, p), lazy + [rl() for _ in range(25)], lazy + [rl() for _ in range(25)],
                   lambda x, y: (x - y) % p),
        "reduce_lz": (reduce_lz(n, p), lazy + [rl() for _ in range(300)], [0], lambda x, y: x % p),
    }
    fails = 0
    for op, (seq, xs, ys, want) in cases.items():
        bad = 0
        pairs = [(x, y) for x in xs for y in ys]
        for x, y in pairs:
            regs = dict(table)
            for i in range(n):
                regs["a%d" % i] = (x >> (32 * i)) & M32
                regs["b%d" % i] = (y >> (32 * i)) & M32
            out = run(seq, regs)
            got = sum(out["r%d" % i] << (32 * i) for i in range(n))
            ok = got % p == want(x, y) and got < (p if op == "reduce_lz" else 2 * p)
            if not ok:
                bad += 1
                if bad < 3:
                    print("fr %s: %x op %x -> %x want %x (mod p)" % (op, x, y, got, want(x, y)))
        print("fr %-24s %5d cases, %d PTX instructions: %s" % (op, len(pairs), len(seq),
                                                                "OK" if bad == 0 else "%d BAD" % bad))
        fails += bad
    return fails


# ---- emitters ----
def ptx_text(seq):
    lines = []
    for op, d, *src in seq:
        f = lambda x: ("0x%08x" % x) if isinstance(x, int) else x
        if op == "selne":
            lines.append("setp.ne.u32 q, %s, 0;" % f(src[2]))
            lines.append("selp.b32 %s, %s, %s, q;" % (d, f(src[0]), f(src[1])))
            continue
        if op == "shf.l":
            lines.append("shf.l.wrap.b32 %s, %s;" % (d, ", ".join(f(x) for x in src)))
            continue
        ty = "b32" if op in ("and", "shl") else "u32"
        lines.append("%s.%s %s, %s;" % (op, ty, d, ", ".join(f(x) for x in src)))
    return lines


def host_text(seq):
    lines = []
    for op, d, *src in seq:
        f = lambda x: ("0x%08xu" % x) if isinstance(x, int) else x
        v = [f(x) for x in src]
        if op == "mul.lo":
            lines.append("%s = %s * %s;" % (d, v[0], v[1]))
        elif op == "mul.hi":
            lines.append("%s = (u32)(((u64)%s * %s) >> 32);" % (d, v[0], v[1]))
        elif op.startswith("mad"):
            part = "(u32)((u64)%s * %s)" % (v[0], v[1]) if ".lo" in op else "(u32)(((u64)%s * %s) >> 32)" % (v[0], v[1])
            cin = " + cf" if op.startswith("madc") else ""
            lines.append("t = (u64)%s + %s%s; %s = (u32)t;%s" % (part, v[2], cin, d, " cf = (u32)(t >> 32);" if op.endswith(".cc") else ""))
        elif op.startswith("add"):
            cin = " + cf" if op.startswith("addc") else ""
            lines.append("t = (u64)%s + %s%s; %s = (u32)t;%s" % (v[0], v[1], cin, d, " cf = (u32)(t >> 32);" if op.endswith(".cc") else ""))
        elif op.startswith("sub"):
            cin = " - cf" if op.startswith("subc") else ""
            lines.append("t = (u64)%s - %s%s; %s = (u32)t;%s" % (v[0], v[1], cin, d, " cf = (u32)(t >> 63);" if op.endswith(".cc") else ""))
        elif op == "and":
            lines.append("%s = %s & %s;" % (d, v[0], v[1]))
        elif op == "selne":
            lines.append("%s = %s != 0 ? %s : %s;" % (d, v[2], v[0], v[1]))
        elif op == "shl":
            lines.append("%s = %s << %d;" % (d, v[0], src[1]))
        elif op == "shf.l":
            lines.append("%s = (%s << %d) | (%s >> %d);" % (d, v[1], src[2], v[0], 32 - src[2]))
        else:
            raise ValueError(op)
    return lines


def opaque_reduction(seq, p, n, table):
    """The reduction's multipliers (p's limbs and −p⁻¹) as operands read from __constant__ `table` instead of
    immediates. For Fr (p₀ = 1, p₁ = 2³² − 1) ptxas simplifies immediate products by those limbs and then
    splits every reduction pair into IMAD.X + IMAD.HI.U32.X (48 per multiplication); with the values out of
    its sight each pair is one IMAD.WIDE.U32.X on uniform registers: 176 → 120 multiply instructions per
    product (SASS of sm_90, CUDA 13.0). Returns the PTX sequence and the asm input list."""
    pl, inv = limbs32(p, n), inv32(p)
    base = 3 * (n // 2)  # operands %0.. are the outputs, then A's and B's u64 limbs
    ops = {v: "%%%d" % (base + i) for i, v in enumerate(pl)}
    inv_op = "%%%d" % (base + n)
    out = []
    for op, d, *src in seq:
        if op.startswith("mad") and src[0] == "m" and isinstance(src[1], int):
            src = [src[0], ops[src[1]]] + src[2:]
        elif op == "mul.lo" and d == "m" and src[1] == inv:
            src = [src[0], inv_op]
        out.append((op, d, *src))
    ins = ['"r"(%s[%d])' % (table, i) for i in range(n + 1)]
    return out, ins


def emit_fn(name, n, seq, out, opaque=None, unary=False):
    """`opaque`: (modulus, __constant__ table name) to read the reduction's multipliers from that table.
    `unary`: one operand A (the squaring): no B parameter, no b registers."""
    h = n // 2
    w = out.append
    w("// %s: %d PTX instructions (generated)." % (name, len(seq)))
    w("HD void %s(const u64 *A, %su64 *Rr) {" % (name, "" if unary else "const u64 *B, "))
    w("#if defined(__CUDA_ARCH__)")
    used = {x for ins in seq for x in ins[1:] if isinstance(x, str)}
    ops = "a" if unary else "ab"
    names = ["%s%d" % (c, i) for c in "eor" for i in range(2 * n)] + ["m"]
    names += sorted(used - set(names), key=lambda x: (x.rstrip("0123456789"), int(x.lstrip("abcdefghijklmnopqrstuvwxyz") or 0)))
    regs = ", ".join(["%s%d" % (c, i) for c in ops for i in range(n)]
                     + [x for x in names if x in used and x[0] not in "ab"])
    body = ["{", ".reg .u32 %s;" % regs, ".reg .pred q;"]
    for i in range(h):
        body.append("mov.b64 {a%d, a%d}, %%%d;" % (2 * i, 2 * i + 1, h + i))
        if not unary:
            body.append("mov.b64 {b%d, b%d}, %%%d;" % (2 * i, 2 * i + 1, 2 * h + i))
    dev_seq, extra = opaque_reduction(seq, opaque[0], n, opaque[1]) if opaque else (seq, [])
    body += ptx_text(dev_seq)
    for i in range(h):
        body.append("mov.b64 %%%d, {r%d, r%d};" % (i, 2 * i, 2 * i + 1))
    body.append("}")
    w("    asm(")
    for k in range(0, len(body), 4):  # four instructions per source line
        w('        "%s"' % "".join(ln + "\\n\\t" for ln in body[k:k + 4]))
    outs = ", ".join('"=l"(Rr[%d])' % i for i in range(h))
    ins = ", ".join(['"l"(A[%d])' % i for i in range(h)] + ([] if unary else ['"l"(B[%d])' % i for i in range(h)])
                    + extra)
    w("        : %s" % outs)
    w("        : %s);" % ins)
    w("#else")
    w("    u32 %s, cf = 0;" % regs)
    w("    u64 t;")
    w("    (void)t; (void)cf;")
    for i in range(h):
        if unary:
            w("    a%d = (u32)A[%d]; a%d = (u32)(A[%d] >> 32);" % (2 * i, i, 2 * i + 1, i))
        else:
            w("    a%d = (u32)A[%d]; a%d = (u32)(A[%d] >> 32); b%d = (u32)B[%d]; b%d = (u32)(B[%d] >> 32);"
              % (2 * i, i, 2 * i + 1, i, 2 * i, i, 2 * i + 1, i))
    ht = host_text(seq)
    for k in range(0, len(ht), 3):
        w("    " + " ".join(ht[k:k + 3]))
    for i in range(h):
        w("    Rr[%d] = (u64)r%d | (u64)r%d << 32;" % (i, 2 * i, 2 * i + 1))
    w("#endif")
    w("}")
    w("")


def generate():
    out = [
        "// GENERATED by cuda/hostcheck/gen_field.py — do not edit; rerun it (and its --check) instead.",
        "//",
        "// Montgomery multiplication, addition and subtraction for Fp (12 × u32) and Fr (8 × u32) on blst's",
        "// u64-limb layout (the same bytes). Device: one inline-PTX block per operation (32-bit limbs, whole-row",
        "// carry chains, see gen_field.py); host (g++): the same instruction sequence in portable C++, which",
        "// cuda/hostcheck checks against its Python model. Outputs are fully reduced (< modulus) but for the NTT's lazy",
        "// forms at the end (*_lz: < 2r).",
        "#pragma once",
        "",
        "// Included by field.cuh after its HD macro and u32/u64 types.",
        "",
    ]
    out += ["// Fr's reduction multipliers (p's 32-bit limbs, then −p⁻¹ mod 2³²), read by mont_mul_fr from constant",
            "// memory instead of immediates: ptxas special-cases p₀ = 1 and p₁ = 2³² − 1 and then splits every",
            "// reduction pair into IMAD.X + IMAD.HI.U32.X; out of its sight each pair is one IMAD.WIDE.U32.X on",
            "// uniform registers (176 → 120 multiply instructions per product, sm_90). Device compilers only.",
            "#if defined(__CUDACC__) || defined(__CUDACC_RTC__)",
            "__constant__ u32 FR_REDC[9] = {%s};" % ", ".join("0x%08xu" % v for v in limbs32(P_FR, 8) + [inv32(P_FR)]),
            "#endif", ""]
    for name, p, n in (("fp", P_FP, 12), ("fr", P_FR, 8)):
        opaque = (p, "FR_REDC") if name == "fr" else None
        emit_fn("mont_mul_%s" % name, n, mont_mul(n, p), out, opaque)
        if name == "fp":
            emit_fn("mont_sqr_fp", n, mont_sqr(n, p), out, unary=True)
        emit_fn("mod_add_%s" % name, n, mod_add(n, p), out)
        emit_fn("mod_sub_%s" % name, n, mod_sub(n, p), out)
    out += ["// Fr's lazy forms for the NTT (values < 2r between its stages; the transform's last store reduces):",
            "// mont_mul_fr_lz(A < r, B < 2r) < 2r with no final subtraction; add/sub of two values < 2r, < 2r;",
            "// reduce_fr_lz(A < 2r) = A mod r.", ""]
    emit_fn("mont_mul_fr_lz", 8, mont_mul(8, P_FR, lazy=True), out, (P_FR, "FR_REDC"))
    emit_fn("add_fr_lz", 8, add_lz(8, P_FR), out)
    emit_fn("sub_fr_lz", 8, sub_lz(8, P_FR), out)
    emit_fn("reduce_fr_lz", 8, reduce_lz(8, P_FR), out, unary=True)
    return "\n".join(out)


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(1 if check() else 0)
    if "--stdout" in sys.argv:  # what would be written (tests/suite/field_gen.rs compares it with the file)
        sys.stdout.write(generate())
        sys.exit(0)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "field32.cuh")
    with open(path, "w") as f:
        f.write(generate())
    print("wrote", os.path.normpath(path))
