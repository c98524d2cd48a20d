//! A lane's `tailseq` entry: every group's bases made resident first, then `gpu::tailseq` queues the sequence.

use blstrs::G1Projective;

use super::super::error::GResult;
use super::super::tailseq;
use super::{bases_on, bases_prepare, GpuLane, GPU_MSM_MIN};
use crate::backend::api::{G1Group, G1Op};
use crate::vocab::Probe;

impl GpuLane {
    /// `tailseq`: the groups as one launch sequence (`gpu::tailseq`); the groups back (`Err`) when every
    /// input and one MSM's scratch do not fit at once (the caller runs them one by one).
    #[allow(clippy::type_complexity)] // the results, or the inputs handed back
    pub(super) fn g1_groups_seq<'g>(
        &self,
        probe: &Probe,
        groups: Vec<G1Group<'g>>,
    ) -> GResult<Result<Vec<Vec<G1Projective>>, Vec<G1Group<'g>>>> {
        let gpu = &*self.gpu;
        let need = tailseq::need_bytes(&groups, GPU_MSM_MIN);
        if let Err(e) = gpu.check_mem("tailseq (every tail's inputs and one MSM's scratch)", need) {
            tracing::warn!("GPU{}: {e}; tailseq off for this call, one tail after another", gpu.ordinal);
            return Ok(Err(groups));
        }
        let mut st = self.state();
        let overlap = st.opts.msm_overlap;
        let ops: Vec<G1Op> = groups.iter().flat_map(|g| g.ops.iter().copied()).collect();
        let dev = |op: &G1Op| tailseq::on_device(op, GPU_MSM_MIN);
        let mut tmps = Vec::with_capacity(ops.len());
        for op in &ops {
            tmps.push(if dev(op) { bases_prepare(gpu, &mut st, tailseq::op_bases(op))? } else { None });
        }
        let st = &*st;
        let views = ops
            .iter()
            .zip(&tmps)
            .map(|(op, t)| dev(op).then(|| bases_on(st, t.as_ref(), tailseq::op_bases(op))).transpose())
            .collect::<GResult<Vec<_>>>()?;
        let lane = tailseq::Lane {
            gpu: &self.gpu,
            clock: &self.clock,
            host: &*self.cpu,
            overlap,
            ordinal: self.ordinal(),
        };
        Ok(Ok(tailseq::run(&lane, probe, groups, &views)?))
    }
}
