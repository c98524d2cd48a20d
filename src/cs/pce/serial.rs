//! The record as bytes, for the params cache: magic, version, identity, the CSR, the table, the bitmaps and
//! an XXH3-128 trailer over everything before it (a guard against torn and corrupted files; with it instead
//! of SHA-256, a one-shot reads the real 2 KiB C2's 123 MB record in 104–145 ms instead of 197–239 on the
//! H200 host, docs/PERF.md session af). Reading verifies the checksum first and then every index, so a
//! corrupt or crafted blob is a typed error, never a panic or an out-of-bounds read later.
//!
//! Layout (little-endian): `CUZKPCE\0`, version u32, reserved u32, constraints/inputs/aux u64, digest u64,
//! fingerprint u64, rows u64 (= 3·constraints), terms u64, table u64; row_ptr (rows + 1) × u32; cols
//! terms × u32; codes terms × u16; table × (32-byte canonical scalar, constant flag u8); the c_product,
//! a_aux, b_input and b_aux bitmap words (⌈constraints/64⌉, ⌈aux/64⌉, ⌈inputs/64⌉, ⌈aux/64⌉ × u64);
//! XXH3-128 (16 bytes, little-endian).

use blstrs::Scalar;
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

use super::error::PceError;
use super::layout::{Coeff, Pce, GENERAL};
use crate::cs::{Density, Shape};

const MAGIC: &[u8; 8] = b"CUZKPCE\0";
/// Format version; bump on any layout change (old caches are then rebuilt). 2: the XXH3-128 trailer.
pub const VERSION: u32 = 2;
const HEADER: usize = 8 + 4 + 4 + 8 * 8;
const TRAILER: usize = 16;
/// Bytes gathered before each hash update and write of [`Pce::write_to`].
const CHUNK: usize = 1 << 20;

/// A writer that hashes what passes through, in chunks.
struct Hashing<'a> {
    w: &'a mut dyn std::io::Write,
    sum: Xxh3,
    buf: Vec<u8>,
}

impl Hashing<'_> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.sum.update(&self.buf);
        self.w.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

impl Pce {
    /// The record as bytes (see the module docs for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.byte_len());
        // Writing into a Vec cannot fail.
        let _ = self.write_to(&mut out);
        debug_assert_eq!(out.len(), self.byte_len());
        out
    }

    /// The length of [`Pce::to_bytes`].
    pub fn byte_len(&self) -> usize {
        let dens = [&self.c_product, &self.a_aux, &self.b_input, &self.b_aux];
        HEADER
            + self.row_ptr.len() * 4
            + self.cols.len() * 4
            + self.codes.len() * 2
            + self.table.len() * 33
            + dens.iter().map(|d| d.words().len() * 8).sum::<usize>()
            + TRAILER
    }

    /// Streams [`Pce::to_bytes`] into `w` without holding a second copy of the record (11.7 GiB at
    /// porep-32g), hashing as it goes.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut h = Hashing { w, sum: Xxh3::new(), buf: Vec::with_capacity(CHUNK) };
        h.put(MAGIC)?;
        h.put(&VERSION.to_le_bytes())?;
        h.put(&0u32.to_le_bytes())?;
        for v in [
            self.shape.constraints as u64,
            self.shape.inputs as u64,
            self.shape.aux as u64,
            self.digest,
            self.fingerprint,
            (self.row_ptr.len() - 1) as u64,
            self.cols.len() as u64,
            self.table.len() as u64,
        ] {
            h.put(&v.to_le_bytes())?;
        }
        for x in &self.row_ptr {
            h.put(&x.to_le_bytes())?;
        }
        for x in &self.cols {
            h.put(&x.to_le_bytes())?;
        }
        for x in &self.codes {
            h.put(&x.to_le_bytes())?;
        }
        for e in &self.table {
            h.put(&e.value.to_bytes_le())?;
            h.put(&[u8::from(e.constant)])?;
        }
        for d in [&self.c_product, &self.a_aux, &self.b_input, &self.b_aux] {
            for x in d.words() {
                h.put(&x.to_le_bytes())?;
            }
        }
        h.flush()?;
        let sum = h.sum.digest128().to_le_bytes();
        h.w.write_all(&sum)
    }

    /// Reads a record written by [`Pce::to_bytes`], verifying checksum and structure.
    pub fn from_bytes(bytes: &[u8]) -> Result<Pce, PceError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(PceError::BadMagic);
        }
        if bytes.len() < HEADER + TRAILER {
            return Err(PceError::Truncated("header"));
        }
        let mut r = Reader { bytes: &bytes[..bytes.len() - TRAILER], pos: 8 };
        let version = r.u32()?;
        if version != VERSION {
            return Err(PceError::Version(version));
        }
        let (body, trailer) = bytes.split_at(bytes.len() - TRAILER);
        if xxh3_128(body).to_le_bytes()[..] != *trailer {
            return Err(PceError::Checksum);
        }
        let _reserved = r.u32()?;
        let shape = Shape { constraints: r.len()?, inputs: r.len()?, aux: r.len()? };
        let (digest, fingerprint) = (r.u64()?, r.u64()?);
        let (rows, terms, table_len) = (r.len()?, r.len()?, r.len()?);
        let vars = shape.aux.checked_add(shape.inputs).ok_or(PceError::Invalid("variable count"))?;
        if shape.inputs == 0 || vars > u32::MAX as usize || shape.constraints.checked_mul(3) != Some(rows) {
            return Err(PceError::Invalid("shape"));
        }
        if terms > u32::MAX as usize || table_len > usize::from(GENERAL) {
            return Err(PceError::Invalid("sizes"));
        }
        let rows_plus = rows.checked_add(1).ok_or(PceError::Invalid("rows"))?;
        let row_ptr = r.u32s(rows_plus)?;
        if row_ptr.first() != Some(&0)
            || row_ptr.last().map(|&x| x as usize) != Some(terms)
            || row_ptr.windows(2).any(|p| p[0] > p[1])
        {
            return Err(PceError::Invalid("row pointers"));
        }
        let cols = r.u32s(terms)?;
        if cols.iter().any(|&c| c as usize >= vars) {
            return Err(PceError::Invalid("column out of range"));
        }
        let codes = r.u16s(terms)?;
        if codes
            .iter()
            .any(|&c| if c >= GENERAL { usize::from(c & !GENERAL) >= table_len } else { c > 0x1ff })
        {
            return Err(PceError::Invalid("coefficient code"));
        }
        let mut table = Vec::with_capacity(table_len);
        for _ in 0..table_len {
            let raw: [u8; 32] = r.take(32)?.try_into().map_err(|_| PceError::Truncated("table"))?;
            let value = Option::<Scalar>::from(Scalar::from_bytes_le(&raw))
                .ok_or(PceError::Invalid("coefficient"))?;
            let constant = match r.take(1)?[0] {
                0 => false,
                1 => true,
                _ => return Err(PceError::Invalid("constant flag")),
            };
            table.push(Coeff { value, constant });
        }
        let mut density = |len: usize| -> Result<Density, PceError> {
            Density::from_words(r.u64s(len.div_ceil(64))?, len).ok_or(PceError::Invalid("density bitmap"))
        };
        let c_product = density(shape.constraints)?;
        let (a_aux, b_input, b_aux) = (density(shape.aux)?, density(shape.inputs)?, density(shape.aux)?);
        if r.pos != r.bytes.len() {
            return Err(PceError::Invalid("trailing bytes"));
        }
        Ok(Pce { shape, digest, fingerprint, row_ptr, cols, codes, table, c_product, a_aux, b_input, b_aux })
    }

    /// [`Pce::from_bytes`], then refuses a record of any other shape or digest than the one asked for.
    pub fn from_bytes_expecting(bytes: &[u8], shape: Shape, digest: u64) -> Result<Pce, PceError> {
        let pce = Pce::from_bytes(bytes)?;
        if !pce.matches(shape, digest) {
            return Err(PceError::WrongCircuit {
                expected: shape,
                expected_digest: digest,
                found: pce.shape,
                found_digest: pce.digest,
            });
        }
        Ok(pce)
    }
}

/// A bounds-checked little-endian reader.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PceError> {
        let end =
            self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(PceError::Truncated("body"))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, PceError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, PceError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A u64 count that must fit in usize.
    fn len(&mut self) -> Result<usize, PceError> {
        usize::try_from(self.u64()?).map_err(|_| PceError::Invalid("count"))
    }

    fn u16s(&mut self, n: usize) -> Result<Vec<u16>, PceError> {
        let b = self.take(n.checked_mul(2).ok_or(PceError::Truncated("codes"))?)?;
        let mut v = Vec::with_capacity(n);
        crate::util::mem::advise_huge(&mut v);
        v.extend(b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])));
        Ok(v)
    }

    fn u32s(&mut self, n: usize) -> Result<Vec<u32>, PceError> {
        let b = self.take(n.checked_mul(4).ok_or(PceError::Truncated("u32 array"))?)?;
        let mut v = Vec::with_capacity(n);
        crate::util::mem::advise_huge(&mut v);
        v.extend(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        Ok(v)
    }

    fn u64s(&mut self, n: usize) -> Result<Vec<u64>, PceError> {
        let b = self.take(n.checked_mul(8).ok_or(PceError::Truncated("u64 array"))?)?;
        Ok(b.chunks_exact(8)
            .map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                u64::from_le_bytes(a)
            })
            .collect())
    }
}
