//! The `.params` file: a memory-mapped reader that checks the layout arithmetic before decoding any point,
//! then decodes the sections in parallel and drops each one's pages from the process once decoded, and an
//! atomic writer (temp file in the same folder, fsync, rename).
//!
//! Validation: the verifying key is always checked fully (on the curve and in the subgroup). The large
//! sections use [`PointCheck::OnCurve`] by default: blst's deserializer rejects non-canonical coordinates and
//! points off the curve, and the reader also rejects the compression flag, so a corrupted byte inside a point
//! is caught with overwhelming probability; a corrupted count fails the length arithmetic.
//! [`PointCheck::Subgroup`] adds the subgroup check. The subgroup check makes decoding ~100× slower per point
//! (docs/PERF.md), hence `OnCurve` is the default. The params cache additionally checks a SHA-256 of the
//! whole file, so any corrupted byte is detected there; it decodes with [`PointCheck::Canonical`] (no curve
//! equation), since that checksum is checked before the points are used.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use blstrs::{G1Affine, G2Affine};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::digest::{ChunkedHasher, DigestKind, Sum};
use super::error::{params_origin, Error, Result, Section};
use super::keys::{
    decode_g1, decode_g2, Parameters, PointCheck, Src, VerifyingKey, CHUNK, COUNT_LEN, G1_UNCOMPRESSED,
    G2_UNCOMPRESSED, VK_FIXED_LEN,
};
use crate::backend::api::{ParamsId, Query, SrsSection};

/// Where one counted section of a params file lies, so readers (and uploaders) can find its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionSpan {
    /// Which section.
    pub section: Section,
    /// Number of points (the `u32` count).
    pub count: usize,
    /// Byte offset of the count.
    pub count_offset: u64,
    /// Byte offset of the first point.
    pub offset: u64,
    /// Bytes of one point.
    pub point_len: usize,
}

impl SectionSpan {
    /// Byte offset just past the section's last point.
    pub fn end(&self) -> u64 {
        self.offset + (self.count * self.point_len) as u64
    }
}

/// The checked layout of a params file: IC, H, L, A, B_G1, B_G2 spans, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsLayout {
    /// The spans, in file order: IC, H, L, A, B_G1, B_G2.
    pub sections: [SectionSpan; 6],
    /// Total length in bytes (equal to the file length once checked).
    pub len: u64,
}

impl ParamsLayout {
    /// The span of `section`, if it is one of the counted sections.
    pub fn span(&self, section: Section) -> Option<&SectionSpan> {
        self.sections.iter().find(|s| s.section == section)
    }
}

const VK_FIELDS: [(Section, usize); 6] = [
    (Section::AlphaG1, G1_UNCOMPRESSED),
    (Section::BetaG1, G1_UNCOMPRESSED),
    (Section::BetaG2, G2_UNCOMPRESSED),
    (Section::GammaG2, G2_UNCOMPRESSED),
    (Section::DeltaG1, G1_UNCOMPRESSED),
    (Section::DeltaG2, G2_UNCOMPRESSED),
];

/// The counted sections in file order and their bytes per point (the reader's and the stream's layout).
pub(super) const COUNTED: [(Section, usize); 6] = [
    (Section::Ic, G1_UNCOMPRESSED),
    (Section::H, G1_UNCOMPRESSED),
    (Section::L, G1_UNCOMPRESSED),
    (Section::A, G1_UNCOMPRESSED),
    (Section::BG1, G1_UNCOMPRESSED),
    (Section::BG2, G2_UNCOMPRESSED),
];

/// Checks the length arithmetic of a params file (every field and count fits, nothing trails) without
/// decoding a single point; errors name the section and the expected vs found bytes.
pub fn layout(bytes: &[u8], origin: &str) -> Result<ParamsLayout> {
    let len = bytes.len() as u64;
    let truncated = |section, what: String, expected: u64, offset: u64| Error::Truncated {
        origin: origin.to_string(),
        section,
        what,
        expected,
        offset,
        len,
    };
    let mut off = 0u64;
    for (section, size) in VK_FIELDS {
        if off + size as u64 > len {
            return Err(truncated(section, "point".into(), size as u64, off));
        }
        off += size as u64;
    }
    debug_assert_eq!(off, VK_FIXED_LEN as u64);
    let empty = SectionSpan { section: Section::Ic, count: 0, count_offset: 0, offset: 0, point_len: 0 };
    let mut sections = [empty; 6];
    for (slot, (section, point_len)) in sections.iter_mut().zip(COUNTED) {
        let count_offset = off;
        if off + COUNT_LEN as u64 > len {
            return Err(truncated(section, "count".into(), COUNT_LEN as u64, off));
        }
        let at = off as usize;
        let count = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as u64;
        off += COUNT_LEN as u64;
        let need = count * point_len as u64;
        if off + need > len {
            return Err(truncated(section, format!("{count} points"), need, off));
        }
        *slot = SectionSpan { section, count: count as usize, count_offset, offset: off, point_len };
        off += need;
    }
    if off != len {
        return Err(Error::TrailingBytes {
            origin: origin.to_string(),
            section: Section::BG2,
            end: off,
            len,
            extra: len - off,
        });
    }
    Ok(ParamsLayout { sections, len })
}

/// Decodes `count` points of `span` in parallel; on failure reports the first bad point's index and offset.
/// The output is written in place by every thread (no serial zero-fill first: 1.1 GB of G1 points took a
/// single thread ~0.4 s to fill and fault in before the decode began).
fn decode_points<T: Copy + Default + Send>(
    bytes: &[u8],
    span: &SectionSpan,
    origin: &str,
    decode: impl Fn(&[u8]) -> Result<T, &'static str> + Sync,
) -> Result<Vec<T>> {
    let size = span.point_len;
    let data = &bytes[span.offset as usize..span.end() as usize];
    let first_bad = AtomicUsize::new(usize::MAX);
    let mut out = Vec::with_capacity(span.count);
    // 2 MiB pages for the decoded points: written on every core, they fault in 512 times fewer.
    crate::util::mem::advise_huge(&mut out);
    out.par_extend(data.par_chunks_exact(size).enumerate().with_min_len(CHUNK).map(|(i, enc)| {
        decode(enc).unwrap_or_else(|_| {
            first_bad.fetch_min(i, Ordering::Relaxed);
            T::default()
        })
    }));
    let index = first_bad.into_inner();
    if index == usize::MAX {
        return Ok(out);
    }
    let offset = span.offset + (index * size) as u64;
    let problem = decode(&data[index * size..(index + 1) * size]).err().unwrap_or("invalid point");
    Err(Error::BadPoint { origin: origin.to_string(), section: span.section, index, offset, problem })
}

/// Told each large section as soon as it is decoded, with the identity the params will have: the engine
/// hands it to `Backend::stage_section`, so a section's upload runs under the decoding of those after it.
pub type OnSection<'a> = &'a (dyn Fn(ParamsId, SrsSection<'_>) + Sync);

/// Parses a whole params file image: layout first, then the vk (fully checked), then the sections with
/// `check`.
pub fn parse_params(bytes: &[u8], origin: &str, check: PointCheck) -> Result<Parameters> {
    parse_params_staged(bytes, origin, check, None)
}

/// [`parse_params`], handing each large section to `on` once decoded, in file order, on a thread of its own
/// while the sections after it decode; all of them are done when this returns.
pub fn parse_params_staged(
    bytes: &[u8],
    origin: &str,
    check: PointCheck,
    on: Option<OnSection<'_>>,
) -> Result<Parameters> {
    parse_released(bytes, origin, check, on, &|_| {})
}

/// [`parse_params_staged`], telling `release` each section's span once its points are decoded (a mapped
/// file's reader drops those pages from the process: [`Mapped::release`]).
fn parse_released(
    bytes: &[u8],
    origin: &str,
    check: PointCheck,
    on: Option<OnSection<'_>>,
    release: &(dyn Fn(&SectionSpan) + Sync),
) -> Result<Parameters> {
    crate::util::marks::mark("params_decode_begins");
    let lay = layout(bytes, origin)?;
    let [ic, h, l, a, b_g1, b_g2] = &lay.sections;
    let vk = VerifyingKey::read_src(&mut Src::new(&bytes[..ic.end() as usize], origin))?;
    let g1 = |b: &[u8]| decode_g1(b, check);
    let g2 = |b: &[u8]| decode_g2(b, check);
    let id = ParamsId::fresh();
    let decoded = |span: &SectionSpan, name: &str| {
        release(span);
        crate::util::marks::mark(&format!("params_{name}_decoded"))
    };
    release(ic);
    let g1_spans = [(h, Query::H), (l, Query::L), (a, Query::A), (b_g1, Query::BG1)];
    let produce = |send: &mut dyn FnMut(Ready)| -> Result<()> {
        for (span, q) in g1_spans {
            let v = decode_points(bytes, span, origin, g1)?;
            decoded(span, q.name());
            send(Ready::G1(q, v));
        }
        let v = decode_points(bytes, b_g2, origin, g2)?;
        decoded(b_g2, "b_g2");
        send(Ready::BG2(v));
        Ok(())
    };
    let ([hv, lv, av, bv], b2v) = match on {
        Some(on) => staged(id, on, origin, produce)?,
        None => unstaged(produce)?,
    };
    Ok(Parameters::new(vk, hv, lv, av, bv, b2v).identified(id))
}

/// A large section read or decoded, on its way to [`staged`]'s stager (or straight to [`unstaged`]'s sets).
pub(super) enum Ready {
    /// A G1 query's points.
    G1(Query, Vec<G1Affine>),
    /// B_G2's points.
    BG2(Vec<G2Affine>),
}

impl Ready {
    fn name(&self) -> &'static str {
        match self {
            Ready::G1(q, _) => q.name(),
            Ready::BG2(_) => "b_g2",
        }
    }
}

/// The four G1 queries (H, L, A, B_G1) and B_G2 of a set.
pub(super) type Sections = ([Vec<G1Affine>; 4], Vec<G2Affine>);

/// Runs `produce`, which sends the large sections in file order (H, L, A, B_G1, then B_G2), and keeps them.
pub(super) fn unstaged(produce: impl FnOnce(&mut dyn FnMut(Ready)) -> Result<()>) -> Result<Sections> {
    let (mut g1v, mut b2v): Sections = Default::default();
    let mut next = 0;
    produce(&mut |r| match r {
        Ready::G1(_, v) => {
            if let Some(slot) = g1v.get_mut(next) {
                *slot = v;
            }
            next += 1;
        }
        Ready::BG2(v) => b2v = v,
    })?;
    Ok((g1v, b2v))
}

/// [`unstaged`], with a stager thread beside `produce` that hands each section to `on` under `id` as it comes
/// (in file order) and keeps it. `produce` never waits for an upload: a fresh process's device opens ~75 ms
/// after H is decoded, and the sections after H were each decoded only beside the previous one's upload
/// (docs/PERF.md, session aj). The vectors are all kept anyway, so running ahead holds no more memory.
pub(super) fn staged(
    id: ParamsId,
    on: OnSection<'_>,
    origin: &str,
    produce: impl FnOnce(&mut dyn FnMut(Ready)) -> Result<()>,
) -> Result<Sections> {
    let (g1v, b2v, produced) = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<Ready>();
        let stager = s.spawn(move || {
            let (mut g1v, mut b2v): ([Vec<G1Affine>; 4], _) = (Default::default(), None);
            let mut next = 0;
            for section in rx {
                let name = section.name();
                crate::util::marks::mark_with(|| format!("params_{name}_stage_begins"));
                match section {
                    Ready::G1(q, v) => {
                        on(id, SrsSection::G1(q, &v));
                        if let Some(slot) = g1v.get_mut(next) {
                            *slot = v;
                        }
                        next += 1;
                    }
                    Ready::BG2(v) => {
                        on(id, SrsSection::BG2(&v));
                        b2v = Some(v);
                    }
                }
                crate::util::marks::mark_with(|| format!("params_{name}_staged"));
            }
            (g1v, b2v.filter(|_| next == 4))
        });
        let produced = produce(&mut |r| {
            let _ = tx.send(r);
        });
        drop(tx);
        let (g1v, b2v) = stager.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (g1v, b2v, produced)
    });
    produced?;
    // Every section reached the stager once `produce` succeeded (a stager's panic is resumed above).
    let b2v =
        b2v.ok_or_else(|| Error::io(origin, "stage", std::io::Error::other("a section was not staged")))?;
    Ok((g1v, b2v))
}

/// A read-only view of a file's bytes: a memory map, or an empty slice for an empty file.
struct Mapped(Option<memmap2::Mmap>);

impl Mapped {
    fn open(path: &Path, origin: &str) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(origin, "open", e))?;
        let len = file.metadata().map_err(|e| Error::io(origin, "stat", e))?.len();
        if len == 0 {
            return Ok(Mapped(None));
        }
        // SAFETY: the map is read-only and our writers never modify a params file in place (they write a temp
        // file and rename it over), so the mapped inode does not change while we read it. Another program
        // truncating the file in place could still fault the process; that is the documented memmap2 caveat.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(origin, "memory-map", e))?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Mapped(Some(map)))
    }

    fn bytes(&self) -> &[u8] {
        self.0.as_deref().unwrap_or(&[])
    }

    /// Drops `span`'s pages from this process once they are decoded. They stay in the page cache (a later
    /// read of them faults them back in from there), but they no longer count in the process's resident
    /// set: the 48.4 GB porep-32g file held ~32 GiB of it until the whole load ended (the first sector's
    /// peak, docs/PERF.md session ag), and the memory plan reads RSS plus available memory, which counted
    /// those pages twice.
    fn release(&self, span: &SectionSpan) {
        #[cfg(unix)]
        if let Some(map) = &self.0 {
            let (start, end) = (span.count_offset as usize, (span.end() as usize).min(map.len()));
            if end > start {
                // SAFETY: a read-only shared file mapping: dropped pages are read again from the file's page
                // cache on the next access, so every byte a reader (the checksum thread too) sees is unchanged.
                let dont = memmap2::UncheckedAdvice::DontNeed;
                let _ = unsafe { map.unchecked_advise_range(dont, start, end - start) };
            }
        }
        #[cfg(not(unix))]
        let _ = span;
    }
}

/// Reads and validates a params file (memory-mapped); errors name the file and the section.
pub fn read_params(path: &Path, check: PointCheck) -> Result<Parameters> {
    read_params_staged(path, check, None)
}

/// [`read_params`] with each section handed to `on` once decoded ([`parse_params_staged`]).
pub fn read_params_staged(path: &Path, check: PointCheck, on: Option<OnSection<'_>>) -> Result<Parameters> {
    let origin = params_origin(path);
    let map = Mapped::open(path, &origin)?;
    parse_released(map.bytes(), &origin, check, on, &|span| map.release(span))
}

/// What [`read_params_hashed`] read: the parse outcome, the file's `kind` digest, and its
/// [`DigestKind::Chunked`] digest too when `kind` is an older one (so the cache can rewrite the sidecar).
pub type Hashed = (Result<Parameters>, Vec<u8>, Option<Sum>);

/// Reads a params file and computes its `kind` digest concurrently (for the cache's checksum).
/// The outer error is for opening the file.
pub fn read_params_hashed(
    path: &Path,
    check: PointCheck,
    kind: DigestKind,
    on: Option<OnSection<'_>>,
) -> Result<Hashed> {
    let origin = params_origin(path);
    let map = Mapped::open(path, &origin)?;
    let bytes = map.bytes();
    // The parse stays on the calling thread (never a rayon worker's): a section handed to `on` may wait for a
    // device still starting, and a worker held by that wait is one synthesis beside the load cannot use.
    let (digest, parsed) = std::thread::scope(|s| {
        let digest = s.spawn(|| {
            let d = kind.of(bytes);
            let upgrade = (kind != DigestKind::Chunked).then(|| super::digest::chunked(bytes));
            crate::util::marks::mark("params_digest_done");
            (d, upgrade)
        });
        let parsed = parse_released(bytes, &origin, check, on, &|span| map.release(span));
        (digest.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), parsed)
    });
    Ok((parsed, digest.0, digest.1))
}

/// SHA-256 of a byte slice.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lower-case hex of a digest (the sidecar checksum format).
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A writer that hashes everything passed through (the chunked digest), so a file's checksum costs no
/// second read.
struct HashWriter<W> {
    inner: W,
    hasher: ChunkedHasher,
}

/// Bytes from which a block is hashed on a second thread while it is written: the sections come in blocks
/// of 6–12 MB, where one thread hashing and then writing would add the two (the 48.4 GB porep-32g file).
const PARALLEL_HASH_MIN: usize = 1 << 20;

impl<W: Write> Write for HashWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if buf.len() < PARALLEL_HASH_MIN {
            self.inner.write_all(buf)?;
            self.hasher.update(buf);
            return Ok(());
        }
        let HashWriter { inner, hasher } = self;
        std::thread::scope(|s| {
            let hashing = s.spawn(move || hasher.update(buf));
            let written = inner.write_all(buf);
            let hashed = hashing.join().map_err(|_| std::io::Error::other("the hashing thread panicked"));
            written.and(hashed)
        })
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `params` to `path` atomically; returns the chunked digest ([`DigestKind::Chunked`]) of the bytes
/// written.
pub fn write_params(path: &Path, params: &Parameters) -> Result<Sum> {
    let mut digest = Sum::default();
    write_atomic(path, &params_origin(path), |w| {
        let mut hw = HashWriter { inner: w, hasher: ChunkedHasher::default() };
        params.write(&mut hw)?;
        digest = std::mem::take(&mut hw.hasher).finalize();
        Ok(())
    })?;
    Ok(digest)
}

/// Writes a file so it never tears (through [`crate::util::write_atomic_with`]): `fill` streams the content;
/// `origin` labels errors (e.g. `params file /x/y.params`).
pub fn write_atomic(
    path: &Path,
    origin: &str,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    crate::util::write_atomic_with(path, fill).map_err(|e| Error::io(origin, "write", e))
}
