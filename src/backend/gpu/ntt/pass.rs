//! The opt-in NTT launch sequences (`CUZK_NTT_PASS=1`): strided multi-stage passes (`ntt_pass`), ⌈log_n/10⌉
//! passes per transform instead of ⌈(log_n − 10)/2⌉ + 1 global/shared passes, twiddles from small two-level
//! tables (no N/2-entry table). See the header of src/backend/gpu/ntt.rs for the sequences and traffic, and
//! cuda/ntt_pass.cuh for the pass's six-step split. Host check: `bash cuda/hostcheck/ntt_check.sh` (run_passes,
//! gpu_ntt2, gpu_compute_h2 there mirror this file).

use cudarc::driver::{CudaFunction, CudaSlice, CudaView, LaunchConfig, PushKernelArg};

use super::super::{GResult, Gpu, Module};
use super::{n_of, Combine, NttDir, NttTables, PowTable, SMEM_LOG};

/// Flags of `ntt_pass` (PF_* in cuda/ntt_pass.cuh).
const PF_INV: u32 = 1;
const PF_DIT: u32 = 2;
const PF_LOAD_SCALE: u32 = 4;
const PF_STORE_SCALE: u32 = 8;
const PF_STORE_REV: u32 = 16;
const PF_LOAD_PW: u32 = 32;

/// Stage counts per pass from the top (largest spans first): ⌈log_n / max_b⌉ passes, as equal as possible,
/// the larger ones last (2^24: 8+8+8, 2^22: 7+7+8, 2^20: 10+10): a pass with lowest span 1 has one column
/// (2^B elements per block), the others 2^(10 − B) columns (2^10 elements), so the bottom pass gets the most.
pub(crate) fn pass_split(log_n: u32, max_b: u32) -> Vec<u32> {
    if log_n == 0 {
        return Vec::new();
    }
    let k = log_n.div_ceil(max_b);
    let (base, extra) = (log_n / k, log_n % k);
    (0..k).map(|i| base + u32::from(i >= k - extra)).collect()
}

/// Scaling folded into a pass: the table c·x^idx, and on the store whether idx is bitrev(position).
#[derive(Clone, Copy)]
enum Scale {
    None,
    Load(PowTable),
    Store(PowTable, bool),
}

struct Pass<'a> {
    gpu: &'a Gpu,
    t: &'a NttTables,
    f: CudaFunction,
}

impl<'a> Pass<'a> {
    fn new(gpu: &'a Gpu, t: &'a NttTables) -> GResult<Self> {
        Ok(Pass { gpu, t, f: gpu.kernel(Module::Ntt, "ntt_pass")? })
    }

    /// One launch: log_b stages with spans 2^(p_lo + log_b − 1) … 2^p_lo; `pw` = b: compute_h's a·b on the
    /// loads.
    fn launch(
        &self,
        a: &mut CudaSlice<u64>,
        (p_lo, log_b, flags): (u32, u32, u32),
        s: Option<PowTable>,
        pw: Option<CudaView<'_, u64>>,
    ) -> GResult<()> {
        let t = self.t;
        let log_c = (SMEM_LOG - log_b).min(p_lo);
        let cfg = LaunchConfig {
            grid_dim: ((n_of(t.log_n) >> (log_b + log_c)) as u32, 1, 1),
            block_dim: (1u32 << (log_b - 1 + log_c), 1, 1),
            shared_mem_bytes: 0, // static 33 KiB (SM_LEN)
        };
        let lt = t.lt_slice();
        let (wlo, whi) = t.pow_slices(t.omega);
        // Unused scale tables still need valid pointers: pass the ω table.
        let (slo, shi) = t.pow_slices(s.unwrap_or(t.omega));
        let flags = flags | if pw.is_some() { PF_LOAD_PW } else { 0 };
        let pb = pw.unwrap_or_else(|| t.lt_slice());
        let mut b = self.gpu.stream.launch_builder(&self.f);
        b.arg(&mut *a).arg(&lt).arg(&wlo).arg(&whi).arg(&slo).arg(&shi).arg(&pb);
        b.arg(&t.log_n).arg(&p_lo).arg(&log_b).arg(&log_c).arg(&t.lo_bits).arg(&flags);
        // SAFETY: ntt_pass(u64*, 6 × const u64*, 6 × u32); a holds N fr_t; one block per 2^(log_b + log_c) ≤
        // 2^10 elements with 2^(log_b − 1 + log_c) ≤ 512 threads (its __launch_bounds__, 33 KiB static shared);
        // the power tables cover indices < N, lt holds LT_LEN entries; pb (N fr_t, the caller's b) is read only
        // with PF_LOAD_PW, otherwise a valid dummy.
        unsafe { b.launch(cfg) }?;
        Ok(())
    }

    /// A whole unnormalized transform: DIF passes top-down (natural → bit-reversed) or, with PF_DIT, bottom-up
    /// (bit-reversed → natural); `Load` scaling on the first pass, `Store` on the last.
    fn run(
        &self,
        a: &mut CudaSlice<u64>,
        flags: u32,
        scale: Scale,
        pw: Option<&CudaSlice<u64>>,
    ) -> GResult<()> {
        let log_n = self.t.log_n;
        let mut split = pass_split(log_n, SMEM_LOG);
        let dit = flags & PF_DIT != 0;
        if dit {
            split.reverse();
        }
        let (count, mut done) = (split.len(), 0);
        for (k, &log_b) in split.iter().enumerate() {
            let p_lo = if dit { done } else { log_n - done - log_b };
            done += log_b;
            let (mut f, mut s) = (flags, None);
            match scale {
                Scale::Load(p) if k == 0 => (f, s) = (f | PF_LOAD_SCALE, Some(p)),
                Scale::Store(p, rev) if k + 1 == count => {
                    f |= PF_STORE_SCALE | if rev { PF_STORE_REV } else { 0 };
                    s = Some(p);
                }
                _ => {}
            }
            let pw = pw.filter(|_| k == 0).map(|b| b.slice(..));
            self.launch(a, (p_lo, log_b, f), s, pw)?;
        }
        Ok(())
    }
}

/// `ntt` on the pass path: the transform (natural → bit-reversed), then the permutation pass with 1/N and the
/// inverse coset shift folded in (the coset forward shift rides on the first pass's loads).
pub(crate) fn ntt(gpu: &Gpu, t: &NttTables, a: &mut CudaSlice<u64>, dir: NttDir) -> GResult<()> {
    let p = Pass::new(gpu, t)?;
    let (flags, scale, post) = match dir {
        NttDir::Forward => (0, Scale::None, None),
        NttDir::Inverse => (PF_INV, Scale::None, Some(t.inv)),
        NttDir::CosetForward => (0, Scale::Load(t.coset_fwd), None),
        NttDir::CosetInverse => (PF_INV, Scale::None, Some(t.coset_inv)),
    };
    p.run(a, flags, scale, None)?;
    super::bitrev_scale(gpu, &gpu.stream, t, a, post)
}

/// `compute_h` on the pass path. For a and b: DIF⁻¹ (evaluations natural → coefficients bit-reversed, the
/// last pass storing ·g^i/N at i = bitrev(position)), then DIT (→ coset evaluations, natural): no permutation.
/// For c: DIF⁻¹ alone (H = z·(icoset(A·B) − iNTT(C)), cuda/ntt.cu's BR2_SUB). Then DIF⁻¹(a) with a·b fused into
/// its first loads, and one permutation combining it with c.
pub(crate) fn compute_h(
    gpu: &Gpu,
    t: &NttTables,
    a: &mut CudaSlice<u64>,
    b: &mut CudaSlice<u64>,
    c: &mut CudaSlice<u64>,
) -> GResult<()> {
    let s = &*gpu.stream;
    if t.log_n == 0 {
        // One point: every transform is the identity; the product, then the combination.
        super::bitrev_combine(gpu, s, t, a, b, Combine::Mul)?;
        return super::bitrev_combine(gpu, s, t, a, c, Combine::Sub);
    }
    let p = Pass::new(gpu, t)?;
    for v in [&mut *a, &mut *b] {
        p.run(v, PF_INV, Scale::Store(t.coset_h, true), None)?;
        p.run(v, PF_DIT, Scale::None, None)?;
    }
    p.run(c, PF_INV, Scale::None, None)?;
    p.run(a, PF_INV, Scale::None, Some(&*b))?;
    super::bitrev_combine(gpu, s, t, a, c, Combine::Sub)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits cover log_n exactly, at most 10 stages per pass, sizes differing by at most one.
    #[test]
    fn pass_splits() {
        assert_eq!(pass_split(24, 10), vec![8, 8, 8]);
        assert_eq!(pass_split(22, 10), vec![7, 7, 8]);
        assert_eq!(pass_split(11, 10), vec![5, 6]);
        assert_eq!(pass_split(20, 10), vec![10, 10]);
        assert_eq!(pass_split(1, 10), vec![1]);
        for log_n in 1..=28 {
            let s = pass_split(log_n, 10);
            assert_eq!(s.iter().sum::<u32>(), log_n);
            assert!(s.iter().all(|&b| (1..=10).contains(&b)));
            assert!(s.iter().max().unwrap_or(&0) - s.iter().min().unwrap_or(&0) <= 1);
        }
    }
}
