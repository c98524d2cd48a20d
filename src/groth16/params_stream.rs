//! A params file written while its sections are still being made: every section's place is known from the
//! counts before any point exists, so each is written at its offset the moment it is done (H before the vk,
//! whose IC needs the QAP evaluation), while the next one is computed. At 2^27 the 48.4 GB write took 62–76 s
//! after all the points were made (docs/PERF.md, session t); streamed, it runs under the evaluation and the
//! fixed-base work.
//!
//! The bytes are those of [`super::keys::Parameters::write`]; the file appears under its name only when every
//! section is in, synced, and its [`super::digest::chunked`] digest taken (temp file in the same folder, fsync,
//! rename, as every cuzk write). Sections put from several threads are written one at a time, in the order
//! they come.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use blstrs::{G1Affine, G2Affine};

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

    /// Writes the verifying key (the file's head, IC included). A failure is kept for [`Self::finish`].
    pub fn put_vk(&self, vk: &VerifyingKey) {
        if vk.ic.len() != self.counts.ic {
            return self.failed(format!("IC has {} points, the layout {}", vk.ic.len(), self.counts.ic));
        }
        let _io = crate::util::lock(&self.io);
        match self.write_at(&vk.to_bytes(), 0) {
            Ok(()) => crate::util::lock(&self.state).0 |= bit(Section::Ic),
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
        let _io = crate::util::lock(&self.io);
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
        match written {
            Ok(()) => crate::util::lock(&self.state).0 |= bit(section),
            Err(e) => self.failed(format!("writing {section}: {e}")),
        }
    }

    /// Syncs the complete file, takes its digest and puts it under its name; the digest is returned. Fails
    /// (and leaves nothing) when a section is missing, a write failed or the run was cancelled.
    pub fn finish(self) -> Result<[u8; 32]> {
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
        self.file.sync_all().map_err(|e| Error::io(&origin, "sync", e))?;
        // SAFETY: the temp file is this stream's alone (created new under a unique name) and no write is in
        // flight (the stream is consumed), so the mapped bytes do not change while they are hashed.
        let map =
            unsafe { memmap2::Mmap::map(&self.file) }.map_err(|e| Error::io(&origin, "memory-map", e))?;
        let digest = super::digest::chunked(&map);
        drop(map);
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
