//! A params cache entry's native copy (`<key>.params.native`): its sections as the process holds them
//! (blst's little-endian Montgomery limbs: 96 bytes a G1 point, 192 a G2 point), so a load reads each one
//! into place on every core instead of decoding it.
//!
//! Why: decoding the real 2 KiB C2's 1.1 GB params (two field conversions per G1 point) took ~2.5 core-seconds
//! on dev-2c, and a fresh process spends them in its first ~0.4 s, beside the driver's start and the first
//! synthesis on the same cores; reading the same bytes into place from the page cache moves them at ~8 GB/s
//! a core (docs/PERF.md, session al).
//!
//! Layout: a 4 KiB header, then the verifying key in its bellperson encoding, then H, L, A, B_G1 (G1 points)
//! and B_G2 (G2 points), each part starting at a 4 KiB boundary and the file ending with the last part. The
//! header (little-endian u64 unless noted): `CUZKNAT\0`, [`VERSION`], the byte-order mark
//! `0x0102030405060708`, the [`Stamp`] of the params file this copy was made from (its chunked digest, 16
//! bytes, as its sidecar holds it; its length; its modification time in nanoseconds), the six parts' byte
//! lengths, the six parts' digests (16 bytes each: XXH3-128 over the XXH3-128s of its 8 MiB pieces), then the XXH3-128 of everything before it.
//! A copy is used only while the params file and its sidecar are as they were when it was made (same digest
//! in the sidecar, same length and modification time) and every part it reads hashes to its digest;
//! otherwise the load reads the params file, which checks its whole checksum, and writes the copy again. So a
//! params file replaced or rewritten is always read and checked; a byte rotting inside an untouched params
//! file is found when its copy is next rebuilt. The copy is written without an fsync, as the params stream
//! is: a copy torn by a crash fails its digests.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use blstrs::{G1Affine, G2Affine};
use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

use super::digest::Sum;
use super::error::{Error, Result};
use super::keys::{Parameters, Src, VerifyingKey};
use super::params_file::{unstaged, Ready};
use crate::backend::api::Query;
use crate::backend::gpu::{limbs, Limbs};

/// The file name's suffix after the params file's own name.
pub const NATIVE_EXT: &str = "native";

/// Format version; bump on any layout change (an older copy is then rewritten).
pub const VERSION: u64 = 1;

const MAGIC: &[u8; 8] = b"CUZKNAT\0";
const BOM: u64 = 0x0102_0304_0506_0708;
/// Header bytes, and the alignment of every part.
const PAGE: u64 = 4096;
/// Bytes the header's fields take before its own digest.
const HEADER_FIELDS: usize = 8 + 8 + 8 + 32 + 6 * 8 + 6 * 16;
/// Bytes read and hashed by one task: 1.1 GB gives ~140 tasks, enough for every core.
const PIECE: usize = 8 << 20;
/// Domain separation of the parts' digests.
const TAG: &[u8] = b"cuzk native params xxh3-128/8MiB v1";

/// The environment variable that turns native copies off (`off`; `on`, the default, keeps them).
pub const NATIVE_ENV: &str = "CUZK_NATIVE_PARAMS";

/// The largest params file that gets a copy: the copy doubles the entry's disk, and the 2^27 file (48.4 GB)
/// would not fit twice on the device host's 64 GB disk; its load is the disk's pace anyway (docs/PERF.md).
const NATIVE_MAX: u64 = 8 << 30;

/// Disk an entry's copy must leave free.
const DISK_SLACK: u64 = 1 << 30;

/// The native copy's path beside params file `params` (`<name>.native`).
pub fn path_of(params: &Path) -> PathBuf {
    let mut name = params.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(NATIVE_EXT);
    params.with_file_name(name)
}

/// Whether params files get native copies: on unless `CUZK_NATIVE_PARAMS=off` (read once; another value is
/// warned about and ignored).
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        crate::util::switch::on_off(std::env::var(NATIVE_ENV).ok().as_deref()).unwrap_or_else(|s| {
            tracing::warn!("{NATIVE_ENV}={s}: expected on or off; native params copies stay on");
            true
        })
    })
}

/// Whether a params file of `len` bytes in `dir` should get a copy: enabled, at most 8 GiB, and the
/// disk holding `dir` has room for it with 1 GiB to spare (unknown free space counts as room).
pub fn wanted(len: u64, dir: &Path) -> bool {
    enabled() && len <= NATIVE_MAX && crate::util::dirs::free_bytes(dir).is_none_or(|f| f >= len + DISK_SLACK)
}

/// A part's digest: XXH3-128 over [`TAG`], its length and the XXH3-128s of its [`PIECE`]-byte pieces.
fn part_digest(len: u64, pieces: impl Iterator<Item = Sum>) -> Sum {
    let mut h = Xxh3::new();
    h.update(TAG);
    h.update(&len.to_le_bytes());
    for p in pieces {
        h.update(&p);
    }
    h.digest128().to_le_bytes()
}

/// [`part_digest`] of bytes in memory, the pieces hashed in parallel.
fn digest_of(bytes: &[u8]) -> Sum {
    let pieces: Vec<Sum> = bytes.par_chunks(PIECE).map(|p| xxh3_128(p).to_le_bytes()).collect();
    part_digest(bytes.len() as u64, pieces.into_iter())
}

/// Views points as their bytes.
fn bytes_of<T: Limbs>(v: &[T]) -> &[u8] {
    let l = limbs(v);
    // SAFETY: a u64 slice is `8 · len` initialized bytes at an address aligned for u8.
    unsafe { std::slice::from_raw_parts(l.as_ptr().cast::<u8>(), std::mem::size_of_val(l)) }
}

/// The parts' offsets: the vk at one page, each next part at the first page boundary after the one before.
fn offsets(lens: &[u64; 6]) -> [u64; 6] {
    let mut off = [0u64; 6];
    let mut at = PAGE;
    for (o, len) in off.iter_mut().zip(lens) {
        *o = at;
        at = (at + len).div_ceil(PAGE) * PAGE;
    }
    off
}

/// What a copy says of the params file it was made from: the chunked digest its sidecar holds, its length and
/// its modification time (ns since the epoch). A copy whose stamp differs from the file's is not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The params file's chunked digest (its sidecar's).
    pub digest: Sum,
    /// Its length in bytes.
    pub len: u64,
    /// Its modification time, nanoseconds since the Unix epoch (0 where the system gives none).
    pub mtime_ns: u64,
}

impl Stamp {
    /// The stamp of the params file `path` whose sidecar holds `digest`, from its metadata now.
    pub fn of(path: &Path, digest: Sum) -> std::io::Result<Stamp> {
        let m = std::fs::metadata(path)?;
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        Ok(Stamp { digest, len: m.len(), mtime_ns })
    }
}

/// The checked header of a copy.
struct Header {
    source: Stamp,
    lens: [u64; 6],
    digests: [Sum; 6],
}

impl Header {
    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(PAGE as usize);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&BOM.to_le_bytes());
        b.extend_from_slice(&self.source.digest);
        b.extend_from_slice(&self.source.len.to_le_bytes());
        b.extend_from_slice(&self.source.mtime_ns.to_le_bytes());
        for l in self.lens {
            b.extend_from_slice(&l.to_le_bytes());
        }
        for d in &self.digests {
            b.extend_from_slice(d);
        }
        debug_assert_eq!(b.len(), HEADER_FIELDS);
        let own = xxh3_128(&b).to_le_bytes();
        b.extend_from_slice(&own);
        b.resize(PAGE as usize, 0);
        b
    }

    /// Parses and checks a header read from a file of `file_len` bytes; the error says what is wrong.
    fn parse(b: &[u8], file_len: u64) -> std::result::Result<Header, String> {
        if b.len() < HEADER_FIELDS + 16 {
            return Err(format!("header: expected {PAGE} bytes, file is {file_len} bytes"));
        }
        let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
        let sum_at = |at: usize| -> Sum { b[at..at + 16].try_into().unwrap_or([0; 16]) };
        if &b[..8] != MAGIC {
            return Err("header: expected the magic `CUZKNAT`".into());
        }
        if u64_at(8) != VERSION {
            return Err(format!("header: format version {}, expected {VERSION}", u64_at(8)));
        }
        if u64_at(16) != BOM {
            return Err("header: written with another byte order".into());
        }
        if sum_at(HEADER_FIELDS) != xxh3_128(&b[..HEADER_FIELDS]).to_le_bytes() {
            return Err("header: its checksum does not match".into());
        }
        let source = Stamp { digest: sum_at(24), len: u64_at(40), mtime_ns: u64_at(48) };
        let lens: [u64; 6] = std::array::from_fn(|i| u64_at(56 + 8 * i));
        let digests: [Sum; 6] = std::array::from_fn(|i| sum_at(104 + 16 * i));
        let sizes = [1, 96, 96, 96, 96, 192];
        if let Some(i) = (0..6).find(|&i| !lens[i].is_multiple_of(sizes[i]) || lens[i] > file_len) {
            return Err(format!("header: part {i} is {} bytes, not whole points within the file", lens[i]));
        }
        let end = offsets(&lens)[5] + lens[5];
        if end != file_len {
            return Err(format!("expected {end} bytes from the header's lengths, file is {file_len} bytes"));
        }
        Ok(Header { source, lens, digests })
    }
}

/// Writes `params`' copy to `path` (a temp file beside it, then renamed into place; no fsync), bound to the
/// params file stamped `source`.
pub fn store(path: &Path, params: &Parameters, source: &Stamp) -> Result<()> {
    let origin = format!("native params copy {}", path.display());
    let vk = params.vk.to_bytes();
    let parts: [&[u8]; 6] = [
        &vk,
        bytes_of(&params.h),
        bytes_of(&params.l),
        bytes_of(&params.a),
        bytes_of(&params.b_g1),
        bytes_of(&params.b_g2),
    ];
    let lens = parts.map(|p| p.len() as u64);
    let digests = parts.map(digest_of);
    let header = Header { source: *source, lens, digests }.to_bytes();
    let off = offsets(&lens);
    let tmp =
        crate::util::atomic::temp_sibling(path).map_err(|e| Error::io(&origin, "name a temp file", e))?;
    let written = (|| -> std::io::Result<()> {
        let file = File::options().write(true).create_new(true).open(&tmp)?;
        file.set_len(off[5] + lens[5])?;
        file.write_all_at(&header, 0)?;
        // Every part in pieces on every core: the page cache takes parallel writes faster than one stream.
        let pieces: Vec<(u64, &[u8])> = parts
            .iter()
            .zip(off)
            .flat_map(|(p, o)| p.chunks(PIECE).enumerate().map(move |(k, c)| (o + (k * PIECE) as u64, c)))
            .collect();
        pieces.par_iter().try_for_each(|(at, c)| file.write_all_at(c, *at))?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(&origin, "write", e));
    }
    crate::util::marks::mark("params_native_stored");
    Ok(())
}

/// Reads the copy at `path` when one is there: `None` when there is none, an error naming the file and the
/// part when it is not a whole copy of params whose chunked digest is `source`. Nothing is staged while it
/// reads: the reads end before a fresh process's device is open (~200 against ~255 ms), and the engine's
/// `Backend::stage_set` then lets the first call start once H is up (docs/PERF.md, session al).
pub fn load(path: &Path, source: &Stamp) -> Option<Result<Parameters>> {
    let origin = format!("native params copy {}", path.display());
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(Error::io(&origin, "open", e))),
    };
    Some(read(&file, &origin, source))
}

fn read(file: &File, origin: &str, source: &Stamp) -> Result<Parameters> {
    crate::util::marks::mark("params_native_begins");
    let bad = |why: String| Error::io(origin, "use", std::io::Error::other(why));
    let len = file.metadata().map_err(|e| Error::io(origin, "stat", e))?.len();
    let mut head = vec![0u8; PAGE.min(len) as usize];
    file.read_exact_at(&mut head, 0).map_err(|e| Error::io(origin, "read", e))?;
    let h = Header::parse(&head, len).map_err(bad)?;
    if h.source != *source {
        let why = if h.source.digest != source.digest {
            "made from another params file (its digest differs from the sidecar's)"
        } else {
            "the params file changed since the copy was made (length or modification time)"
        };
        return Err(bad(why.into()));
    }
    let off = offsets(&h.lens);
    let mut vk_bytes = vec![0u8; h.lens[0] as usize];
    file.read_exact_at(&mut vk_bytes, off[0]).map_err(|e| Error::io(origin, "read", e))?;
    if digest_of(&vk_bytes) != h.digests[0] {
        return Err(bad("part vk: its checksum does not match".into()));
    }
    let vk = VerifyingKey::read_src(&mut Src::new(&vk_bytes[..], origin))?;
    let part = |i: usize| (off[i], h.lens[i], h.digests[i]);
    let queries = [Query::H, Query::L, Query::A, Query::BG1];
    let produce = |send: &mut dyn FnMut(Ready)| -> Result<()> {
        for (i, q) in queries.into_iter().enumerate() {
            let v = read_part::<G1Affine>(file, origin, q.name(), part(i + 1))?;
            crate::util::marks::mark_with(|| format!("params_{}_read", q.name()));
            send(Ready::G1(q, v));
        }
        let v = read_part::<G2Affine>(file, origin, "b_g2", part(5))?;
        crate::util::marks::mark("params_b_g2_read");
        send(Ready::BG2(v));
        Ok(())
    };
    let ([hv, lv, av, bv], b2v) = unstaged(produce)?;
    Ok(Parameters::new(vk, hv, lv, av, bv, b2v))
}

/// One section's points, read into place in [`PIECE`]-byte pieces on every core and checked against its
/// digest.
fn read_part<T: Limbs + Send>(
    file: &File,
    origin: &str,
    name: &str,
    (at, len, digest): (u64, u64, Sum),
) -> Result<Vec<T>> {
    let n = (len / std::mem::size_of::<T>() as u64) as usize;
    let mut v: Vec<T> = Vec::with_capacity(n);
    crate::util::mem::advise_huge(&mut v);
    let base = v.as_mut_ptr() as usize;
    let len = len as usize;
    let pieces: Vec<Sum> = (0..len.div_ceil(PIECE))
        .into_par_iter()
        .map(|k| {
            let (lo, hi) = (k * PIECE, ((k + 1) * PIECE).min(len));
            // SAFETY: [base + lo, base + hi) lies in `v`'s allocation of n·size_of::<T>() = len bytes, and
            // the pieces are disjoint; `pread_full` writes through the raw pointer, and the slice over the
            // piece is made only once every byte of it has been written.
            let piece = unsafe { pread_full(file, (base + lo) as *mut u8, hi - lo, at + lo as u64) }?;
            Ok(xxh3_128(piece).to_le_bytes())
        })
        .collect::<std::io::Result<_>>()
        .map_err(|e| Error::io(origin, "read", e))?;
    if part_digest(len as u64, pieces.into_iter()) != digest {
        let why = format!("part {name}: its checksum does not match");
        return Err(Error::io(origin, "use", std::io::Error::other(why)));
    }
    // SAFETY: every byte of the n elements was written above (the pieces cover [0, len) exactly), and any
    // bytes are a valid T (`Limbs`: plain u64 limbs).
    unsafe { v.set_len(n) };
    Ok(v)
}

/// Fills `len` bytes at `dst` from `file` at offset `at`, then views them.
///
/// # Safety
/// `dst` must be valid for writes of `len` bytes that nothing else reads or writes until the returned slice
/// is dropped.
unsafe fn pread_full<'a>(file: &File, dst: *mut u8, len: usize, at: u64) -> std::io::Result<&'a [u8]> {
    use std::os::fd::AsRawFd;
    let mut got = 0usize;
    while got < len {
        // SAFETY: dst + got .. dst + len is within the caller's writable range.
        let r = unsafe {
            libc::pread(file.as_raw_fd(), dst.add(got).cast(), len - got, (at + got as u64) as libc::off_t)
        };
        match r {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            r if r > 0 => got += r as usize,
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    // SAFETY: all `len` bytes were written just above; the caller keeps them unaliased.
    Ok(unsafe { std::slice::from_raw_parts(dst, len) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_start_each_part_on_a_page() {
        let off = offsets(&[1_500, 96 * 100, 0, 96, 4096, 192]);
        assert_eq!(off, [4096, 8192, 8192 + 12288, 8192 + 12288, 8192 + 12288 + 4096, 8192 + 12288 + 8192]);
    }

    #[test]
    fn a_header_reads_back_and_any_flipped_byte_is_refused() {
        let lens = [1_000, 96 * 3, 96, 0, 96 * 2, 192 * 5];
        let source = Stamp { digest: [7; 16], len: 12_345, mtime_ns: 1_700_000_000_123_456_789 };
        let h = Header { source, lens, digests: std::array::from_fn(|i| [i as u8; 16]) };
        let b = h.to_bytes();
        let file_len = offsets(&lens)[5] + lens[5];
        let back = Header::parse(&b, file_len).expect("a header reads back");
        assert_eq!((back.source, back.lens, back.digests), (h.source, h.lens, h.digests));
        for at in [0, 9, 17, 30, 41, 50, 60, 110, HEADER_FIELDS + 3] {
            let mut c = b.clone();
            c[at] ^= 0x10;
            assert!(Header::parse(&c, file_len).is_err(), "flipped byte {at} accepted");
        }
        assert!(Header::parse(&b, file_len + 1).is_err(), "a longer file accepted");
    }
}
