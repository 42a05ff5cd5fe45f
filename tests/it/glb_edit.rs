//! Variants of committed .glb files made inside a test: the JSON chunk is edited as text and
//! the container is framed again, so no edited copy has to be committed.

/// The JSON chunk's text of a .glb (trailing padding removed).
pub fn json_text(glb: &[u8]) -> String {
    assert_eq!(&glb[0..4], b"glTF", "a .glb");
    let len = u32::from_le_bytes(glb[12..16].try_into().expect("4 bytes")) as usize;
    assert_eq!(&glb[16..20], b"JSON", "the first chunk is JSON");
    String::from_utf8(glb[20..20 + len].to_vec()).expect("UTF-8 JSON").trim_end().to_string()
}

/// `glb` with its JSON chunk replaced by `edit(text)`, padded to 4 bytes with spaces; the
/// chunks after it (the BIN chunk) are kept byte for byte.
pub fn with_json(glb: &[u8], edit: impl FnOnce(&str) -> String) -> Vec<u8> {
    let old_len = u32::from_le_bytes(glb[12..16].try_into().expect("4 bytes")) as usize;
    let mut text = edit(&json_text(glb)).into_bytes();
    text.resize(text.len().next_multiple_of(4), b' ');
    let rest = &glb[20 + old_len..];
    let total = 12 + 8 + text.len() + rest.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).expect("small").to_le_bytes());
    out.extend_from_slice(&u32::try_from(text.len()).expect("small").to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(rest);
    out
}
