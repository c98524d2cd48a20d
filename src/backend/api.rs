//! The backend boundary: the phase operations a backend implements, so the CUDA backend can replace the CPU
//! one phase by phase. Bases cross it as typed handles ([`Bases`]): a device finds its resident copies by
//! identity (params id, query, offset), never by host address.

use crate::cs::{Evals, HostPool};
use std::sync::atomic::{AtomicU64, Ordering};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use crate::vocab::{Phase, Probe, Site, Span, Toggle, Toggles};

/// A backend operation that failed (device error, size beyond what the backend supports).
#[derive(Debug, thiserror::Error)]
#[error("{backend} backend: {op}: {msg}")]
pub struct BackendError {
    /// Which backend.
    pub backend: &'static str,
    /// Which operation.
    pub op: &'static str,
    /// What went wrong.
    pub msg: String,
}

/// Result of a backend operation.
pub type BResult<T> = Result<T, BackendError>;

/// Progress of a long call: hears the items done so far, answers whether to go on (`false`: stop there,
/// as on a cancel).
pub type Tick<'a> = &'a (dyn Fn(usize) -> bool + Sync);

/// Source of fresh ids: a process-wide counter, so an id is never reused for other data in this process
/// (unlike a host address, which the allocator hands out again).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// The identity of one loaded params set: given when the params are built or read, never shared with
/// another set in this process. Device copies of its bases are kept under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamsId(u64);

impl ParamsId {
    /// A new identity.
    pub fn fresh() -> ParamsId {
        ParamsId(fresh_id())
    }
}

/// The identity of one proving call: names the bases its `prep_msm` gathers, which live until the call ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallId(u64);

impl CallId {
    /// A new identity.
    pub fn fresh() -> CallId {
        CallId(fresh_id())
    }
}

/// The G1 queries of a params set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Query {
    /// H query (domain − 1 bases).
    H,
    /// L query (one per aux variable).
    L,
    /// A query (inputs, then the A-dense aux variables).
    A,
    /// B query in G1 (B-dense inputs, then aux variables).
    BG1,
}

impl Query {
    /// Every query, in params-file order.
    pub const ALL: [Query; 4] = [Query::H, Query::L, Query::A, Query::BG1];

    /// The name recorded on an `srs_upload` span (`query` arg).
    pub fn name(self) -> &'static str {
        match self {
            Query::H => "h",
            Query::L => "l",
            Query::A => "a",
            Query::BG1 => "b_g1",
        }
    }
}

/// One large section of a params set just decoded ([`Backend::stage_section`]).
#[derive(Clone, Copy, Debug)]
pub enum SrsSection<'a> {
    /// A G1 query.
    G1(Query, &'a [G1Affine]),
    /// The B query in G2.
    BG2(&'a [G2Affine]),
}

/// What a set of G1 bases is, so a device can find a copy it already holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BasesId {
    /// Query `query` of params `params`, from element `start` on.
    Srs {
        /// The params set.
        params: ParamsId,
        /// The query.
        query: Query,
        /// Offset of the first base within the query.
        start: usize,
    },
    /// The tail bases of query `query` that call `call`'s `prep_msm` gathered.
    Call {
        /// The call.
        call: CallId,
        /// The query they were gathered from.
        query: Query,
    },
    /// Anonymous host data (benchmarks, tests): never reused across operations.
    Host,
}

/// G1 bases handed to an operation: the host slice (what a CPU reads and a device uploads) and what it is.
#[derive(Clone, Copy, Debug)]
pub struct Bases<'a> {
    /// What these bases are.
    pub id: BasesId,
    /// The bases on the host.
    pub host: &'a [G1Affine],
}

impl<'a> Bases<'a> {
    /// Anonymous bases.
    pub fn host(host: &'a [G1Affine]) -> Bases<'a> {
        Bases { id: BasesId::Host, host }
    }

    /// The first `n` of them (same identity).
    pub fn prefix(self, n: usize) -> Bases<'a> {
        Bases { id: self.id, host: &self.host[..n.min(self.host.len())] }
    }
}

/// The params' queries a call uses (G1, and B_G2 for `g2d`), under the params' identity, so a device uploads
/// them once (or finds them resident) at the start of the call.
#[derive(Clone, Copy, Debug)]
pub struct SrsRef<'a> {
    /// The params set.
    pub id: ParamsId,
    /// H query.
    pub h: &'a [G1Affine],
    /// L query.
    pub l: &'a [G1Affine],
    /// A query.
    pub a: &'a [G1Affine],
    /// B query in G1.
    pub b_g1: &'a [G1Affine],
    /// B query in G2 (kept on a device only with `g2d`).
    pub b_g2: &'a [G2Affine],
}

impl<'a> SrsRef<'a> {
    /// Query `q` on the host.
    pub fn query(&self, q: Query) -> &'a [G1Affine] {
        match q {
            Query::H => self.h,
            Query::L => self.l,
            Query::A => self.a,
            Query::BG1 => self.b_g1,
        }
    }

    /// Query `q` from element `start` on, as named bases.
    pub fn bases(&self, q: Query, start: usize) -> Bases<'a> {
        let host = self.query(q);
        Bases { id: BasesId::Srs { params: self.id, query: q, start }, host: &host[start.min(host.len())..] }
    }
}

/// One G1 operation of the prover's per-circuit tail phases (`batch_add`, `tail_msm`).
#[derive(Clone, Copy)]
pub enum G1Op<'a> {
    /// [`Backend::batch_add_g1`]: the sum of the bases whose bit is set.
    Ones(Bases<'a>, &'a [u64]),
    /// [`Backend::msm_g1`]: Σ sᵢ·Pᵢ, with the window forced or not.
    Msm(Bases<'a>, &'a [Scalar], Option<usize>),
}

/// One span's worth of G1 operations: what [`Backend::g1_groups`] runs per circuit and phase.
pub struct G1Group<'a> {
    /// The span the group's operations run in.
    pub site: Site,
    /// The operations, results in this order.
    pub ops: Vec<G1Op<'a>>,
}

/// Per-call options from the toggles that only a device backend acts on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOpts {
    /// B1: page-lock a/b/c (`cuMemHostRegister`) for their upload.
    pub pin_abc: bool,
    /// B2: upload a/b/c through the lane's reusable pinned staging pool (when B1 is off).
    pub pinned_pool: bool,
    /// Keep the SRS bases on the device across calls (uploaded once per process and params).
    pub srs_resident: bool,
    /// `g2d`: keep B_G2 on the device too and run `b_g2_msm` there (batch addition and MSM).
    pub g2_device: bool,
    /// `dpool`: the device's memory pool keeps freed scratch mapped between calls.
    pub device_pool: bool,
    /// `streams`: a/b/c uploads and b's, c's transforms on side streams beside a's.
    pub abc_streams: bool,
    /// `msm2s`: large G1 MSMs in two window passes on two streams (sort and reduction under accumulation).
    pub msm_overlap: bool,
    /// `shift`: msm_h over shifted copies of the resident H bases (built once, kept with the SRS).
    pub msm_shift: bool,
    /// `hpipe`: a call's next circuit's upload and transforms on streams of their own under this one's msm_h.
    pub h_pipeline: bool,
    /// `tailseq`: a lane's batch additions and tail MSMs of all its circuits queued back to back, one wait.
    pub tail_seq: bool,
}

impl From<&Toggles> for CallOpts {
    /// The device toggles of a call: the one place a toggle becomes a backend option.
    fn from(t: &Toggles) -> CallOpts {
        CallOpts {
            pin_abc: t.on(Toggle::B1),
            pinned_pool: t.on(Toggle::B2),
            srs_resident: t.on(Toggle::SrsResident),
            g2_device: t.on(Toggle::G2d),
            device_pool: t.on(Toggle::Dpool),
            abc_streams: t.on(Toggle::Streams),
            msm_overlap: t.on(Toggle::Msm2s),
            msm_shift: t.on(Toggle::Shift),
            h_pipeline: t.on(Toggle::Hpipe),
            tail_seq: t.on(Toggle::Tailseq),
        }
    }
}

/// One device's memory as its driver reports it (all processes), bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceMemory {
    /// Device index.
    pub device: u64,
    /// In use.
    pub used: u64,
    /// In all.
    pub total: u64,
}

/// Memory a backend holds that the process's resident set does not show: page-locked host bytes and each
/// device's memory in use. What the run's memory sampler reads; a CPU backend has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryUse {
    /// Host bytes page-locked for transfers now (`None`: the backend pins nothing).
    pub pinned_bytes: Option<u64>,
    /// Each device's memory.
    pub devices: Vec<DeviceMemory>,
}

/// Field and curve work the prover's phases delegate. A backend is one or more compute lanes; the prover
/// splits circuits contiguously across them.
pub trait Backend: Send + Sync {
    /// Name shown in tables and run records (`cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// Device description for headers (e.g. `CPU, 16 threads`, `GPU0 NVIDIA H200`).
    fn device(&self) -> String;

    /// Whether it runs work on a device (device-only toggles apply).
    fn has_device(&self) -> bool {
        false
    }

    /// Compute lanes (devices): the prover runs one thread per lane.
    fn lanes(&self) -> usize {
        1
    }

    /// Lane `i` as a backend of its own (`None`: this backend is its only lane).
    fn lane(&self, _i: usize) -> Option<&dyn Backend> {
        None
    }

    /// Whether the lanes run beside the host's own phases (`prep_msm`, `b_g2_msm`), as on a device; a CPU
    /// lane shares the host's cores, so the prover runs them one after the other instead.
    fn overlaps_host(&self) -> bool {
        false
    }

    /// Host memory synthesis may write a/b/c into so they reach this backend without a host copy (the CUDA
    /// backend's page-locked pool, used when B2 is on and B1 off); `None` where plain vectors serve.
    fn host_pool(&self) -> Option<&dyn HostPool> {
        None
    }

    /// Opens a phase instance of this lane: host time by default, device time on a device lane.
    fn open(&self, probe: &Probe, site: Site) -> Span {
        probe.open(site)
    }

    /// Before a proving call: upload (or find resident) the SRS bases, remember the options.
    fn begin_call(&self, _probe: &Probe, _opts: CallOpts, _srs: SrsRef<'_>) -> BResult<()> {
        Ok(())
    }

    /// A section of params `id`, decoded while the rest of the file still decodes: a device backend copies it
    /// up now (kept resident as `begin_call` would keep it), so the first call finds the SRS there instead of
    /// uploading it after the whole load. Only for a run alone on its devices. Default: nothing to do.
    fn stage_section(
        &self,
        _probe: &Probe,
        _opts: CallOpts,
        _id: ParamsId,
        _section: SrsSection<'_>,
    ) -> BResult<()> {
        Ok(())
    }

    /// A whole set, in host memory, put on the device while the first call already runs: a device backend
    /// marks what it lacks of `srs` as on its way, calls `ready` (the caller hands the set to the prover
    /// there), then copies each section up; the call's `begin_call` leaves those sections to it and an
    /// operation that needs one waits for it. Only for a run alone on its devices. Default: `ready`, nothing
    /// to copy.
    fn stage_set(&self, _probe: &Probe, _opts: CallOpts, _srs: SrsRef<'_>, ready: &dyn Fn()) -> BResult<()> {
        ready();
        Ok(())
    }

    /// After a proving call: drop per-call device buffers (and the SRS unless resident).
    fn end_call(&self) {}

    /// `ntt_msm_h` for job circuit `circuit`: H = (A·B − C)/Z from a/b/c (consumed) and Σ hᵢ·Hᵢ over
    /// `h_bases`, opening the `ntt_h` and `msm_h` sub-phases.
    fn ntt_msm_h(
        &self,
        probe: &Probe,
        circuit: usize,
        abc: [Evals; 3],
        h_bases: Bases<'_>,
    ) -> BResult<G1Projective>;

    /// `ntt_msm_h` of a lane's circuits `first`, `first + 1`, … in order, each in its `ntt_msm_h` span; stops
    /// early (fewer results) when the probe is cancelled. A device lane with `hpipe` overrides it to stage
    /// the next circuit's a/b/c beside this one's msm_h.
    fn ntt_msm_h_many(
        &self,
        probe: &Probe,
        first: usize,
        abcs: Vec<[Evals; 3]>,
        h_bases: Bases<'_>,
    ) -> BResult<Vec<G1Projective>> {
        ntt_msm_h_each(self, probe, first, abcs, h_bases)
    }

    /// Runs `groups` of G1 operations in order, each group in its span (its `site`), and returns each op's
    /// result by group; stops early (fewer groups) when the probe is cancelled. A device lane with `tailseq`
    /// overrides it to queue every group's launches back to back and wait once.
    fn g1_groups(&self, probe: &Probe, groups: Vec<G1Group<'_>>) -> BResult<Vec<Vec<G1Projective>>> {
        g1_groups_each(self, probe, groups)
    }

    /// Sum of the G1 bases whose bit is set (bit i of word i/64).
    fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective>;

    /// Sum of the G2 bases whose bit is set.
    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective>;

    /// Sum of the params' B_G2 bases from `start` on whose bit is set: a device lane adds them on its device
    /// when it holds B_G2 (`g2d`), any other backend (or a lane without room for them) as `batch_add_g2`.
    fn batch_add_b_g2(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        self.batch_add_g2(&srs.b_g2[start.min(srs.b_g2.len())..], bitmap)
    }

    /// Σ sᵢ·Pᵢ in G1; `window` forces the Pippenger window (D4 off), `None` picks it from the size.
    fn msm_g1(&self, bases: Bases<'_>, scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective>;

    /// Σ sᵢ·Pᵢ in G2 over host bases (the prover's B_G2 MSM goes through [`Backend::msm_b_g2`] first).
    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective>;

    /// `Σ sᵢ·B_G2[idxᵢ]` over the params' B_G2 query (`scalars`: the concatenation of `parts`, aligned
    /// with `idx`): `Some` where a device lane holding B_G2 (`g2d`) ran it on its device, `None` where the
    /// caller runs it on the host with [`Backend::msm_g2`] (every other backend, or a lane without room for
    /// it).
    fn msm_b_g2(
        &self,
        _srs: SrsRef<'_>,
        _idx: &[u32],
        _parts: &[&[Scalar]],
    ) -> Option<BResult<G2Projective>> {
        None
    }

    /// The window this backend's MSM picks for `n` points (used for D4's shared window).
    fn window_for(&self, n: usize) -> usize;

    /// kᵢ·base in G1 for every scalar into `out` (affine, in order): setup's fixed-base multiplications,
    /// which a device backend runs on its device (`cuda/fixed_base.cu`); by default the CPU's window table.
    /// `tick` hears the points done after each chunk, and `false` from it stops the call there (a cancel).
    fn fixed_base_g1(
        &self,
        base: &G1Projective,
        scalars: &[Scalar],
        out: &mut [G1Affine],
        tick: Tick,
    ) -> BResult<()> {
        crate::backend::cpu::fixed_base::fixed_base_into(base, scalars, out, tick);
        Ok(())
    }

    /// kᵢ·base in G2 for every scalar, as [`Backend::fixed_base_g1`].
    fn fixed_base_g2(
        &self,
        base: &G2Projective,
        scalars: &[Scalar],
        out: &mut [G2Affine],
        tick: Tick,
    ) -> BResult<()> {
        crate::backend::cpu::fixed_base::fixed_base_into(base, scalars, out, tick);
        Ok(())
    }

    /// Pinned host bytes and device memory now, for the memory lanes (the CPU backend has none). Called every
    /// few milliseconds from a sampler thread, so it must be cheap and never block on a lane's work.
    fn memory(&self) -> MemoryUse {
        MemoryUse::default()
    }
}

/// [`Backend::ntt_msm_h_many`] one circuit after another: the default, and a device lane's fallback.
pub fn ntt_msm_h_each<B: Backend + ?Sized>(
    b: &B,
    probe: &Probe,
    first: usize,
    abcs: Vec<[Evals; 3]>,
    h_bases: Bases<'_>,
) -> BResult<Vec<G1Projective>> {
    let mut out = Vec::with_capacity(abcs.len());
    for (j, abc) in abcs.into_iter().enumerate() {
        if probe.checkpoint().is_err() {
            break;
        }
        let c = first + j;
        let _span = b.open(probe, Site::new(Phase::NttMsmH).circuit(c).arg("n", abc[0].len()));
        out.push(b.ntt_msm_h(probe, c, abc, h_bases)?);
    }
    Ok(out)
}

/// [`Backend::g1_groups`] one operation after another: the default, and a device lane's fallback.
pub fn g1_groups_each<B: Backend + ?Sized>(
    b: &B,
    probe: &Probe,
    groups: Vec<G1Group<'_>>,
) -> BResult<Vec<Vec<G1Projective>>> {
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        if probe.checkpoint().is_err() {
            break;
        }
        let _span = b.open(probe, g.site);
        let r = g
            .ops
            .iter()
            .map(|op| match *op {
                G1Op::Ones(bases, bitmap) => b.batch_add_g1(bases, bitmap),
                G1Op::Msm(bases, scalars, window) => b.msm_g1(bases, scalars, window),
            })
            .collect::<BResult<Vec<_>>>()?;
        out.push(r);
    }
    Ok(out)
}
