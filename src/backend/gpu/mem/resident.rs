//! Host data on the device: synchronous uploads and the check that a resident copy still holds what the host
//! has (sampled points read back), run before a resident SRS is reused.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::super::device::Gpu;
use super::super::error::GResult;
use super::super::{limbs, read_back, Limbs};

/// Elements compared when a resident copy is checked: first, last and two between.
const CHECK_SAMPLES: usize = 4;

/// Copies `v` to `gpu` (synchronously: the host slice may be freed right after).
pub fn upload<T: Limbs>(gpu: &Gpu, v: &[T]) -> GResult<CudaSlice<u64>> {
    upload_on(&gpu.stream, v)
}

/// [`upload`] on stream `s` (`tailseq`'s gathered bases, which must not queue behind the lane's msm_h).
pub fn upload_on<T: Limbs>(s: &Arc<CudaStream>, v: &[T]) -> GResult<CudaSlice<u64>> {
    let dev = if v.is_empty() { s.alloc_zeros::<u64>(1)? } else { s.clone_htod(limbs(v))? };
    s.synchronize()?;
    Ok(dev)
}

/// Whether `dev` holds `host` at a few sampled elements (false on any device error).
pub fn matches<T: Limbs>(gpu: &Gpu, dev: &CudaSlice<u64>, host: &[T]) -> bool {
    if host.is_empty() {
        return true;
    }
    if dev.len() < host.len() * T::LIMBS {
        return false;
    }
    let l = limbs(host);
    (0..CHECK_SAMPLES).all(|k| {
        let i = (host.len() - 1) * k / (CHECK_SAMPLES - 1);
        let range = i * T::LIMBS..(i + 1) * T::LIMBS;
        read_back(&gpu.stream, &dev.slice(range.clone())).is_ok_and(|back| back == l[range])
    })
}
