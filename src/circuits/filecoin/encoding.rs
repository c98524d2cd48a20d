//! The encodings of Filecoin's request files: 32-byte values as hex, blobs as base64 (Go's `[]byte` JSON),
//! commitments as canonical field elements, prover ids from miner ids.

use base64::Engine as _;
use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of a hex string (optional `0x`).
pub fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    let s = s.strip_prefix("0x").unwrap_or(s);
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return Err(format!("`{}` is not an even-length hex string", s.chars().take(16).collect::<String>()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("bad hex digit: {e}")))
        .collect()
}

/// Standard base64 with padding, as Go's `json.Marshal` writes `[]byte`.
pub fn b64_encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Bytes of standard base64.
pub fn b64_decode(s: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD.decode(s).map_err(|e| format!("bad base64: {e}"))
}

/// `#[serde(with = "hex32")]` for `[u8; 32]`.
pub mod hex32 {
    use super::*;
    /// Writes 64 hex digits.
    pub fn serialize<S: Serializer>(v: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(v))
    }
    /// Reads 64 hex digits.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; 32], D::Error> {
        let s = String::deserialize(d)?;
        let v = from_hex(&s).map_err(D::Error::custom)?;
        v.try_into().map_err(|_| D::Error::custom("expected 32 bytes (64 hex digits)"))
    }
}

/// `#[serde(with = "b64_vec")]` for `Vec<Vec<u8>>`.
pub mod b64_vec {
    use super::*;
    use serde::ser::SerializeSeq;
    /// Writes a list of base64 strings.
    pub fn serialize<S: Serializer>(v: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for item in v {
            seq.serialize_element(&b64_encode(item))?;
        }
        seq.end()
    }
    /// Reads a list of base64 strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        v.iter().map(|s| b64_decode(s).map_err(D::Error::custom)).collect()
    }
}

/// filecoin-proofs `as_safe_commitment`: 32 little-endian bytes that must be a canonical field element.
pub fn canonical_fr_bytes(bytes: &[u8; 32], what: &str) -> Result<[u8; 32], String> {
    use ff::PrimeField;
    if bool::from(blstrs::Scalar::from_repr(*bytes).is_none()) {
        return Err(format!("{what} is not a canonical BLS12-381 scalar"));
    }
    Ok(*bytes)
}

/// Go's `address.NewIDAddress(id).Payload()` (uvarint) zero-padded to 32 bytes: the prover id Lotus and
/// Curio pass to filecoin-ffi for miner actor `f0<id>`.
pub fn prover_id_from_miner_id(id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut v = id;
    let mut i = 0;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out[i] = byte;
            break;
        }
        out[i] = byte | 0x80;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_hex() {
        assert_eq!(&prover_id_from_miner_id(1000)[..3], &[0xe8, 0x07, 0x00]);
        assert_eq!(from_hex("0x0aff"), Ok(vec![10, 255]));
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
        assert_eq!(b64_decode(&b64_encode(b"cuzk")), Ok(b"cuzk".to_vec()));
        assert!(canonical_fr_bytes(&[0xff; 32], "comm_r").is_err());
    }
}
