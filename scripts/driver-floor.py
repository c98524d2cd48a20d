#!/usr/bin/env python3
"""driver-floor.py — what a CUDA process costs before and after any work of ours: `cuInit`, the primary
context, optional allocations, their release and the process's exit, through libcuda alone (ctypes, no
cuzk). The floor a fresh `cuzk prove` cannot go under (docs/PERF.md, session ao).

    scripts/driver-floor.py MODE [ROUNDS]

MODE is any mix of: dev (1.25 GB of device memory, written), pin (258 MB page-locked host memory, as B2's
three first blocks at 2 KiB), free (both freed and the context released before the end), _exit (end with
os._exit, skipping Python's and the driver's exit handlers), faults (8 threads of this process map, touch
and unmap 64 MB of fresh memory over and over while `cuInit` and the context run: mappings made and removed
in the driver's own address space), touch (the same threads each map 2 GB once and only touch it, 64 MB at
a time: page faults without the mappings' churn); a MODE naming none of them (e.g. ctx) runs only `cuInit`
and the context. Prints each step's ms and the time from the last step to the process's end, measured from
outside by re-running itself as a child.
"""
import ctypes, os, subprocess, sys, time

MB = 1 << 20


def libc():
    """The C library with `mmap` and `munmap` typed."""
    c = ctypes.CDLL(None, use_errno=True)
    c.mmap.restype = ctypes.c_void_p
    c.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    c.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return c


def fresh(c, size):
    """`size` bytes of fresh anonymous memory (PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS), or None."""
    p = c.mmap(None, size, 3, 0x22, -1, 0)
    return None if p in (None, ctypes.c_void_p(-1).value) else p


def faulting(stop, size=64 * MB):
    """Maps, touches and unmaps `size` bytes of fresh anonymous memory until `stop` is set."""
    c = libc()
    while not stop.is_set():
        p = fresh(c, size)
        if p is None:
            return
        ctypes.memset(p, 1, size)  # releases the GIL: the threads fault at once
        c.munmap(p, size)


def touching(stop, size=2048 * MB, step=64 * MB):
    """Maps `size` bytes once and touches them `step` at a time until `stop` is set or they are all touched."""
    p = fresh(libc(), size)
    if p is None:
        return
    for off in range(0, size, step):
        if stop.is_set():
            return
        ctypes.memset(p + off, 1, step)


def child(mode):
    stop = None
    if "faults" in mode or "touch" in mode:
        import threading

        stop = threading.Event()
        work = touching if "touch" in mode else faulting
        for _ in range(8):
            threading.Thread(target=work, args=(stop,), daemon=True).start()
    t = [time.time()]
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        sys.exit("no CUDA driver (libcuda.so.1 not found)")
    if cu.cuInit(0) != 0:
        sys.exit("cuInit failed")
    t.append(time.time())
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    if cu.cuDeviceGet(ctypes.byref(dev), 0) != 0:
        sys.exit("cuDeviceGet failed: no device 0")
    if cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) != 0:
        sys.exit("cuDevicePrimaryCtxRetain failed")
    cu.cuCtxSetCurrent(ctx)
    t.append(time.time())
    if stop is not None:
        stop.set()
    dptr, hptr = [], []
    if "dev" in mode:
        for _ in range(5):
            p = ctypes.c_uint64()
            if cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(256 * MB)) != 0:
                sys.exit("cuMemAlloc failed")
            cu.cuMemsetD8_v2(p, ctypes.c_ubyte(1), ctypes.c_size_t(256 * MB))
            dptr.append(p)
        cu.cuCtxSynchronize()
    t.append(time.time())
    if "pin" in mode:
        for _ in range(3):
            p = ctypes.c_void_p()
            if cu.cuMemHostAlloc(ctypes.byref(p), ctypes.c_size_t(86 * MB), 0) != 0:
                sys.exit("cuMemHostAlloc failed")
            ctypes.memset(p, 1, 86 * MB)
            hptr.append(p)
    t.append(time.time())
    if "free" in mode:
        for p in dptr:
            cu.cuMemFree_v2(p)
        for p in hptr:
            cu.cuMemFreeHost(p)
        t.append(time.time())
        cu.cuDevicePrimaryCtxRelease(dev)
        t.append(time.time())
    steps = [round((b - a) * 1e3, 1) for a, b in zip(t, t[1:])]
    print(f"steps_ms={steps} last={t[-1]:.6f}", flush=True)
    if "_exit" in mode:
        os._exit(0)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[2])
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mode, rounds = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "3"
    if not rounds.isdigit() or int(rounds) < 1:
        sys.exit(f"driver-floor.py: ROUNDS: expected a whole number ≥ 1, got {rounds!r}")
    rounds = int(rounds)
    names = "init, context, dev, pin" + (", free, release" if "free" in mode else "")
    print(f"{mode}: steps ({names}) and exit, ms")
    for _ in range(rounds):
        s = time.time()
        out = subprocess.run([sys.executable, __file__, "--child", mode], capture_output=True, text=True)
        e = time.time()
        if out.returncode != 0:
            sys.exit(f"{mode}: {out.stderr.strip() or out.stdout.strip()}")
        line = out.stdout.strip().splitlines()[-1]
        last = float(line.split("last=")[1])
        print(f"  {line.split(' last=')[0]} total_ms={(e - s) * 1e3:.1f} exit_ms={(e - last) * 1e3:.1f}")


if __name__ == "__main__":
    main()
