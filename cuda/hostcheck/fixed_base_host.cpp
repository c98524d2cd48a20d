// Host emulation of cuda/fixed_base.cu (its kernel bodies compiled as host C++, the "threads" run one after
// another). Driven by fixed_base_check.py:
//   fb1 / fb2 n c windows   then (2^c − 1)·windows affine table points and n canonical scalars (4 limbs)
//                           → n Jacobian results, one per line
#include "../fixed_base.cu"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static u64 rd() {
    unsigned long long v;
    if (scanf("%llx", &v) != 1) {
        fprintf(stderr, "fixed_base_host: bad input\n");
        exit(2);
    }
    return v;
}

template <class F> static void run(u32 n, u32 c, u32 windows) {
    size_t entries = (size_t)((1u << c) - 1) * windows;
    std::vector<Affine<F>> table(entries);
    for (auto &t : table)
        for (size_t i = 0; i < sizeof(t) / 8; i++) ((u64 *)&t)[i] = rd();
    std::vector<u64> scalars(4 * (size_t)n);
    for (auto &s : scalars) s = rd();
    std::vector<Jacobian<F>> out(n);
    for (u32 x = 0; x < n; x++) {
        hostcheck_tid_x = x;
        fixed_base_body<F>(table.data(), scalars.data(), n, c, windows, out.data());
    }
    for (auto &o : out) {
        for (size_t i = 0; i < sizeof(o) / 8; i++) printf("%llx ", (unsigned long long)((u64 *)&o)[i]);
        printf("\n");
    }
    fflush(stdout);
}

int main() {
    char cmd[16];
    while (scanf("%15s", cmd) == 1) {
        u32 n = (u32)rd(), c = (u32)rd(), windows = (u32)rd();
        if (!strcmp(cmd, "fb1")) run<fp_t>(n, c, windows);
        else if (!strcmp(cmd, "fb2")) run<fp2x_t>(n, c, windows);
        else return 2;
    }
    return 0;
}
