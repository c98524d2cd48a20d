//! `msm2s`: the order of an MSM's stages over its passes. With two buffer sets (the plan splits the windows
//! into passes and both sets fit, `kernels::msm::plan::sets`) the accumulation (the multiply-bound bulk) runs
//! on the main stream while the counting sort of pass k + 1 and the bucket reduction of pass k run on
//! [`LaneStreams::msm_aux`](super::super::streams::LaneStreams): a set is sorted again only after its
//! accumulation and reduction have read it, which cudarc's per-buffer events enforce. With one set every stage
//! runs in order on the main stream.

use std::sync::Arc;

use cudarc::driver::{CudaStream, CudaView};

use super::super::kernels::msm::stages::Stages;
use super::super::{GResult, Gpu};

/// Runs every pass of `st` over `bases` and `scalars` with `a` as the main stream (the lane's, or `g2d`'s for
/// a G2 MSM, which has one buffer set); the sums land in `st`'s result slots.
pub(crate) fn run(
    gpu: &Gpu,
    a: &Arc<CudaStream>,
    st: &mut Stages,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
) -> GResult<()> {
    let two = st.sets.len() == 2;
    let s = if two {
        let aux = &gpu.streams()?.msm_aux;
        // The scratch may be stream-ordered allocations on the main stream.
        aux.join(a)?;
        aux
    } else {
        a
    };
    let passes = st.passes();
    st.prep(s, scalars)?;
    if let Some(&(w0, gc)) = passes.first() {
        st.sort(s, 0, w0, gc)?;
    }
    for (k, &(w0, gc)) in passes.iter().enumerate() {
        let set = if two { k % 2 } else { 0 };
        st.accumulate(a, set, gc, bases)?;
        let next = passes.get(k + 1);
        // With two sets the next pass's sort goes ahead of this pass's reduction, so that it runs under this
        // accumulation rather than behind a reduction that waits for it.
        if let (Some(&(w1, g1)), true) = (next, two) {
            st.sort(s, (k + 1) % 2, w1, g1)?;
        }
        st.reduce(s, set, k, w0, gc)?;
        // With one set the next sort must wait for the reduction (it overwrites the buckets).
        if let (Some(&(w1, g1)), false) = (next, two) {
            st.sort(s, 0, w1, g1)?;
        }
    }
    Ok(())
}
