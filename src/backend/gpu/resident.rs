//! Bases on the device, found again by host address: the SRS of the current params (kept across calls with
//! `srs_resident`) and per-call uploads of other bases (tail bases gathered by `prep_msm`). A host slice
//! inside an uploaded one (e.g. `a[n_inputs..]`) resolves to a view of it, so nothing is copied twice.

use cudarc::driver::{CudaSlice, CudaView};

use super::device::Gpu;
use super::error::GResult;
use super::{limbs, Limbs};

/// Points sampled for a fingerprint: a host buffer freed and reallocated at the same address with other
/// contents must not pass for the uploaded one.
const FINGERPRINT_SAMPLES: usize = 4;

/// A host slice's identity: address, length in limbs and a hash of a few of its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostKey {
    addr: usize,
    words: usize,
    fingerprint: u64,
}

impl HostKey {
    /// The key of `v`.
    pub fn of<T: Limbs>(v: &[T]) -> HostKey {
        let l = limbs(v);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        if !v.is_empty() {
            for k in 0..FINGERPRINT_SAMPLES {
                let i = (v.len() - 1) * k / (FINGERPRINT_SAMPLES - 1);
                for &w in &l[i * T::LIMBS..(i + 1) * T::LIMBS] {
                    h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
        }
        HostKey { addr: v.as_ptr() as usize, words: l.len(), fingerprint: h }
    }
}

/// One uploaded host slice.
pub struct Uploaded {
    key: HostKey,
    /// The limbs on the device.
    pub dev: CudaSlice<u64>,
}

impl Uploaded {
    /// Copies `v` to `gpu` (synchronously: the host slice may be freed right after).
    pub fn new<T: Limbs>(gpu: &Gpu, v: &[T]) -> GResult<Uploaded> {
        let dev =
            if v.is_empty() { gpu.stream.alloc_zeros::<u64>(1)? } else { gpu.stream.clone_htod(limbs(v))? };
        gpu.stream.synchronize()?;
        Ok(Uploaded { key: HostKey::of(v), dev })
    }

    /// Whether this upload is exactly `key`.
    pub fn is(&self, key: &HostKey) -> bool {
        self.key == *key
    }

    /// The device view of `v` when `v` lies inside this upload, element-aligned.
    pub fn view_of<T: Limbs>(&self, v: &[T]) -> Option<CudaView<'_, u64>> {
        let addr = v.as_ptr() as usize;
        let bytes = v.len() * T::LIMBS * 8;
        let elem = T::LIMBS * 8;
        let end = self.key.addr + self.key.words * 8;
        if addr < self.key.addr || addr + bytes > end || !(addr - self.key.addr).is_multiple_of(elem) {
            return None;
        }
        let w = (addr - self.key.addr) / 8;
        Some(self.dev.slice(w..w + v.len() * T::LIMBS))
    }
}

/// Finds `v` in `list`, checking the fingerprint of `v` against the sub-slice's when it is the whole upload.
pub fn find<'a, T: Limbs>(list: &'a [Uploaded], v: &[T]) -> Option<CudaView<'a, u64>> {
    let key = HostKey::of(v);
    list.iter().find_map(|u| {
        let view = u.view_of(v)?;
        (u.key.addr != key.addr || u.key.words != key.words || u.is(&key)).then_some(view)
    })
}
