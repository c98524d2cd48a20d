//! A params file written while its sections are still being made: every section's place is known from the
//! counts before any point exists, so each is written at its offset the moment it is done (H before the vk,
//! whose IC needs the QAP evaluation), while the next one is computed. At 2^27 the 48.4 GB write took 62–76 s
//! after all the points were made (docs/PERF.md, session t); streamed, it runs under the evaluation and the
//! fixed-base work.
//!
//! The bytes are those of [`super::keys::Parameters::write`]; the file appears under its name only when every
//! section is in and its [`super::digest::chunked`] digest taken (temp file in the same folder, then rename).
//! Sections put from several threads are written one at a time, in the order they come.
//!
//! Two things keep the end of a large setup off the disk's pace:
//! - each 64 MiB chunk of the digest is hashed (read back from the page cache) as soon as every byte of it
//!   is written, beside the sections still being made, so [`ParamsStream::finish`] only combines them;
//! - the file is not fsynced: at 2^27 the disk takes ~0.9 GB/s, and waiting for the last written gigabytes
//!   to reach it held the setup ~9 s after its last point (docs/PERF.md, session y). The kernel writes them
//!   back behind the setup. A crash before that leaves an entry whose checksum fails at its next load, and
//!   the cache rebuilds it (every load checks the whole file's digest).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use blstrs::{G1Affine, G2Affine};

use rayon::prelude::*;

use super::digest::{combine, Sum, CHUNK};
use super::error::{Error, Result, Section};
use super::keys::{encode_points, VerifyingKey, COUNT_LEN, VK_FIXED_LEN};
use super::params_file::COUNTED;
use crate::vocab::CancelToken;

/// How many points each counted section holds: what a params file's layout follows from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionCounts {
    /// IC points: the public inputs and the constant one.
    pub ic: usize,
    /// H points: the domain size − 1.
    pub h: usize,
    /// L points: the aux variables.
    pub l: usize,
    /// A points: the inputs and the A-dense aux variables.
    pub a: usize,
    /// B points (G1 and G2 alike): the B-dense inputs and aux variables.
    pub b: usize,
}

impl SectionCounts {
    /// (section, count, byte offset of its count, bytes per point) in file order, IC first.
    fn spans(&self) -> [(Section, usize, u64, usize); 6] {
        let counts = [self.ic, self.h, self.l, self.a, self.b, self.b];
        let mut off = VK_FIXED_LEN as u64;
        std::array::from_fn(|i| {
            let ((s, len), n, at) = (COUNTED[i], counts[i], off);
            off += (COUNT_LEN + n * len) as u64;
            (s, n, at, len)
        })
    }

    /// The file's length in bytes.
    pub fn file_len(&self) -> u64 {
        let (_, n, at, len) = self.spans()[5];
        at + (COUNT_LEN + n * len) as u64
    }
}

/// Points encoded per block written: 65 536 G1 points are 6 MB, encoded on all cores while the block before
/// is written.
const BLOCK: usize = 1 << 16;

/// A params file being written section by section (see the module doc).
pub struct ParamsStream {
    path: PathBuf,
    tmp: PathBuf,
    file: File,
    counts: SectionCounts,
    cancel: CancelToken,
    /// Held while a section is written, so two sections never interleave on the disk.
    io: Mutex<()>,
    /// What is in so far (vk, then the five sections in file order) and the first failure.
    state: Mutex<(u8, Option<String>)>,
    /// Bytes written so far (the `write` stage's progress).
    written: AtomicU64,
    /// The digest's chunks, hashed as they are done.
    chunks: Mutex<Chunks>,
}

/// What is known of the digest's chunks while the file is written.
struct Chunks {
    /// Byte ranges completely written (the vk and whole sections), in the order they came.
    done: Vec<(u64, u64)>,
    /// Each chunk's XXH3-128 once taken.
    digests: Vec<Option<Sum>>,
    /// Chunks a thread has taken to hash (so no two hash the same one).
    claimed: Vec<bool>,
}

impl Chunks {
    fn new(len: u64) -> Self {
        let n = len.div_ceil(CHUNK as u64) as usize;
        Chunks { done: Vec::new(), digests: vec![None; n], claimed: vec![false; n] }
    }

    /// Whether every byte of `lo..hi` lies in a written range.
    fn covered(&self, mut lo: u64, hi: u64) -> bool {
        // Ranges never overlap and are at most seven: walk them until none extends `lo`.
        while lo < hi {
            match self.done.iter().find(|&&(a, b)| a <= lo && lo < b) {
                Some(&(_, b)) => lo = b,
                None => return false,
            }
        }
        true
    }

    /// Claims the chunks now wholly written and not yet taken: (index, byte range).
    fn claim_ready(&mut self, len: u64) -> Vec<(usize, u64, u64)> {
        let mut ready = Vec::new();
        for i in 0..self.claimed.len() {
            let (lo, hi) = ((i * CHUNK) as u64, (((i + 1) * CHUNK) as u64).min(len));
            if !self.claimed[i] && self.covered(lo, hi) {
                self.claimed[i] = true;
                ready.push((i, lo, hi));
            }
        }
        ready
    }
}

/// The bit of `state`'s mask for a section (the vk counts as IC).
fn bit(s: Section) -> u8 {
    match s {
        Section::H => 2,
        Section::L => 4,
        Section::A => 8,
        Section::BG1 => 16,
        Section::BG2 => 32,
        _ => 1,
    }
}

impl ParamsStream {
    /// Starts the file that will become `path` (a temp file beside it, sized to the layout).
    pub fn create(path: &Path, counts: SectionCounts, cancel: CancelToken) -> Result<Self> {
        let origin = super::error::params_origin(path);
        let tmp =
            crate::util::atomic::temp_sibling(path).map_err(|e| Error::io(&origin, "name a temp file", e))?;
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io(&origin, "create", e))?;
        if let Err(e) = file.set_len(counts.file_len()) {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(&origin, "size", e));
        }
        Ok(ParamsStream {
            path: path.to_path_buf(),
            tmp,
            file,
            counts,
            cancel,
            io: Mutex::new(()),
            state: Mutex::new((0, None)),
            written: AtomicU64::new(0),
            chunks: Mutex::new(Chunks::new(counts.file_len())),
        })
    }

    /// The layout's counts.
    pub fn counts(&self) -> SectionCounts {
        self.counts
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Gives the file up (the setup failed): sections being written stop at their next block, and
    /// [`Self::finish`] fails.
    pub fn abandon(&self) {
        self.failed("the setup stopped".into());
    }

    fn failed(&self, why: String) {
        let mut st = crate::util::lock(&self.state);
        st.1.get_or_insert(why);
    }

    fn is_failed(&self) -> bool {
        crate::util::lock(&self.state).1.is_some() || self.cancel.is_cancelled()
    }

    fn write_at(&self, bytes: &[u8], at: u64) -> std::io::Result<()> {
        self.written.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.write_all_at(bytes, at)
        }
        #[cfg(not(unix))]
        {
            use std::io::{Seek, SeekFrom, Write};
            let mut f = &self.file;
            f.seek(SeekFrom::Start(at))?;
            f.write_all(bytes)
        }
    }

    fn read_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(buf, at)
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = self.file.try_clone()?;
            f.seek(SeekFrom::Start(at))?;
            f.read_exact(buf)
        }
    }

    /// Notes `lo..hi` as written and hashes the chunks that completes, on every core (read back in 4 MiB
    /// pieces from the page cache, where the write has just put them).
    fn written_range(&self, lo: u64, hi: u64) {
        let ready = {
            let mut c = crate::util::lock(&self.chunks);
            c.done.push((lo, hi));
            c.claim_ready(self.counts.file_len())
        };
        self.hash_chunks(ready);
    }

    fn hash_chunks(&self, ready: Vec<(usize, u64, u64)>) {
        const PIECE: usize = 4 << 20;
        let hashed: Vec<(usize, std::io::Result<Sum>)> = ready
            .into_par_iter()
            .map(|(i, lo, hi)| {
                let mut buf = vec![0u8; PIECE.min((hi - lo) as usize)];
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                let digest = (|| {
                    let mut at = lo;
                    while at < hi {
                        let n = PIECE.min((hi - at) as usize);
                        self.read_at(&mut buf[..n], at)?;
                        h.update(&buf[..n]);
                        at += n as u64;
                    }
                    Ok(h.digest128().to_le_bytes())
                })();
                (i, digest)
            })
            .collect();
        let mut c = crate::util::lock(&self.chunks);
        for (i, d) in hashed {
            match d {
                Ok(d) => c.digests[i] = Some(d),
                Err(e) => {
                    drop(c);
                    return self.failed(format!("reading chunk {i} back for its digest: {e}"));
                }
            }
        }
    }

    /// Writes the verifying key (the file's head, IC included). A failure is kept for [`Self::finish`].
    pub fn put_vk(&self, vk: &VerifyingKey) {
        if vk.ic.len() != self.counts.ic {
            return self.failed(format!("IC has {} points, the layout {}", vk.ic.len(), self.counts.ic));
        }
        let bytes = vk.to_bytes();
        let written = {
            let _io = crate::util::lock(&self.io);
            self.write_at(&bytes, 0)
        };
        match written {
            Ok(()) => {
                crate::util::lock(&self.state).0 |= bit(Section::Ic);
                self.written_range(0, bytes.len() as u64);
            }
            Err(e) => self.failed(format!("writing the vk: {e}")),
        }
    }

    /// Writes a G1 section (H, L, A or B_G1) at its place.
    pub fn put_g1(&self, section: Section, points: &[G1Affine]) {
        self.put(section, points, G1Affine::to_uncompressed);
    }

    /// Writes the B_G2 section at its place.
    pub fn put_g2(&self, points: &[G2Affine]) {
        self.put(Section::BG2, points, G2Affine::to_uncompressed);
    }

    fn put<T: Sync, const N: usize>(
        &self,
        section: Section,
        points: &[T],
        encode: impl Fn(&T) -> [u8; N] + Sync,
    ) {
        let Some(&(_, count, at, len)) =
            self.counts.spans().iter().find(|s| s.0 == section && s.0 != Section::Ic)
        else {
            return self.failed(format!("{section} is not a section a stream writes"));
        };
        if points.len() != count || len != N {
            return self.failed(format!("{section} has {} points, the layout {count}", points.len()));
        }
        let io = crate::util::lock(&self.io);
        if self.is_failed() {
            return;
        }
        let fill = |buf: &mut Vec<u8>, pts: &[T]| {
            buf.resize(pts.len() * N, 0);
            encode_points(buf, pts, &encode);
        };
        let written = (|| -> std::io::Result<()> {
            self.write_at(&(count as u32).to_be_bytes(), at)?;
            let mut off = at + COUNT_LEN as u64;
            let (mut cur, mut next) = (Vec::new(), Vec::new());
            let mut blocks = points.chunks(BLOCK);
            if let Some(first) = blocks.next() {
                fill(&mut cur, first);
            }
            while !cur.is_empty() {
                if self.is_failed() {
                    return Err(std::io::Error::other("stopped"));
                }
                let following = blocks.next();
                let (w, ()) = rayon::join(
                    || self.write_at(&cur, off),
                    || match following {
                        Some(p) => fill(&mut next, p),
                        None => next.clear(),
                    },
                );
                w?;
                off += cur.len() as u64;
                std::mem::swap(&mut cur, &mut next);
            }
            Ok(())
        })();
        drop(io);
        match written {
            Ok(()) => {
                crate::util::lock(&self.state).0 |= bit(section);
                self.written_range(at, at + (COUNT_LEN + count * N) as u64);
            }
            Err(e) => self.failed(format!("writing {section}: {e}")),
        }
    }

    /// Takes the complete file's digest (its chunks were hashed as they were written) and puts the file under
    /// its name; the digest is returned. Fails (and leaves nothing) when a section is missing, a write failed
    /// or the run was cancelled.
    pub fn finish(self) -> Result<Sum> {
        let origin = super::error::params_origin(&self.path);
        let (mask, failure) = std::mem::take(&mut *crate::util::lock(&self.state));
        if self.cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        if let Some(why) = failure {
            return Err(Error::io(&origin, "write", std::io::Error::other(why)));
        }
        if mask != 63 {
            let missing = [Section::Ic, Section::H, Section::L, Section::A, Section::BG1, Section::BG2]
                .into_iter()
                .filter(|s| mask & bit(*s) == 0)
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Error::io(
                &origin,
                "write",
                std::io::Error::other(format!("never written: {missing}")),
            ));
        }
        // Every chunk was claimed by the put that completed it; one still missing here is hashed now.
        let left = crate::util::lock(&self.chunks).claim_ready(self.counts.file_len());
        self.hash_chunks(left);
        let (chunks, failure) = (
            std::mem::replace(&mut *crate::util::lock(&self.chunks), Chunks::new(0)),
            crate::util::lock(&self.state).1.take(),
        );
        if let Some(why) = failure {
            return Err(Error::io(&origin, "write", std::io::Error::other(why)));
        }
        let Some(parts) = chunks.digests.into_iter().collect::<Option<Vec<_>>>() else {
            let why = "a chunk of the digest was never hashed";
            return Err(Error::io(&origin, "digest", std::io::Error::other(why)));
        };
        let digest = combine(self.counts.file_len(), parts.into_iter());
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&origin, "rename", e))?;
        crate::util::atomic::sync_parent(&self.path);
        Ok(digest)
    }
}

impl Drop for ParamsStream {
    /// A stream dropped before it is finished (or whose finish failed) leaves no temp file.
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}
