//! The params cache's checksum of a file: XXH3-128 over the XXH3-128s of its 64 MiB chunks, so it is
//! computed on every core, and each chunk at ~26 GB/s on one (dev-2c; SHA-256 with the CPU's SHA extensions
//! ran at ~1.8 GB/s: 0.6 core-seconds for the real 2 KiB C2's 1.1 GB params beside a one-shot's synthesis,
//! docs/PERF.md session af). The checksum guards against torn and corrupted entries, not against someone who
//! can write the cache: they could write the sidecar too.
//!
//! digest = XXH3-128(TAG ‖ len as u64 LE ‖ XXH3-128(chunk 0) ‖ XXH3-128(chunk 1) ‖ …), each 128-bit value as
//! 16 bytes little-endian, chunks of [`CHUNK`] bytes at offsets 0, CHUNK, … (the last one shorter).
//! [`ChunkedHasher`] computes the same value from bytes fed in order, for writers that stream.
//!
//! Sidecars written before (`sha256-64m:`, SHA-256 over 64 MiB chunks, and a plain SHA-256) are still read:
//! [`DigestKind`] says which a sidecar holds.

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

/// Bytes per hashed chunk: 64 MiB gives a 1.1 GB file 17 chunks and the 2^27 file 722, enough for every
/// core, while the list of chunk digests stays a few KiB.
pub const CHUNK: usize = 64 << 20;

/// A chunked digest as written: 16 bytes.
pub type Sum = [u8; 16];

/// Domain separation: a chunked digest never equals a plain XXH3-128 of the same bytes.
const TAG: &[u8] = b"cuzk params xxh3-128/64MiB v2";

/// The prefix of a chunked digest in a checksum sidecar (`xxh3-64m:<32 hex digits>  <file name>`).
pub const SIDECAR_PREFIX: &str = "xxh3-64m:";

/// The prefix of the SHA-256 chunked digest sidecars written before XXH3 (64 hex digits follow).
pub const SHA_SIDECAR_PREFIX: &str = "sha256-64m:";

/// Which function a sidecar's checksum is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigestKind {
    /// [`chunked`]: XXH3-128 over 64 MiB chunks (what cuzk writes).
    Chunked,
    /// [`sha256_chunked`]: SHA-256 over 64 MiB chunks (sidecars written before XXH3).
    Sha256Chunked,
    /// One SHA-256 of the whole file (`sha256sum`'s; sidecars written before the chunked digests).
    Sha256,
}

impl DigestKind {
    /// The kind a sidecar's first field names, and the hex digits that follow its prefix.
    pub fn of_sidecar(field: &str) -> (DigestKind, &str) {
        if let Some(hex) = field.strip_prefix(SIDECAR_PREFIX) {
            (DigestKind::Chunked, hex)
        } else if let Some(hex) = field.strip_prefix(SHA_SIDECAR_PREFIX) {
            (DigestKind::Sha256Chunked, hex)
        } else {
            (DigestKind::Sha256, field)
        }
    }

    /// Hex digits in a digest of this kind.
    pub fn hex_len(self) -> usize {
        match self {
            DigestKind::Chunked => 32,
            DigestKind::Sha256Chunked | DigestKind::Sha256 => 64,
        }
    }

    /// The function's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            DigestKind::Chunked => "chunked XXH3-128",
            DigestKind::Sha256Chunked => "chunked SHA-256",
            DigestKind::Sha256 => "SHA-256",
        }
    }

    /// The digest of `bytes` (chunked kinds on every core).
    pub fn of(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            DigestKind::Chunked => chunked(bytes).to_vec(),
            DigestKind::Sha256Chunked => sha256_chunked(bytes).to_vec(),
            DigestKind::Sha256 => Sha256::digest(bytes).to_vec(),
        }
    }
}

/// One chunk's digest: what [`combine`] takes, in chunk order.
pub fn chunk_sum(chunk: &[u8]) -> Sum {
    xxh3_128(chunk).to_le_bytes()
}

/// The digest from its chunks' digests ([`chunk_sum`]), in order: what a writer that hashes its chunks as
/// they are done (`params_stream`) finishes with.
pub fn combine(len: u64, chunks: impl Iterator<Item = Sum>) -> Sum {
    let mut h = Xxh3::new();
    h.update(TAG);
    h.update(&len.to_le_bytes());
    for c in chunks {
        h.update(&c);
    }
    h.digest128().to_le_bytes()
}

/// The chunked digest of `bytes`, its chunks hashed in parallel.
pub fn chunked(bytes: &[u8]) -> Sum {
    let parts: Vec<Sum> = bytes.par_chunks(CHUNK).map(chunk_sum).collect();
    combine(bytes.len() as u64, parts.into_iter())
}

/// The SHA-256 chunked digest of sidecars written before XXH3: SHA-256(its tag ‖ len as u64 LE ‖ SHA-256
/// of each 64 MiB chunk), the chunks hashed in parallel.
pub fn sha256_chunked(bytes: &[u8]) -> [u8; 32] {
    let parts: Vec<[u8; 32]> = bytes.par_chunks(CHUNK).map(|c| Sha256::digest(c).into()).collect();
    let mut h = Sha256::new();
    h.update(b"cuzk params sha256/64MiB v1");
    h.update((bytes.len() as u64).to_le_bytes());
    for c in parts {
        h.update(c);
    }
    h.finalize().into()
}

/// The chunked digest of bytes fed in order (any split): equal to [`chunked`] of their concatenation.
pub struct ChunkedHasher {
    current: Xxh3,
    in_chunk: usize,
    len: u64,
    done: Vec<Sum>,
}

impl Default for ChunkedHasher {
    fn default() -> Self {
        ChunkedHasher { current: Xxh3::new(), in_chunk: 0, len: 0, done: Vec::new() }
    }
}

impl ChunkedHasher {
    /// Feeds the next bytes.
    pub fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let take = (CHUNK - self.in_chunk).min(bytes.len());
            self.current.update(&bytes[..take]);
            self.in_chunk += take;
            self.len += take as u64;
            bytes = &bytes[take..];
            if self.in_chunk == CHUNK {
                self.done.push(self.current.digest128().to_le_bytes());
                self.current.reset();
                self.in_chunk = 0;
            }
        }
    }

    /// The digest of everything fed.
    pub fn finalize(mut self) -> Sum {
        if self.in_chunk > 0 {
            self.done.push(self.current.digest128().to_le_bytes());
        }
        combine(self.len, self.done.into_iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn streamed_equals_parallel_and_differs_from_plain() {
        // Three chunks and a bit, fed in uneven pieces that straddle the chunk boundaries.
        let bytes = noise(3 * CHUNK + 12_345);
        let mut h = ChunkedHasher::default();
        let mut at = 0;
        for step in [1usize, CHUNK - 1, 7, CHUNK + 3, 1 << 20].iter().cycle() {
            let end = (at + step).min(bytes.len());
            h.update(&bytes[at..end]);
            at = end;
            if at == bytes.len() {
                break;
            }
        }
        let streamed = h.finalize();
        assert_eq!(streamed, chunked(&bytes));
        assert_ne!(streamed, xxh3_128(&bytes).to_le_bytes());
        // Each chunk's digest is XXH3-128 of its bytes alone (the stream writer hashes chunks apart).
        let parts: Vec<Sum> = bytes.chunks(CHUNK).map(|c| xxh3_128(c).to_le_bytes()).collect();
        assert_eq!(combine(bytes.len() as u64, parts.into_iter()), streamed);
        let mut flipped = bytes.clone();
        flipped[2 * CHUNK + 5] ^= 1;
        assert_ne!(chunked(&flipped), streamed);
        // A trailing zero byte makes another chunk: another digest.
        assert_ne!(chunked(&bytes[..CHUNK]), chunked(&bytes[..CHUNK + 1]));
        assert_eq!(ChunkedHasher::default().finalize(), chunked(&[]));
    }

    #[test]
    fn the_sha256_chunked_digest_is_its_definition() {
        // The legacy digest, built here from its definition with sha2 alone.
        let bytes = noise(CHUNK + 999);
        let mut h = Sha256::new();
        h.update(b"cuzk params sha256/64MiB v1");
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(Sha256::digest(&bytes[..CHUNK]));
        h.update(Sha256::digest(&bytes[CHUNK..]));
        let want: [u8; 32] = h.finalize().into();
        assert_eq!(sha256_chunked(&bytes), want);
        assert_eq!(DigestKind::Sha256Chunked.of(&bytes), want.to_vec());
        assert_eq!(DigestKind::Sha256.of(&bytes), Sha256::digest(&bytes).to_vec());
        assert_eq!(DigestKind::Chunked.of(&bytes), chunked(&bytes).to_vec());
    }

    #[test]
    fn sidecar_prefixes_name_their_kind() {
        let cases = [
            ("xxh3-64m:00ff", DigestKind::Chunked, "00ff"),
            ("sha256-64m:abcd", DigestKind::Sha256Chunked, "abcd"),
            ("abcd", DigestKind::Sha256, "abcd"),
        ];
        for (field, kind, hex) in cases {
            assert_eq!(DigestKind::of_sidecar(field), (kind, hex));
        }
        assert_eq!(DigestKind::Chunked.hex_len(), 32);
        assert_eq!(DigestKind::Sha256.hex_len(), 64);
    }
}
