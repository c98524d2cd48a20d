#!/usr/bin/env python3
"""Host check of cuda/fixed_base.cu without a GPU.

Run from the repository root:   python3 cuda/hostcheck/fixed_base_check.py   (needs g++; ~1 minute)

Builds fixed_base_host.cpp (the kernel bodies as host C++) and checks k·P for G1 and G2 against check.py's
big-integer model of BLS12-381: scalars 0, 1, 2, r − 1, (r ± 1)/2, 2^253, 2^254, all-ones windows and random
ones, windows c = 1, 3, 7 (a window across every limb boundary), 8 and 10 (the wrapper's width), the base the
generator and a random multiple of it. The table is built here as the wrapper builds it: entry
w·(2^c − 1) + (d − 1) = d·2^(c·w)·P.
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check import Fp, Fp2, G1, G2, R, add, mul, enc_affine, dec_jacobian, hx  # noqa: E402


def build():
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(tempfile.gettempdir(), "cuzk-fixed-base-host")
    subprocess.run(["g++", "-O2", "-std=c++17", "-Wall", "-Wno-unused-function", "-Wno-unknown-pragmas", "-x", "c++",
                    os.path.join(here, "fixed_base_host.cpp"), "-o", exe], check=True)
    return exe


def table(F, P, c, windows):
    out = []
    for w in range(windows):
        start = mul(F, P, 1 << (c * w))
        cur = None
        for _ in range(1, 1 << c):
            cur = add(F, cur, start)
            out.append(cur)
    return out


def canon(s):
    return [(s >> (64 * i)) & (2**64 - 1) for i in range(4)]


def main():
    rng = random.Random(int(os.environ.get("SEED", "1")))
    exe = build()
    fails = 0
    special = [0, 1, 2, R - 1, (R - 1) // 2, (R + 1) // 2, 1 << 253, 1 << 254, R - 2]
    for F, G, cmd in [(Fp, G1, "fb1"), (Fp2, G2, "fb2")]:
        for c in [1, 3, 7, 8, 10]:
            if F is Fp2 and c == 10:
                continue  # ~10^4 affine G2 additions in Python: the G1 run covers the width
            windows = -(-255 // c)
            base = G if c != 7 else mul(F, G, rng.randrange(1, R))
            tab = table(F, base, c, windows)
            ones = sum(((1 << c) - 1) << (c * w) for w in range(0, windows, 2)) % R
            scalars = special + [ones] + [rng.randrange(R) for _ in range(6)]
            text = "%s %x %x %x\n" % (cmd, len(scalars), c, windows)
            text += "\n".join(hx(enc_affine(F, t)) for t in tab) + "\n"
            text += "\n".join(hx(canon(s)) for s in scalars) + "\n"
            out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True).stdout.split("\n")
            for i, s in enumerate(scalars):
                got = dec_jacobian(F, [int(t, 16) for t in out[i].split()])
                if got != mul(F, base, s):
                    fails += 1
                    print("FAIL %s c=%d scalar %d (%x)" % (cmd, c, i, s))
            print("%s c=%2d: %d scalars checked" % (cmd, c, len(scalars)))
    print("fixed_base hostcheck: %s" % ("OK" if fails == 0 else "%d FAILURES" % fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
