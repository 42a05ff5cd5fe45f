//! The .glb container (glTF 2.0 binary): a 12-byte header (magic `glTF`, version 2, total
//! length), the JSON chunk, an optional BIN chunk right after it, and any chunks of unknown
//! type, which are skipped. Every length is checked against the bytes actually present
//! before it is used, and nothing is copied: the JSON and BIN chunks come back as slices of
//! the file, so the binary data is read in place by the accessor stage.
//!
//! This module only cuts the container; what the chunks hold is `document`'s and
//! `buffers`' business. It never panics on input data.

use super::findings::Findings;
use crate::rig::Severity;
use std::fmt;

/// The .glb magic, also how `document` tells a .glb from JSON text.
pub(crate) const MAGIC: &[u8; 4] = b"glTF";
const HEADER_LEN: usize = 12;
const CHUNK_HEADER_LEN: usize = 8;
const JSON: [u8; 4] = *b"JSON";
const BIN: [u8; 4] = *b"BIN\0";

/// The chunks of a .glb, borrowed from the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunks<'a> {
    /// The JSON chunk's content, padding included.
    pub json: &'a [u8],
    /// The BIN chunk's content, padding included; `None` when the file has none.
    pub bin: Option<&'a [u8]>,
}

/// A chunk type as found in the file, shown as text when it is printable ASCII.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkType(pub [u8; 4]);

impl fmt::Display for ChunkType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.iter().all(|b| b.is_ascii_graphic()) {
            write!(f, "'{}'", self.0.iter().map(|&b| char::from(b)).collect::<String>())
        } else {
            write!(f, "0x{:08X}", u32::from_le_bytes(self.0))
        }
    }
}

/// Why a .glb container cannot be read. The text is the `ImportError` message, after the
/// file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GlbError {
    #[error("truncated .glb: the 12-byte header is cut off after {0} bytes")]
    HeaderCutOff(usize),
    #[error("not a .glb: the file does not start with the magic 'glTF'")]
    BadMagic,
    #[error("unsupported .glb version {0} (rigscope reads version 2)")]
    Version(u32),
    #[error(
        "corrupt .glb: the header gives a total length of {0} bytes, too small for a JSON chunk (missing JSON chunk)"
    )]
    NoRoomForJson(u32),
    #[error("truncated .glb: the header says {declared} bytes but the file has {actual}")]
    LengthPastEnd { declared: u32, actual: usize },
    #[error("corrupt .glb: the first chunk is not the JSON chunk (its type is {0})")]
    FirstChunkNotJson(ChunkType),
    #[error("truncated .glb: the {kind} chunk at byte {at} needs {length} bytes but only {remaining} remain")]
    ChunkPastEnd { kind: &'static str, at: usize, length: u32, remaining: usize },
    #[error("truncated .glb: the chunk header at byte {at} is cut off after {remaining} of its 8 bytes")]
    ChunkHeaderCutOff { at: usize, remaining: usize },
    #[error("corrupt .glb: a second JSON chunk at byte {0}")]
    SecondJson(usize),
    #[error(
        "corrupt .glb: the BIN chunk at byte {0} does not directly follow the JSON chunk, or is not the only one"
    )]
    MisplacedBin(usize),
}

/// Splits a .glb into its JSON and BIN chunks. Container oddities that do not stop the
/// load (chunk lengths that are not multiples of 4, bytes after the declared length,
/// chunks of unknown type) become findings.
pub(crate) fn split<'a>(bytes: &'a [u8], findings: &mut Findings) -> Result<Chunks<'a>, GlbError> {
    let header = bytes.get(..HEADER_LEN).ok_or(GlbError::HeaderCutOff(bytes.len()))?;
    if !header.starts_with(MAGIC) {
        return Err(GlbError::BadMagic);
    }
    let version = word(header, 4).unwrap_or_default();
    if version != 2 {
        return Err(GlbError::Version(version));
    }
    let declared = word(header, 8).unwrap_or_default();
    let total = declared as usize;
    if total < HEADER_LEN + CHUNK_HEADER_LEN {
        return Err(GlbError::NoRoomForJson(declared));
    }
    let file = bytes.get(..total).ok_or(GlbError::LengthPastEnd { declared, actual: bytes.len() })?;
    if bytes.len() > total {
        findings.push(
            "GLB_LENGTH_MISMATCH",
            Severity::Warning,
            "",
            format!(
                "the .glb header gives a total length of {total} bytes but the file has {}; the rest is ignored",
                bytes.len()
            ),
        );
    }

    let mut at = HEADER_LEN;
    let mut json = None;
    let mut bin = None;
    let mut index = 0usize;
    while at < total {
        let (ty, data) = chunk(file, at)?;
        if data.len() % 4 != 0 {
            findings.push(
                "GLB_CHUNK_LENGTH_UNALIGNED",
                Severity::Warning,
                "",
                format!(
                    "the .glb chunk at byte {at} has a length of {} bytes, not a multiple of 4",
                    data.len()
                ),
            );
        }
        match (index, ty.0) {
            (0, JSON) => json = Some(data),
            (0, _) => return Err(GlbError::FirstChunkNotJson(ty)),
            (_, JSON) => return Err(GlbError::SecondJson(at)),
            (1, BIN) => bin = Some(data),
            (_, BIN) => return Err(GlbError::MisplacedBin(at)),
            _ => findings.push(
                "GLB_UNKNOWN_CHUNK_TYPE",
                Severity::Info,
                "",
                format!("the .glb chunk at byte {at} has the unknown type {ty}; it is ignored"),
            ),
        }
        // `chunk` checked that the data ends inside `file`, so this cannot overflow.
        at += CHUNK_HEADER_LEN + data.len();
        index += 1;
    }
    // `total >= 20`, so the loop ran at least once and chunk 0 was JSON or returned.
    let json = json.ok_or(GlbError::NoRoomForJson(declared))?;
    Ok(Chunks { json, bin })
}

/// The chunk whose header starts at `at`: its type and its data.
fn chunk(file: &[u8], at: usize) -> Result<(ChunkType, &[u8]), GlbError> {
    let rest = file.get(at..).unwrap_or_default();
    let header =
        rest.get(..CHUNK_HEADER_LEN).ok_or(GlbError::ChunkHeaderCutOff { at, remaining: rest.len() })?;
    let length = word(header, 0).unwrap_or_default();
    let ty = ChunkType(header.get(4..8).and_then(|t| t.try_into().ok()).unwrap_or_default());
    let body = rest.get(CHUNK_HEADER_LEN..).unwrap_or_default();
    let kind = match ty.0 {
        JSON => "JSON",
        BIN => "BIN",
        _ => "unknown",
    };
    let data = body.get(..length as usize).ok_or(GlbError::ChunkPastEnd {
        kind,
        at,
        length,
        remaining: body.len(),
    })?;
    Ok((ty, data))
}

/// The little-endian u32 at `at`.
fn word(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A .glb of `chunks` (type, data) with a correct header.
    fn glb(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        for (ty, data) in chunks {
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(*ty);
            out.extend_from_slice(data);
        }
        let total = out.len() as u32;
        out[8..12].copy_from_slice(&total.to_le_bytes());
        out
    }

    fn split_quietly(bytes: &[u8]) -> Result<Chunks<'_>, GlbError> {
        split(bytes, &mut Findings::default())
    }

    fn codes(bytes: &[u8]) -> Vec<&'static str> {
        let mut findings = Findings::default();
        let _ = split(bytes, &mut findings);
        findings.into_vec().iter().map(|f| f.code).collect()
    }

    const JSON_TEXT: &[u8] = b"{\"a\":1}     ";

    #[test]
    fn chunks_are_slices_of_the_file() {
        let bytes = glb(&[(b"JSON", JSON_TEXT), (b"BIN\0", &[1, 2, 3, 4])]);
        let chunks = split_quietly(&bytes).expect("splits");
        assert_eq!(chunks.json, JSON_TEXT);
        assert_eq!(chunks.bin, Some(&[1u8, 2, 3, 4][..]));
        // Borrowed, not copied: the BIN slice points into `bytes`.
        let bin_at = 12 + 8 + JSON_TEXT.len() + 8;
        assert!(std::ptr::eq(chunks.bin.map_or(std::ptr::null(), <[u8]>::as_ptr), &bytes[bin_at]));
        assert!(codes(&bytes).is_empty());
    }

    #[test]
    fn json_only_and_unknown_chunks() {
        let bytes = glb(&[(b"JSON", JSON_TEXT)]);
        assert_eq!(split_quietly(&bytes), Ok(Chunks { json: JSON_TEXT, bin: None }));
        let bytes = glb(&[(b"JSON", JSON_TEXT), (b"BIN\0", &[9; 4]), (b"XTRA", &[0; 8])]);
        assert_eq!(split_quietly(&bytes).map(|c| c.bin), Ok(Some(&[9u8; 4][..])));
        assert_eq!(codes(&bytes), vec!["GLB_UNKNOWN_CHUNK_TYPE"]);
    }

    #[test]
    fn every_header_fault_has_its_error() {
        let good = glb(&[(b"JSON", JSON_TEXT), (b"BIN\0", &[0; 8])]);
        assert!(split_quietly(&good).is_ok());
        assert_eq!(split_quietly(&good[..7]), Err(GlbError::HeaderCutOff(7)));
        let mut bad = good.clone();
        bad[1] = b'X';
        assert_eq!(split_quietly(&bad), Err(GlbError::BadMagic));
        let mut bad = good.clone();
        bad[4..8].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(split_quietly(&bad), Err(GlbError::Version(1)));
        for small in [0u32, 8, 12, 19] {
            let mut bad = good.clone();
            bad[8..12].copy_from_slice(&small.to_le_bytes());
            assert_eq!(split_quietly(&bad), Err(GlbError::NoRoomForJson(small)));
        }
        let declared = good.len() as u32;
        assert_eq!(
            split_quietly(&good[..good.len() - 1]),
            Err(GlbError::LengthPastEnd { declared, actual: good.len() - 1 })
        );
    }

    #[test]
    fn every_chunk_fault_has_its_error() {
        let bin_first = glb(&[(b"BIN\0", &[0; 4]), (b"JSON", JSON_TEXT)]);
        assert_eq!(split_quietly(&bin_first), Err(GlbError::FirstChunkNotJson(ChunkType(BIN))));
        let two_json = glb(&[(b"JSON", JSON_TEXT), (b"JSON", JSON_TEXT)]);
        assert_eq!(split_quietly(&two_json), Err(GlbError::SecondJson(12 + 8 + JSON_TEXT.len())));
        let late_bin = glb(&[(b"JSON", JSON_TEXT), (b"XTRA", &[0; 4]), (b"BIN\0", &[0; 4])]);
        assert_eq!(split_quietly(&late_bin), Err(GlbError::MisplacedBin(12 + 8 + JSON_TEXT.len() + 12)));
        let two_bin = glb(&[(b"JSON", JSON_TEXT), (b"BIN\0", &[0; 4]), (b"BIN\0", &[0; 4])]);
        assert!(matches!(split_quietly(&two_bin), Err(GlbError::MisplacedBin(_))));

        // A JSON chunk longer than the file's declared length.
        let mut long_json = glb(&[(b"JSON", JSON_TEXT)]);
        long_json[12..16].copy_from_slice(&100u32.to_le_bytes());
        assert_eq!(
            split_quietly(&long_json),
            Err(GlbError::ChunkPastEnd { kind: "JSON", at: 12, length: 100, remaining: JSON_TEXT.len() })
        );
        // A BIN chunk longer than what is left, and a length near u32::MAX.
        for length in [9u32, u32::MAX] {
            let mut long_bin = glb(&[(b"JSON", JSON_TEXT), (b"BIN\0", &[0; 8])]);
            let at = 12 + 8 + JSON_TEXT.len();
            long_bin[at..at + 4].copy_from_slice(&length.to_le_bytes());
            assert_eq!(
                split_quietly(&long_bin),
                Err(GlbError::ChunkPastEnd { kind: "BIN", at, length, remaining: 8 })
            );
        }
        // Three stray bytes after the JSON chunk, counted in the total length.
        let mut stray = glb(&[(b"JSON", JSON_TEXT)]);
        stray.extend_from_slice(&[0; 3]);
        let total = stray.len() as u32;
        stray[8..12].copy_from_slice(&total.to_le_bytes());
        assert_eq!(
            split_quietly(&stray),
            Err(GlbError::ChunkHeaderCutOff { at: 12 + 8 + JSON_TEXT.len(), remaining: 3 })
        );
    }

    #[test]
    fn oddities_that_still_load_are_findings() {
        let unaligned = glb(&[(b"JSON", b"{}   "), (b"BIN\0", &[1, 2, 3])]);
        let chunks = split_quietly(&unaligned).expect("splits");
        assert_eq!(chunks.bin, Some(&[1u8, 2, 3][..]));
        // Reported once per file: findings are kept one per (code, pointer).
        assert_eq!(codes(&unaligned), vec!["GLB_CHUNK_LENGTH_UNALIGNED"]);
        let mut trailing = glb(&[(b"JSON", JSON_TEXT)]);
        trailing.extend_from_slice(b"junk");
        assert_eq!(split_quietly(&trailing).map(|c| c.json), Ok(JSON_TEXT));
        assert_eq!(codes(&trailing), vec!["GLB_LENGTH_MISMATCH"]);
    }

    #[test]
    fn no_cut_or_corruption_panics() {
        let good = glb(&[(b"JSON", JSON_TEXT), (b"BIN\0", &[7; 12]), (b"XTRA", &[0; 4])]);
        for cut in 0..good.len() {
            assert!(split_quietly(&good[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..good.len() {
            for value in [0u8, 0xFF, 0x7F, good[at].wrapping_add(1)] {
                let mut bad = good.clone();
                bad[at] = value;
                let _ = split_quietly(&bad);
            }
        }
    }

    #[test]
    fn chunk_types_print_readably() {
        assert_eq!(ChunkType(*b"JSOX").to_string(), "'JSOX'");
        assert_eq!(ChunkType(BIN).to_string(), "0x004E4942");
    }
}
