//! Where a lane's G1 bases are on the device: the resident SRS, a call's gathered tail bases (uploaded on first
//! use within the call), or a copy made for one operation.

use cudarc::driver::{CudaSlice, CudaView};

use super::super::device::Gpu;
use super::super::error::{GResult, GpuError};
use super::super::resident::upload;
use super::State;
use crate::backend::api::{Bases, BasesId};

/// The device copy of `bases`: a view of the resident SRS or of a call's gathered set (uploaded on first
/// use within a call), else a fresh upload kept in `tmp` for this operation only.
pub(super) fn bases_view<'a>(
    gpu: &Gpu,
    st: &'a mut State,
    tmp: &'a mut Option<CudaSlice<u64>>,
    bases: Bases<'_>,
) -> GResult<CudaView<'a, u64>> {
    if let Some(t) = bases_prepare(gpu, st, bases)? {
        *tmp = Some(t);
    }
    bases_on(st, tmp.as_ref(), bases)
}

/// Uploads what `bases` needs and the device lacks: a call's gathered set (kept for the call), or a copy of
/// bases neither resident nor gathered, returned for the caller to hold while it uses them.
pub(super) fn bases_prepare(gpu: &Gpu, st: &mut State, bases: Bases<'_>) -> GResult<Option<CudaSlice<u64>>> {
    let n = bases.host.len();
    match bases.id {
        BasesId::Srs { params, query, start }
            if st.srs.get(params, query).is_some_and(|(k, _)| start + n <= k.len) =>
        {
            return Ok(None);
        }
        BasesId::Call { call, query } if st.in_call => {
            if let std::collections::hash_map::Entry::Vacant(e) = st.call.entry((call, query)) {
                gpu.check_mem("gathered tail bases", std::mem::size_of_val(bases.host))?;
                e.insert(upload(gpu, bases.host)?);
            }
            return Ok(None);
        }
        _ => {}
    }
    gpu.check_mem("bases", std::mem::size_of_val(bases.host))?;
    Ok(Some(upload(gpu, bases.host)?))
}

/// The device copy of `bases` once [`bases_prepare`] ran: its returned copy `tmp` when it made one, else the
/// resident or gathered set.
pub(super) fn bases_on<'a>(
    st: &'a State,
    tmp: Option<&'a CudaSlice<u64>>,
    bases: Bases<'_>,
) -> GResult<CudaView<'a, u64>> {
    const L: usize = 12; // u64 limbs per G1 affine point
    if let Some(t) = tmp {
        return Ok(t.slice(..));
    }
    let n = bases.host.len();
    match bases.id {
        BasesId::Srs { params, query, start } => {
            if let Some((k, dev)) = st.srs.get(params, query) {
                if start + n <= k.len {
                    return Ok(dev.slice(start * L..(start + n) * L));
                }
            }
        }
        BasesId::Call { call, query } if st.in_call => {
            if let Some(dev) = st.call.get(&(call, query)) {
                return Ok(dev.slice(..n * L));
            }
        }
        _ => {}
    }
    Err(GpuError::Invalid(format!("{n} bases expected on the device are not there")))
}
