//! A device's streams by role. Every op of a lane runs on [`Gpu::stream`](super::Gpu) unless a toggle moves
//! part of it beside: `streams` puts a/b/c's uploads and b's and c's transforms on [`LaneStreams`], `msm2s`
//! an MSM's sorts and reductions on [`LaneStreams::msm_aux`], `hpipe` the next circuit on [`StageStreams`],
//! `tailseq` the tails on [`LaneStreams::tails`].
//! Ordering across streams comes from cudarc's per-buffer events (a buffer's reader waits for its last writer).

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use super::error::GResult;

/// The lane's streams beside its main one, made on first use.
pub struct LaneStreams {
    /// a, b, c's uploads in that order (a first, so a's transforms start while b and c are on the bus).
    pub upload: Arc<CudaStream>,
    /// b's transforms (a's run on the main stream).
    pub b_ntt: Arc<CudaStream>,
    /// c's transform.
    pub c_ntt: Arc<CudaStream>,
    /// An MSM's counting sorts and bucket reductions while its accumulation runs on the main stream.
    pub msm_aux: Arc<CudaStream>,
    /// `tailseq`: the tails' inputs, batch additions and MSMs, so they run beside the lane's msm_h as soon as
    /// `prep_msm` is done rather than queued behind it.
    pub tails: Arc<CudaStream>,
    /// `Backend::stage_set`: the SRS sections going up while the lane's first call already runs.
    pub srs: Arc<CudaStream>,
}

/// `hpipe`'s streams: the next circuit's upload and compute_h, so its work never queues behind the lane's MSM
/// (which keeps the main stream and [`LaneStreams::msm_aux`]).
pub struct StageStreams {
    /// The staged circuit's uploads.
    pub upload: Arc<CudaStream>,
    /// Its a's transforms and the combining passes.
    pub a_ntt: Arc<CudaStream>,
    /// Its b's transforms.
    pub b_ntt: Arc<CudaStream>,
    /// Its c's transform.
    pub c_ntt: Arc<CudaStream>,
}

/// The streams of one compute_h: a's transforms and the combining passes on `a`, b's on `b`, c's on `c` (the
/// same stream three times runs everything in order).
#[derive(Clone, Copy)]
pub struct HStreams<'s> {
    /// a's transforms, then A·B's and the combination with C.
    pub a: &'s Arc<CudaStream>,
    /// b's transforms.
    pub b: &'s Arc<CudaStream>,
    /// c's transform.
    pub c: &'s Arc<CudaStream>,
}

impl<'s> HStreams<'s> {
    /// Everything on one stream.
    pub fn one(s: &'s Arc<CudaStream>) -> HStreams<'s> {
        HStreams { a: s, b: s, c: s }
    }
}

/// Where one circuit's a/b/c go up and through compute_h.
#[derive(Clone, Copy)]
pub struct StageOn<'s> {
    /// The uploads' stream (a, b, c in order).
    pub up: &'s Arc<CudaStream>,
    /// compute_h's streams.
    pub h: HStreams<'s>,
}

impl LaneStreams {
    pub(super) fn new(ctx: &Arc<CudaContext>) -> GResult<LaneStreams> {
        Ok(LaneStreams {
            upload: ctx.new_stream()?,
            b_ntt: ctx.new_stream()?,
            c_ntt: ctx.new_stream()?,
            msm_aux: ctx.new_stream()?,
            tails: ctx.new_stream()?,
            srs: ctx.new_stream()?,
        })
    }

    /// A circuit on the lane's own streams: with `streams` (`split`), uploads beside and b's, c's transforms
    /// beside a's on `main`; else everything on `main`.
    pub fn stage_on<'s>(&'s self, main: &'s Arc<CudaStream>, split: bool) -> StageOn<'s> {
        if split {
            StageOn { up: &self.upload, h: HStreams { a: main, b: &self.b_ntt, c: &self.c_ntt } }
        } else {
            StageOn { up: main, h: HStreams::one(main) }
        }
    }
}

impl StageStreams {
    pub(super) fn new(ctx: &Arc<CudaContext>) -> GResult<StageStreams> {
        Ok(StageStreams {
            upload: ctx.new_stream()?,
            a_ntt: ctx.new_stream()?,
            b_ntt: ctx.new_stream()?,
            c_ntt: ctx.new_stream()?,
        })
    }

    /// A staged circuit: with `streams` (`split`) in the roles above, else everything on `a_ntt`.
    pub fn stage_on(&self, split: bool) -> StageOn<'_> {
        if split {
            StageOn { up: &self.upload, h: HStreams { a: &self.a_ntt, b: &self.b_ntt, c: &self.c_ntt } }
        } else {
            StageOn { up: &self.a_ntt, h: HStreams::one(&self.a_ntt) }
        }
    }
}
