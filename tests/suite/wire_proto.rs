//! The checked-in gRPC code (src/wire/cuzk.*.rs) is what scripts/protogen.sh generates from proto/: each
//! file's header records the SHA-256 of its .proto and of its generated body, so editing a .proto without
//! regenerating, or the generated code by hand, fails here. And the wire contract holds Curio's numbers.

use sha2::{Digest, Sha256};

fn hex(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn generated_code_matches_the_protos() {
    for (proto, out) in
        [("cuzk/v1/proving.proto", "cuzk.v1.rs"), ("cuzk/console/v1/watch.proto", "cuzk.console.v1.rs")]
    {
        let src = std::fs::read(format!("proto/{proto}")).expect("proto");
        let text = std::fs::read_to_string(format!("src/wire/{out}")).expect("generated");
        let mut lines = text.splitn(4, '\n');
        let (_, p, b, body) = (lines.next(), lines.next(), lines.next(), lines.next().unwrap_or(""));
        assert_eq!(
            p,
            Some(format!("// proto-sha256: {}", hex(&src)).as_str()),
            "{out}: proto/{proto} changed: run scripts/protogen.sh"
        );
        assert_eq!(
            b,
            Some(format!("// body-sha256: {}", hex(body.as_bytes())).as_str()),
            "{out}: edited by hand: run scripts/protogen.sh"
        );
    }
}

/// Curio's field numbers and enum values, checked on the generated types by encoding.
#[test]
fn curio_numbers() {
    use cuzk::wire::v1 as pb;
    use prost::Message;
    assert_eq!(pb::ProofKind::WinningPost as i32, 4);
    assert_eq!(pb::ProofKind::SnapDealsUpdate as i32, 2);
    assert_eq!(pb::Priority::Critical as i32, 4);
    assert_eq!(pb::await_proof_response::Status::Timeout as i32, 4);
    assert_eq!(pb::srs_status::Tier::Cold as i32, 2);
    // Field 11 (vanilla_proofs, length-delimited): tag byte (11 << 3) | 2 = 0x5a; field 23 partition_index
    // (varint): (23 << 3) | 0 = 0xb8 0x01; field 32 comm_d_new: (32 << 3) | 2 = 0x82 0x02.
    let r = pb::SubmitProofRequest {
        vanilla_proofs: vec![vec![7]],
        partition_index: 3,
        comm_d_new: vec![9],
        ..Default::default()
    };
    assert_eq!(r.encode_to_vec(), [0x5a, 1, 7, 0xb8, 0x01, 3, 0x82, 0x02, 1, 9]);
    let a = pb::AwaitProofResponse { total_ms: 5, ..Default::default() };
    assert_eq!(a.encode_to_vec(), [(14 << 3), 5]);
}
