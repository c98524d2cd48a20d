//! A lane's bases on the device: the resident SRS (H, L, A, B_G1, kept across calls with `srs_resident`,
//! found again by params identity and checked by sampled points before reuse), the tail bases a call's
//! `prep_msm` gathered (uploaded on first use within the call), the shifted copies of H (toggle `shift`), or
//! a copy made for one operation.

use std::collections::HashMap;
use std::sync::Arc;

use blstrs::G1Affine;
use cudarc::driver::{CudaSlice, CudaStream, CudaView};

use super::super::device::Gpu;
use super::super::error::{GResult, GpuError};
use super::super::kernels::msm::shift::{self, ShiftedBases};
use super::resident::{matches, upload_locked, upload_on};
use super::stage_gate::StageGate;
use crate::backend::api::{Bases, BasesId, CallId, ParamsId, Query, SrsRef};
use crate::backend::resident::{ResidentKey, ResidentSet};
use crate::vocab::{Phase, Probe, Site, Span};

/// u64 limbs per G1 affine point.
const L: usize = 12;

/// What a lane holds of the bases on its device.
#[derive(Default)]
pub struct DeviceSrs {
    srs: ResidentSet<CudaSlice<u64>>,
    call: HashMap<(CallId, Query), CudaSlice<u64>>,
    in_call: bool,
    /// `shift`: the resident H bases' shifted copies, freed with them.
    shifted: Option<(ResidentKey, ShiftedBases)>,
    /// Params whose shifted copies did not fit (warned once; msm_h runs per window for them).
    shift_refused: Option<ParamsId>,
}

impl DeviceSrs {
    /// At a call's start: the call's G1 queries resident on `gpu` (entries of other params freed first; an
    /// entry of these params reused only if its sampled points still equal the host's), uploads under one
    /// `srs_upload` span. Without `shift` (or with other params) the shifted copies are freed (18 GiB at
    /// 2^24): turned off, `shift` gives its memory back, and turned on again it rebuilds them.
    /// Queries `gate` says are on their way are left to their stager (operations wait for them there).
    pub fn begin(
        &mut self,
        gpu: &Gpu,
        probe: &Probe,
        srs: SrsRef<'_>,
        shift: bool,
        gate: &StageGate,
    ) -> GResult<()> {
        self.in_call = true;
        self.call.clear();
        self.srs.retain_params(srs.id);
        if !shift || self.shifted.as_ref().is_some_and(|(k, _)| k.params != srs.id) {
            self.shifted = None;
        }
        let mut span: Option<Span> = None;
        let mut h_uploaded = false;
        for q in Query::ALL {
            if gate.pending((srs.id, Some(q))) {
                continue;
            }
            let host = srs.query(q);
            let key = ResidentKey { params: srs.id, query: q, len: host.len() };
            self.srs.get_or_insert(
                key,
                |dev| matches(gpu, dev, host),
                || {
                    if span.is_none() {
                        let bytes: usize =
                            Query::ALL.iter().map(|q| std::mem::size_of_val(srs.query(*q))).sum();
                        gpu.check_mem("the SRS bases (H, L, A, B_G1)", bytes)?;
                        let site = Site::new(Phase::SrsUpload).device(gpu.ordinal as u64).arg("bytes", bytes);
                        span = Some(probe.open(site));
                    }
                    h_uploaded |= q == Query::H;
                    upload_locked(gpu, host)
                },
            )?;
        }
        if h_uploaded {
            self.shifted = None; // copies of bases that were just replaced
        }
        Ok(())
    }

    /// Before any call: query `query` of params `params`, just decoded, made resident now (span `srs_upload`
    /// with its `query`), so the next [`DeviceSrs::begin`] only checks it. Entries of other params are freed
    /// first, as `begin` frees them.
    pub fn stage(
        &mut self,
        gpu: &Gpu,
        probe: &Probe,
        params: ParamsId,
        query: Query,
        host: &[G1Affine],
    ) -> GResult<()> {
        self.srs.retain_params(params);
        if self.shifted.as_ref().is_some_and(|(k, _)| k.params != params || query == Query::H) {
            self.shifted = None;
        }
        let key = ResidentKey { params, query, len: host.len() };
        self.srs.get_or_insert(
            key,
            |dev| matches(gpu, dev, host),
            || {
                let bytes = std::mem::size_of_val(host);
                crate::util::marks::mark_with(|| format!("gpu_stage_{}_check_mem", query.name()));
                gpu.check_mem("the SRS bases (H, L, A, B_G1)", bytes)?;
                crate::util::marks::mark_with(|| format!("gpu_stage_{}_upload", query.name()));
                let site = Site::new(Phase::SrsUpload)
                    .device(gpu.ordinal as u64)
                    .arg("bytes", bytes)
                    .arg("query", query.name());
                let _span = probe.open(site);
                upload_locked(gpu, host)
            },
        )?;
        Ok(())
    }

    /// Whether query `query` of params `params` is resident and its sampled points still equal `host`'s.
    pub fn holds(&self, gpu: &Gpu, params: ParamsId, query: Query, host: &[G1Affine]) -> bool {
        self.srs.get(params, query).is_some_and(|(k, dev)| k.len == host.len() && matches(gpu, dev, host))
    }

    /// A section a stager uploaded outside this lock ([`StageGate`]), put in place as [`DeviceSrs::stage`]
    /// would have put it: other params' entries freed, H's shifted copies dropped with the H they came from.
    pub fn adopt(&mut self, key: ResidentKey, dev: CudaSlice<u64>) {
        self.srs.retain_params(key.params);
        if self.shifted.as_ref().is_some_and(|(k, _)| k.params != key.params || key.query == Query::H) {
            self.shifted = None;
        }
        let _ = self.srs.get_or_insert(key, |_| false, || Ok::<_, std::convert::Infallible>(dev));
    }

    /// At a call's end: the gathered bases go; without `srs_resident` the SRS and its shifted copies too.
    pub fn end(&mut self, resident: bool) {
        self.in_call = false;
        self.call.clear();
        if !resident {
            self.srs.clear();
            self.shifted = None;
        }
    }

    /// The device copy of `bases`: a view of the resident SRS or of a call's gathered set (uploaded on first
    /// use within a call), else a fresh upload kept in `tmp` for this operation only.
    pub fn view<'a>(
        &'a mut self,
        gpu: &Gpu,
        tmp: &'a mut Option<CudaSlice<u64>>,
        bases: Bases<'_>,
    ) -> GResult<CudaView<'a, u64>> {
        if let Some(t) = self.prepare(gpu, bases)? {
            *tmp = Some(t);
        }
        self.on(tmp.as_ref(), bases)
    }

    /// Uploads what `bases` needs and the device lacks: a call's gathered set (kept for the call), or a copy
    /// of bases neither resident nor gathered, returned for the caller to hold while it uses them.
    pub fn prepare(&mut self, gpu: &Gpu, bases: Bases<'_>) -> GResult<Option<CudaSlice<u64>>> {
        self.prepare_on(gpu, &gpu.stream, bases)
    }

    /// [`DeviceSrs::prepare`] with its uploads on stream `s` (`tailseq`: beside the lane's msm_h).
    pub fn prepare_on(
        &mut self,
        gpu: &Gpu,
        s: &Arc<CudaStream>,
        bases: Bases<'_>,
    ) -> GResult<Option<CudaSlice<u64>>> {
        let n = bases.host.len();
        match bases.id {
            BasesId::Srs { params, query, start }
                if self.srs.get(params, query).is_some_and(|(k, _)| start + n <= k.len) =>
            {
                return Ok(None);
            }
            BasesId::Call { call, query } if self.in_call => {
                if let std::collections::hash_map::Entry::Vacant(e) = self.call.entry((call, query)) {
                    gpu.check_mem("gathered tail bases", std::mem::size_of_val(bases.host))?;
                    e.insert(upload_on(s, bases.host)?);
                }
                return Ok(None);
            }
            _ => {}
        }
        gpu.check_mem("bases", std::mem::size_of_val(bases.host))?;
        Ok(Some(upload_on(s, bases.host)?))
    }

    /// The device copy of `bases` once [`DeviceSrs::prepare`] ran: its returned copy `tmp` when it made one,
    /// else the resident or gathered set.
    pub fn on<'a>(&'a self, tmp: Option<&'a CudaSlice<u64>>, bases: Bases<'_>) -> GResult<CudaView<'a, u64>> {
        if let Some(t) = tmp {
            return Ok(t.slice(..));
        }
        let n = bases.host.len();
        match bases.id {
            BasesId::Srs { params, query, start } => {
                if let Some((k, dev)) = self.srs.get(params, query) {
                    if start + n <= k.len {
                        return Ok(dev.slice(start * L..(start + n) * L));
                    }
                }
            }
            BasesId::Call { call, query } if self.in_call => {
                if let Some(dev) = self.call.get(&(call, query)) {
                    return Ok(dev.slice(..n * L));
                }
            }
            _ => {}
        }
        Err(GpuError::Invalid(format!("{n} bases expected on the device are not there")))
    }

    /// `shift`: the shifted copies msm_h over `m` points of `h` runs on, built (span `srs_upload`, query
    /// `h_shifted`) on first use for these params; `None` when H is not resident (copies built per call would
    /// cost more than they save: 3.3 s at 2^24) or when the copies and the MSM's scratch do not fit (one
    /// warning, then the per-window MSM for these params). Returns whether the copies were built now.
    pub fn shifted(
        &mut self,
        gpu: &Gpu,
        probe: &Probe,
        h: &Bases<'_>,
        m: usize,
    ) -> GResult<(Option<&ShiftedBases>, bool)> {
        let BasesId::Srs { params, query: Query::H, start: 0 } = h.id else { return Ok((None, false)) };
        if self.shift_refused == Some(params) {
            return Ok((None, false));
        }
        let key = match self.srs.get(params, Query::H) {
            Some((k, _)) if k.len >= m => *k,
            _ => return Ok((None, false)),
        };
        if self.shifted.as_ref().is_some_and(|(k, sb)| *k == key && sb.len() >= m) {
            return Ok((self.shifted.as_ref().map(|(_, sb)| sb), false));
        }
        let len = key.len;
        let c = shift::window_for(len);
        self.shifted = None;
        let need = shift::shifted_bytes(len, c) + shift::scratch_bytes(len, c);
        if let Err(e) = gpu.check_mem("shifted H bases (toggle shift)", need) {
            tracing::warn!("GPU{}: {e}; msm_h runs per window for these params", gpu.ordinal);
            self.shift_refused = Some(params);
            return Ok((None, false));
        }
        let site = Site::new(Phase::SrsUpload)
            .device(gpu.ordinal as u64)
            .arg("query", "h_shifted")
            .arg("bytes", shift::shifted_bytes(len, c));
        let _span = probe.open(site);
        let Some((_, dev)) = self.srs.get(params, Query::H) else { return Ok((None, false)) };
        let sb = shift::shift_bases(gpu, &dev.slice(..L * len), len, Some(c))?;
        self.shifted = Some((key, sb));
        Ok((self.shifted.as_ref().map(|(_, sb)| sb), true))
    }
}
