//! The params cache's checksum of a file: SHA-256 over the SHA-256s of its 64 MiB chunks, so it is computed
//! on every core. A plain SHA-256 is one thread's work at ~2 GB/s: 24 s of the 48.4 GB 2^27 params file's
//! load (docs/PERF.md, session s), and the long pole of a 1.1 GB file read beside a synthesis.
//!
//! digest = SHA-256(TAG ‖ len as u64 LE ‖ SHA-256(chunk 0) ‖ SHA-256(chunk 1) ‖ …), chunks of [`CHUNK`]
//! bytes at offsets 0, CHUNK, … (the last one shorter). [`ChunkedHasher`] computes the same value from
//! bytes fed in order, for writers that stream.

use rayon::prelude::*;
use sha2::{Digest, Sha256};

/// Bytes per hashed chunk: 64 MiB gives a 1.1 GB file 17 chunks and the 2^27 file 722, enough for every
/// core, while the list of chunk digests stays a few KiB.
pub const CHUNK: usize = 64 << 20;

/// Domain separation: a chunked digest never equals a plain SHA-256 of the same bytes.
const TAG: &[u8] = b"cuzk params sha256/64MiB v1";

/// The prefix of a chunked digest in a checksum sidecar (`sha256-64m:<hex>  <file name>`); a sidecar of 64
/// hex digits alone is a plain SHA-256 (entries written before the chunked digest).
pub const SIDECAR_PREFIX: &str = "sha256-64m:";

/// The digest from its chunks' SHA-256s, in order: what a writer that hashes its chunks as they are done
/// (`params_stream`) finishes with.
pub fn combine(len: u64, chunks: impl Iterator<Item = [u8; 32]>) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(TAG);
    h.update(len.to_le_bytes());
    for c in chunks {
        h.update(c);
    }
    h.finalize().into()
}

/// The chunked digest of `bytes`, its chunks hashed in parallel.
pub fn chunked(bytes: &[u8]) -> [u8; 32] {
    let parts: Vec<[u8; 32]> = bytes.par_chunks(CHUNK).map(|c| Sha256::digest(c).into()).collect();
    combine(bytes.len() as u64, parts.into_iter())
}

/// The chunked digest of bytes fed in order (any split): equal to [`chunked`] of their concatenation.
#[derive(Default)]
pub struct ChunkedHasher {
    current: Sha256,
    in_chunk: usize,
    len: u64,
    done: Vec<[u8; 32]>,
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
                self.done.push(std::mem::take(&mut self.current).finalize().into());
                self.in_chunk = 0;
            }
        }
    }

    /// The digest of everything fed.
    pub fn finalize(mut self) -> [u8; 32] {
        if self.in_chunk > 0 {
            self.done.push(self.current.finalize().into());
        }
        combine(self.len, self.done.into_iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_equals_parallel_and_differs_from_plain() {
        // Three chunks and a bit, fed in uneven pieces that straddle the chunk boundaries.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let bytes: Vec<u8> = (0..3 * CHUNK + 12_345)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
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
        let plain: [u8; 32] = Sha256::digest(&bytes).into();
        assert_ne!(streamed, plain);
        let mut flipped = bytes.clone();
        flipped[2 * CHUNK + 5] ^= 1;
        assert_ne!(chunked(&flipped), streamed);
        // A trailing zero byte makes another chunk: another digest.
        assert_ne!(chunked(&bytes[..CHUNK]), chunked(&bytes[..CHUNK + 1]));
        assert_eq!(ChunkedHasher::default().finalize(), chunked(&[]));
    }
}
