//! The fixed rigs the fuzzed inputs meet, built once per process from the bundled sample and
//! `samplegen`'s VRM fixtures, and the GLB framing the `vrm` target puts around its input.

use std::sync::OnceLock;

use crate::import;
use crate::rig::Rig;

fn load(bytes: &[u8], name: &str) -> Rig {
    match import::load_bytes(bytes, name, None) {
        Ok(rig) => rig,
        Err(e) => panic!("the sample {name} does not load: {e}"),
    }
}

/// The walker: a skinned humanoid with two clips, the character (and the library) every
/// binding target pairs with its fuzzed side.
pub fn walker() -> &'static Rig {
    static WALKER: OnceLock<Rig> = OnceLock::new();
    WALKER.get_or_init(|| load(crate::cli::BUNDLED_SAMPLE, "walker.glb"))
}

/// `samplegen`'s VRM fixtures, by file name, generated once.
fn fixtures() -> &'static [(&'static str, Vec<u8>)] {
    static FIXTURES: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    FIXTURES.get_or_init(crate::samplegen::vrm_fixtures)
}

fn fixture(name: &str) -> &'static [u8] {
    match fixtures().iter().find(|(n, _)| *n == name) {
        Some((_, bytes)) => bytes,
        None => panic!("samplegen has no VRM fixture {name}"),
    }
}

/// The spring-boned walker avatars, VRM 1.0 then VRM 0.x (x and z of a `.vrma` negated).
pub fn avatars() -> &'static [Rig; 2] {
    static AVATARS: OnceLock<[Rig; 2]> = OnceLock::new();
    AVATARS.get_or_init(|| {
        ["walker-springs-vrm1.vrm", "walker-springs-vrm0.vrm"].map(|name| load(fixture(name), name))
    })
}

/// The walk as a VRM animation, bound onto every fuzzed avatar.
pub fn vrma() -> &'static Rig {
    static VRMA: OnceLock<Rig> = OnceLock::new();
    VRMA.get_or_init(|| load(fixture("walker-walk.vrma"), "walker-walk.vrma"))
}

/// The BIN chunk every walker VRM avatar fixture shares, and the `.vrma`'s.
pub fn bins() -> &'static [Vec<u8>; 2] {
    static BINS: OnceLock<[Vec<u8>; 2]> = OnceLock::new();
    BINS.get_or_init(|| ["walker-vrm1.vrm", "walker-walk.vrma"].map(|name| bin_chunk(fixture(name))))
}

/// The second chunk of a GLB the samples write (header, JSON chunk, BIN chunk).
fn bin_chunk(glb: &[u8]) -> Vec<u8> {
    let word =
        |at: usize| glb.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let bin = 12 + 8 + word(12);
    glb.get(bin + 8..bin + 8 + word(bin)).unwrap_or_default().to_vec()
}

/// A GLB of `json` as its JSON chunk (padded with spaces) and `bin` as its BIN chunk, as the
/// bytes are: the fuzzed text reaches the loader without a parse in between.
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let total = 12 + 8 + json.len().next_multiple_of(4) + 8 + bin.len().next_multiple_of(4);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    chunk(&mut out, b"JSON", json, b' ');
    chunk(&mut out, b"BIN\0", bin, 0);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], bytes: &[u8], pad: u8) {
    let len = bytes.len().next_multiple_of(4);
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(bytes);
    out.resize(out.len() + len - bytes.len(), pad);
}
