//! The verifying key and the proving parameters, with their bellperson-compatible byte layouts
//! (`VerifyingKey::write` / `Parameters::write`: uncompressed zcash point encodings, `u32` big-endian
//! counts), and the point codec shared by the params reader.

use std::io::{Read, Write};
use std::path::Path;

use blstrs::{G1Affine, G2Affine};
use rayon::prelude::*;

use super::error::{Error, Result, Section};
use crate::backend::api::{ParamsId, SrsRef};

/// Bytes of an uncompressed G1 point (zcash encoding, as written by bellperson).
pub const G1_UNCOMPRESSED: usize = 96;
/// Bytes of an uncompressed G2 point (zcash encoding, as written by bellperson).
pub const G2_UNCOMPRESSED: usize = 192;
/// Bytes of the fixed part of a verifying key: α₁, β₁, β₂, γ₂, δ₁, δ₂ (before the IC count).
pub const VK_FIXED_LEN: usize = 3 * G1_UNCOMPRESSED + 3 * G2_UNCOMPRESSED;
/// Bytes of a section count (`u32` big-endian).
pub const COUNT_LEN: usize = 4;

/// The Groth16 verifying key; also the head of a params file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    /// α in G1.
    pub alpha_g1: G1Affine,
    /// β in G1 (used by the prover for C).
    pub beta_g1: G1Affine,
    /// β in G2.
    pub beta_g2: G2Affine,
    /// γ in G2.
    pub gamma_g2: G2Affine,
    /// δ in G1 (used by the prover for C).
    pub delta_g1: G1Affine,
    /// δ in G2.
    pub delta_g2: G2Affine,
    /// `IC[i] = (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/γ` in G1 for each public input; `IC[0]` is the constant one's.
    pub ic: Vec<G1Affine>,
}

/// The proving parameters (SRS) of one circuit shape: the verifying key plus the prover's bases.
#[derive(Debug)]
pub struct Parameters {
    /// The verifying key.
    pub vk: VerifyingKey,
    /// H bases: τⁱ·Z(τ)/δ for i in 0..domain−1.
    pub h: Vec<G1Affine>,
    /// L bases: (β·uᵢ + α·vᵢ + wᵢ)/δ for each aux variable.
    pub l: Vec<G1Affine>,
    /// A bases: uᵢ(τ) for the inputs and the A-dense aux variables (identity where unused).
    pub a: Vec<G1Affine>,
    /// B bases in G1: vᵢ(τ) for the inputs and the B-dense aux variables.
    pub b_g1: Vec<G1Affine>,
    /// B bases in G2: vᵢ(τ) for the inputs and the B-dense aux variables.
    pub b_g2: Vec<G2Affine>,
    /// This set's identity in the process (device copies are kept under it).
    id: ParamsId,
}

/// How thoroughly points of the large params sections (H, L, A, B_G1, B_G2) are checked when decoded.
/// The verifying key is always fully checked. See `params_file` for the measured costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PointCheck {
    /// Canonical coordinates and on the curve (blst's deserializer). Catches a corrupted byte in a point with
    /// overwhelming probability at a fraction of the subgroup check's cost: the default.
    #[default]
    OnCurve,
    /// On the curve and in the prime-order subgroup (`from_uncompressed`): for params from an untrusted
    /// source.
    Subgroup,
    /// Canonical coordinates and exact flags only, no curve equation: for the params cache, whose whole-file
    /// checksum is checked before the points are used and whose files cuzk wrote from checked points.
    /// Skipping the equation saves about half a G1 decode's field multiplications, and more of a G2 decode's.
    Canonical,
}

const FLAG_COMPRESSED: u8 = 0x80;
const FLAG_INFINITY: u8 = 0x40;
const FLAG_SORT: u8 = 0x20;
const BAD_FLAGS: &str = "compression flag set in an uncompressed encoding";
const NOT_ON_CURVE: &str = "not a valid point (bad flags, coordinate not below p, or not on the curve)";
const NOT_IN_SUBGROUP: &str = "on the curve but not in the prime-order subgroup";
const WRONG_SIZE: &str = "wrong encoding size";

/// Decodes one uncompressed G1 point with the given check; the error is a short description for messages.
pub(crate) fn decode_g1(bytes: &[u8], check: PointCheck) -> Result<G1Affine, &'static str> {
    let arr: &[u8; G1_UNCOMPRESSED] = bytes.try_into().map_err(|_| WRONG_SIZE)?;
    if arr[0] & FLAG_COMPRESSED != 0 {
        return Err(BAD_FLAGS);
    }
    if check == PointCheck::Canonical {
        return decode_g1_canonical(arr);
    }
    // Despite its name, blstrs 0.7's `from_uncompressed_unchecked` goes through blst's deserializer, which
    // rejects non-canonical coordinates and points off the curve; only the subgroup check is skipped.
    let p = Option::<G1Affine>::from(G1Affine::from_uncompressed_unchecked(arr)).ok_or(NOT_ON_CURVE)?;
    if check == PointCheck::Subgroup && !bool::from(p.is_torsion_free()) {
        return Err(NOT_IN_SUBGROUP);
    }
    Ok(p)
}

/// Whether a canonical encoding (`arr`, compression flag already checked clear) is the identity: the infinity
/// flag with every other bit zero; an error for the infinity flag with other bits, or the sort flag.
fn canonical_identity(arr: &[u8]) -> Result<bool, &'static str> {
    if arr[0] & FLAG_INFINITY != 0 {
        let rest_zero = arr[0] == FLAG_INFINITY && arr[1..].iter().all(|&b| b == 0);
        return if rest_zero { Ok(true) } else { Err(NOT_ON_CURVE) };
    }
    if arr[0] & FLAG_SORT != 0 {
        return Err(BAD_FLAGS);
    }
    Ok(false)
}

/// One big-endian base-field coordinate below p, in Montgomery form.
fn canonical_fp(b: &[u8]) -> Result<blstrs::Fp, &'static str> {
    let be: &[u8; 48] = b.try_into().map_err(|_| WRONG_SIZE)?;
    Option::from(blstrs::Fp::from_bytes_be(be)).ok_or(NOT_ON_CURVE)
}

/// [`PointCheck::Canonical`]'s G1 decode: two coordinates below p (no curve equation), or the identity.
fn decode_g1_canonical(arr: &[u8; G1_UNCOMPRESSED]) -> Result<G1Affine, &'static str> {
    if canonical_identity(arr)? {
        return Ok(<G1Affine as group::prime::PrimeCurveAffine>::identity());
    }
    Ok(G1Affine::from_raw_unchecked(canonical_fp(&arr[..48])?, canonical_fp(&arr[48..])?, false))
}

/// [`PointCheck::Canonical`]'s G2 decode: x = (x.c1, x.c0) and y = (y.c1, y.c0), each below p, or the
/// identity.
fn decode_g2_canonical(arr: &[u8; G2_UNCOMPRESSED]) -> Result<G2Affine, &'static str> {
    if canonical_identity(arr)? {
        return Ok(<G2Affine as group::prime::PrimeCurveAffine>::identity());
    }
    let fp2 = |b: &[u8]| -> Result<blstrs::Fp2, &'static str> {
        Ok(blstrs::Fp2::new(canonical_fp(&b[48..])?, canonical_fp(&b[..48])?))
    };
    Ok(G2Affine::from_raw_unchecked(fp2(&arr[..96])?, fp2(&arr[96..])?, false))
}

/// Decodes one uncompressed G2 point with the given check; the error is a short description for messages.
pub(crate) fn decode_g2(bytes: &[u8], check: PointCheck) -> Result<G2Affine, &'static str> {
    let arr: &[u8; G2_UNCOMPRESSED] = bytes.try_into().map_err(|_| WRONG_SIZE)?;
    if arr[0] & FLAG_COMPRESSED != 0 {
        return Err(BAD_FLAGS);
    }
    if check == PointCheck::Canonical {
        return decode_g2_canonical(arr);
    }
    let p = Option::<G2Affine>::from(G2Affine::from_uncompressed_unchecked(arr)).ok_or(NOT_ON_CURVE)?;
    if check == PointCheck::Subgroup && !bool::from(p.is_torsion_free()) {
        return Err(NOT_IN_SUBGROUP);
    }
    Ok(p)
}

/// Points encoded per parallel task when writing or decoding large sections.
pub(crate) const CHUNK: usize = 4096;

/// Writes a `u32` BE count and then the points, encoding chunks in parallel; errors if the count exceeds
/// `u32`.
fn write_section<T: Sync, const N: usize>(
    mut w: impl Write,
    points: &[T],
    encode: impl Fn(&T) -> [u8; N] + Sync,
) -> std::io::Result<()> {
    let count = u32::try_from(points.len()).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "section has more than u32::MAX points")
    })?;
    w.write_all(&count.to_be_bytes())?;
    let block = CHUNK * 16;
    let mut buf = vec![0u8; block.min(points.len()) * N];
    for pts in points.chunks(block) {
        let out = &mut buf[..pts.len() * N];
        encode_points(out, pts, &encode);
        w.write_all(out)?;
    }
    Ok(())
}

/// Encodes `points` into `out` (`N` bytes each) on all cores, [`CHUNK`] points per task.
pub(crate) fn encode_points<T: Sync, const N: usize>(
    out: &mut [u8],
    points: &[T],
    encode: &(impl Fn(&T) -> [u8; N] + Sync),
) {
    out.par_chunks_mut(CHUNK * N).zip(points.par_chunks(CHUNK)).for_each(|(o, p)| {
        for (dst, pt) in o.chunks_exact_mut(N).zip(p) {
            dst.copy_from_slice(&encode(pt));
        }
    });
}

/// A reader that knows its byte offset and its origin, so a short read becomes a typed `Truncated` error.
pub(crate) struct Src<R> {
    r: R,
    origin: String,
    offset: u64,
}

impl<R: Read> Src<R> {
    /// Wraps `r`, labelling errors with `origin`.
    pub(crate) fn new(r: R, origin: impl Into<String>) -> Self {
        Src { r, origin: origin.into(), offset: 0 }
    }

    /// Fills `buf` completely or reports which section and what was cut short.
    fn fill(&mut self, buf: &mut [u8], section: Section, what: &dyn Fn() -> String) -> Result<()> {
        let start = self.offset;
        let mut got = 0;
        while got < buf.len() {
            match self.r.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(Error::Truncated {
                        origin: self.origin.clone(),
                        section,
                        what: what(),
                        expected: buf.len() as u64,
                        offset: start,
                        len: start + got as u64,
                    })
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(self.origin.clone(), "read", e)),
            }
        }
        self.offset += got as u64;
        Ok(())
    }

    /// Reads a section's `u32` BE count.
    fn count(&mut self, section: Section) -> Result<usize> {
        let mut b = [0u8; COUNT_LEN];
        self.fill(&mut b, section, &|| "count".to_string())?;
        Ok(u32::from_be_bytes(b) as usize)
    }

    /// Reads and fully checks point `index` of `section` in G1.
    fn g1(&mut self, section: Section, index: usize) -> Result<G1Affine> {
        let mut b = [0u8; G1_UNCOMPRESSED];
        let offset = self.offset;
        self.fill(&mut b, section, &|| format!("point {index}"))?;
        decode_g1(&b, PointCheck::Subgroup).map_err(|problem| self.bad(section, index, offset, problem))
    }

    /// Reads and fully checks point `index` of `section` in G2.
    fn g2(&mut self, section: Section, index: usize) -> Result<G2Affine> {
        let mut b = [0u8; G2_UNCOMPRESSED];
        let offset = self.offset;
        self.fill(&mut b, section, &|| format!("point {index}"))?;
        decode_g2(&b, PointCheck::Subgroup).map_err(|problem| self.bad(section, index, offset, problem))
    }

    fn bad(&self, section: Section, index: usize, offset: u64, problem: &'static str) -> Error {
        Error::BadPoint { origin: self.origin.clone(), section, index, offset, problem }
    }
}

impl VerifyingKey {
    /// Size in bytes of this key's serialization: the fixed points, the IC count and the IC points.
    pub fn serialized_len(&self) -> usize {
        VK_FIXED_LEN + COUNT_LEN + self.ic.len() * G1_UNCOMPRESSED
    }

    /// Writes the key in bellperson's `VerifyingKey::write` layout (uncompressed points, `u32` BE IC count).
    pub fn write(&self, mut w: impl Write) -> std::io::Result<()> {
        for p in [&self.alpha_g1, &self.beta_g1] {
            w.write_all(&p.to_uncompressed())?;
        }
        w.write_all(&self.beta_g2.to_uncompressed())?;
        w.write_all(&self.gamma_g2.to_uncompressed())?;
        w.write_all(&self.delta_g1.to_uncompressed())?;
        w.write_all(&self.delta_g2.to_uncompressed())?;
        write_section(w, &self.ic, G1Affine::to_uncompressed)
    }

    /// The serialized bytes (same as `write` into a `Vec`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.serialized_len());
        // Writing into a Vec cannot fail except on a count above u32::MAX, which cannot be allocated anyway.
        let _ = self.write(&mut v);
        v
    }

    /// Reads a key written by `write` (or bellperson), checking every point is on the curve and in the
    /// subgroup.
    pub fn read(r: impl Read) -> Result<Self> {
        Self::read_from(r, "verifying key")
    }

    /// Reads a verifying key file (the `cuzk verify` input); errors name the file.
    pub fn read_file(path: &Path) -> Result<Self> {
        let origin = format!("vk file {}", path.display());
        let f = std::fs::File::open(path).map_err(|e| Error::io(origin.clone(), "open", e))?;
        let len = f.metadata().map_err(|e| Error::io(origin.clone(), "stat", e))?.len();
        let mut src = Src::new(std::io::BufReader::new(f), origin);
        let vk = Self::read_src(&mut src)?;
        if src.offset != len {
            let end = src.offset;
            let extra = len.saturating_sub(end);
            return Err(Error::TrailingBytes { origin: src.origin, section: Section::Ic, end, len, extra });
        }
        Ok(vk)
    }

    /// Reads a key from `r`, labelling errors with `origin`.
    pub fn read_from(r: impl Read, origin: &str) -> Result<Self> {
        Self::read_src(&mut Src::new(r, origin))
    }

    pub(crate) fn read_src<R: Read>(src: &mut Src<R>) -> Result<Self> {
        let alpha_g1 = src.g1(Section::AlphaG1, 0)?;
        let beta_g1 = src.g1(Section::BetaG1, 0)?;
        let beta_g2 = src.g2(Section::BetaG2, 0)?;
        let gamma_g2 = src.g2(Section::GammaG2, 0)?;
        let delta_g1 = src.g1(Section::DeltaG1, 0)?;
        let delta_g2 = src.g2(Section::DeltaG2, 0)?;
        let n = src.count(Section::Ic)?;
        // Grow as points arrive: a corrupted count must not trigger a huge allocation.
        let mut ic = Vec::with_capacity(n.min(1 << 16));
        for i in 0..n {
            ic.push(src.g1(Section::Ic, i)?);
        }
        Ok(VerifyingKey { alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, ic })
    }
}

/// A clone is a new set: it gets its own identity, since either copy may change on its own.
impl Clone for Parameters {
    fn clone(&self) -> Parameters {
        let (vk, h, l, a) = (self.vk.clone(), self.h.clone(), self.l.clone(), self.a.clone());
        Parameters::new(vk, h, l, a, self.b_g1.clone(), self.b_g2.clone())
    }
}

/// Equal when the keys and every base are equal, whatever their identities.
impl PartialEq for Parameters {
    fn eq(&self, o: &Parameters) -> bool {
        (&self.vk, &self.h, &self.l, &self.a, &self.b_g1, &self.b_g2)
            == (&o.vk, &o.h, &o.l, &o.a, &o.b_g1, &o.b_g2)
    }
}

impl Eq for Parameters {}

impl Parameters {
    /// Params from their parts, with a fresh identity.
    pub fn new(
        vk: VerifyingKey,
        h: Vec<G1Affine>,
        l: Vec<G1Affine>,
        a: Vec<G1Affine>,
        b_g1: Vec<G1Affine>,
        b_g2: Vec<G2Affine>,
    ) -> Parameters {
        Parameters { vk, h, l, a, b_g1, b_g2, id: ParamsId::fresh() }
    }

    /// These params under identity `id`, given out before the parts were all made (a section staged on a
    /// device while the next decoded already bears it).
    pub(crate) fn identified(mut self, id: ParamsId) -> Parameters {
        self.id = id;
        self
    }

    /// This set's identity: unique in the process, so resident device copies are never mistaken for another
    /// set's (even one loaded at the same address).
    pub fn id(&self) -> ParamsId {
        self.id
    }

    /// The queries under this set's identity, for a backend call.
    pub fn srs(&self) -> SrsRef<'_> {
        SrsRef { id: self.id, h: &self.h, l: &self.l, a: &self.a, b_g1: &self.b_g1, b_g2: &self.b_g2 }
    }

    /// Size in bytes of the serialization: the vk, then a count and the points for H, L, A, B_G1, B_G2.
    pub fn serialized_len(&self) -> usize {
        self.vk.serialized_len()
            + 5 * COUNT_LEN
            + (self.h.len() + self.l.len() + self.a.len() + self.b_g1.len()) * G1_UNCOMPRESSED
            + self.b_g2.len() * G2_UNCOMPRESSED
    }

    /// Writes in bellperson's `Parameters::write` layout. Use `params_file::write_params` for an atomic file.
    pub fn write(&self, mut w: impl Write) -> std::io::Result<()> {
        self.vk.write(&mut w)?;
        for sec in [&self.h, &self.l, &self.a, &self.b_g1] {
            write_section(&mut w, sec, G1Affine::to_uncompressed)?;
        }
        write_section(&mut w, &self.b_g2, G2Affine::to_uncompressed)
    }

    /// The number of public inputs (excluding the constant one) these params prove for.
    pub fn num_inputs(&self) -> usize {
        self.vk.ic.len().saturating_sub(1)
    }
}
