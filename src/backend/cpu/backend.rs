//! The CPU backend behind the `Backend` trait: every phase on the rayon pool.

use crate::cs::Evals;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{batch_add, msm, ntt};
use crate::backend::api::{BResult, Backend, BackendError, Bases};
use crate::vocab::{Phase, Probe, Site};
use blstrs::{G1Projective, G2Affine, G2Projective, Scalar};

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
        let mut map = crate::util::lock(&self.domains);
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
        probe: &Probe,
        circuit: usize,
        [a, b, c]: [Evals; 3],
        h_bases: Bases<'_>,
    ) -> BResult<G1Projective> {
        let [mut a, mut b, mut c] = [a.into_vec(), b.into_vec(), c.into_vec()];
        let domain = self.domain(a.len())?;
        {
            let _span = probe.open(Site::new(Phase::NttH).circuit(circuit).arg("n", domain.size()));
            ntt::compute_h(&mut a, &mut b, &mut c, &domain).map_err(|e| BackendError {
                backend: "cpu",
                op: "ntt_h",
                msg: e.to_string(),
            })?;
            drop((b, c));
        }
        let _span = probe.open(Site::new(Phase::MsmH).circuit(circuit).arg("n", a.len()));
        let n = a.len().min(h_bases.host.len());
        Ok(msm::msm_g1(&h_bases.host[..n], &a[..n], None))
    }

    fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
        Ok(batch_add::batch_add_g1(bases.host, bitmap))
    }

    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        Ok(batch_add::batch_add_g2(bases, bitmap))
    }

    fn msm_g1(&self, bases: Bases<'_>, scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        Ok(msm::msm_g1(bases.host, scalars, window))
    }

    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        Ok(msm::msm_g2(bases, scalars, window))
    }

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }
}
