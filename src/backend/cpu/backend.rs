//! The CPU backend behind the `Backend` trait: every phase on the rayon pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use tracing::info_span;

use super::{batch_add, msm, ntt};
use crate::backend::api::{BResult, Backend, BackendError};
use crate::groth16::phases;

/// The CPU backend; keeps NTT domains (twiddle tables) across calls.
#[derive(Default)]
pub struct CpuBackend {
    domains: Mutex<HashMap<u32, Arc<ntt::Domain>>>,
}

impl CpuBackend {
    /// A backend with an empty domain cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn domain(&self, len: usize) -> BResult<Arc<ntt::Domain>> {
        let log = len.max(1).next_power_of_two().trailing_zeros();
        let mut map = self.domains.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = map.get(&log) {
            return Ok(d.clone());
        }
        let d = Arc::new(ntt::Domain::new(log).map_err(|e| BackendError {
            backend: "cpu",
            op: "ntt_h",
            msg: e.to_string(),
        })?);
        map.insert(log, d.clone());
        Ok(d)
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> String {
        format!("CPU, {} threads", rayon::current_num_threads())
    }

    fn ntt_msm_h(
        &self,
        mut a: Vec<Scalar>,
        mut b: Vec<Scalar>,
        mut c: Vec<Scalar>,
        h_bases: &[G1Affine],
    ) -> BResult<G1Projective> {
        let domain = self.domain(a.len())?;
        {
            let _span = info_span!(phases::NTT_H, n = domain.size()).entered();
            ntt::compute_h(&mut a, &mut b, &mut c, &domain).map_err(|e| BackendError {
                backend: "cpu",
                op: "ntt_h",
                msg: e.to_string(),
            })?;
            drop((b, c));
        }
        let _span = info_span!(phases::MSM_H, n = a.len()).entered();
        let n = a.len().min(h_bases.len());
        Ok(msm::msm_g1(&h_bases[..n], &a[..n], None))
    }

    fn batch_add_g1(&self, bases: &[G1Affine], bitmap: &[u64]) -> BResult<G1Projective> {
        Ok(batch_add::batch_add_g1(bases, bitmap))
    }

    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        Ok(batch_add::batch_add_g2(bases, bitmap))
    }

    fn msm_g1(&self, bases: &[G1Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        Ok(msm::msm_g1(bases, scalars, window))
    }

    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        Ok(msm::msm_g2(bases, scalars, window))
    }

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }
}
