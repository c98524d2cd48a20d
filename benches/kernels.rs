//! Criterion benches of the building blocks `cuzk bench` also times (the same seeded data): G1 MSM on each
//! backend beside blst's `multi_exp`, the CPU's forward NTT, and G1 batch addition. Sizes stay small so
//! `cargo bench` finishes in minutes on two cores; the large-size figures come from `cuzk bench` and
//! `scripts/gpu-check.sh` (docs/PERF.md). GPU rows run only where a GPU is usable; otherwise one line says why.
//!
//!     cargo bench --bench kernels            # everything
//!     cargo bench --bench kernels -- msm     # one group

use std::time::Duration;

use blstrs::G1Projective;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use cuzk::backend::api::{Backend, Bases};
use cuzk::backend::cpu::ntt::Domain;
use cuzk::backend::select::select;
use cuzk::cli::bench_data::{half_bitmap, random_points, random_scalars};
use cuzk::vocab::BackendKind;

/// log2 sizes of the MSM and batch-addition rows (2^16: the CPU table of docs/PERF.md).
const SIZES: [u32; 2] = [12, 16];

/// The backends to time: the CPU always, the GPU when one is usable (the reason printed when not).
fn backends() -> Vec<Box<dyn Backend>> {
    let mut v = Vec::new();
    match select(BackendKind::Cpu) {
        Ok(s) => v.push(s.backend),
        Err(e) => eprintln!("cpu backend unavailable: {e}"),
    }
    match select(BackendKind::Gpu) {
        Ok(s) => v.push(s.backend),
        Err(e) => eprintln!("GPU rows skipped: {e}"),
    }
    v
}

fn msm(c: &mut Criterion) {
    let backends = backends();
    let mut g = c.benchmark_group("msm_g1");
    for k in SIZES {
        let n = 1usize << k;
        let points = random_points(n, 1);
        let scalars = random_scalars(n, 2);
        for b in &backends {
            g.bench_with_input(BenchmarkId::new(b.name(), format!("2^{k}")), &n, |t, _| {
                t.iter(|| b.msm_g1(Bases::host(&points), &scalars, None).ok())
            });
        }
        g.bench_with_input(BenchmarkId::new("blst", format!("2^{k}")), &n, |t, _| {
            let proj: Vec<G1Projective> = points.iter().map(G1Projective::from).collect();
            t.iter(|| G1Projective::multi_exp(&proj, &scalars))
        });
    }
    g.finish();
}

fn ntt(c: &mut Criterion) {
    let mut g = c.benchmark_group("ntt");
    for k in [12u32, 16] {
        let Ok(domain) = Domain::new(k) else { continue };
        let data = random_scalars(1 << k, 3);
        g.bench_with_input(BenchmarkId::new("cpu", format!("2^{k}")), &k, |t, _| {
            t.iter_batched_ref(|| data.clone(), |v| domain.ntt(v).ok(), criterion::BatchSize::LargeInput)
        });
    }
    g.finish();
}

fn batch_add(c: &mut Criterion) {
    let backends = backends();
    let mut g = c.benchmark_group("batch_add_g1");
    for k in SIZES {
        let n = 1usize << k;
        let points = random_points(n, 4);
        let bitmap = half_bitmap(n);
        for b in &backends {
            g.bench_with_input(BenchmarkId::new(b.name(), format!("2^{k}")), &n, |t, _| {
                t.iter(|| b.batch_add_g1(Bases::host(&points), &bitmap).ok())
            });
        }
    }
    g.finish();
}

fn config() -> Criterion {
    // Ten samples of at most ~3 s a row: enough to tell the ratios in docs/PERF.md apart on two cores.
    Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
}

criterion_group! { name = benches; config = config(); targets = msm, ntt, batch_add }
criterion_main!(benches);
