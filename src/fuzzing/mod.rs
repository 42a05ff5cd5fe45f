//! What the fuzz targets in `fuzz/` run on each input, here so that `cargo test` replays
//! the committed corpus through the same code (`tests` below) without a fuzzer. Each entry
//! takes any bytes; it panics only when a contract breaks: a panic inside rigscope, the
//! fast and general paths disagreeing, a `.glb` loading differently from the same JSON
//! with its buffer as a data URI, or `normalize` writing a file that does not load or
//! still breaks the weight rules; for clips from other files (`binding`, `retarget`, `vrm`),
//! a binding that loses clips or drives no node, a map that reads back otherwise or binds
//! what it does not say, a refusal inside the ratio limits, and anything non-finite computed
//! from rigs whose numbers are ordinary (`tame`).

mod binding;
mod retarget;
mod samples;
mod tame;
mod vrm;

pub use binding::{anim_bind, map};
pub use retarget::retarget;
pub use vrm::vrm;

use base64::Engine as _;

use crate::anim::{Workspace, crosscheck};
use crate::render::{GlyphMode, Raster, SceneOptions, SceneScratch, draw_scene, framed_camera};
use crate::rig::Rig;
use crate::{diagnose, export, import, repair};

/// The name every input is loaded under (messages only).
const NAME: &str = "fuzz-input";

/// Loading alone: any bytes give a rig or an error, never a panic.
pub fn load(data: &[u8]) {
    let _ = import::load_bytes(data, NAME, None);
}

/// Load, then every clip (and the rest pose) at odd times on both the fast and the general
/// paths, the checks, and a small frame; and the `.glb` / data-URI differential.
pub fn pipeline(data: &[u8]) {
    let Ok(rig) = import::load_bytes(data, NAME, None) else { return };
    let clips = std::iter::once(None).chain(rig.clips.iter().map(Some));
    for clip in clips {
        let d = clip.map_or(0.0, |c| c.duration);
        for t in [f32::NAN, -1.0, 0.0, d / 3.0, d, d + 1.0, 1e30, f32::NEG_INFINITY] {
            if let Err(e) = crosscheck(&rig, clip, t) {
                panic!("fast and general paths differ: {e}");
            }
        }
    }
    let _ = diagnose::check(&rig, &diagnose::Options::default());
    let ws = Workspace::at(&rig, rig.clips.first(), 0.25);
    let camera = framed_camera(&ws, 0.6, -0.3, 1.0);
    let skin = if rig.skins.is_empty() { None } else { Some(0) };
    let opts = SceneOptions { bones: true, skin, ..SceneOptions::default() };
    for mode in [GlyphMode::Braille, GlyphMode::HalfBlock] {
        let mut raster = Raster::for_grid(24, 10, mode);
        draw_scene(&mut raster, &camera, &rig, &ws, None, &opts, &mut SceneScratch::default());
    }
    glb_matches_data_uri(data, &rig);
}

/// A `.glb` whose first buffer is its BIN chunk loads as the same rig as its JSON with that
/// buffer moved into a data URI.
fn glb_matches_data_uri(data: &[u8], rig: &Rig) {
    let Ok(mut raw) = import::load_raw_bytes(data, NAME, None) else {
        panic!("loads as a rig but not as a document");
    };
    // A decoder (Draco) appends its output as a buffer of its own: such a document is no
    // longer the file's, so only single-buffer files are compared.
    let Some([first]) = raw.json.get_mut("buffers").and_then(|b| b.as_array_mut()).map(Vec::as_mut_slice)
    else {
        return;
    };
    if !raw.is_glb || first.get("uri").is_some() {
        return;
    }
    let bin = raw.buffers.first().map_or(&[][..], Vec::as_slice);
    let encoded = base64::engine::general_purpose::STANDARD.encode(bin);
    first["uri"] = serde_json::Value::String(format!("data:application/octet-stream;base64,{encoded}"));
    let Ok(text) = serde_json::to_vec(&raw.json) else { return };
    match import::load_bytes(&text, NAME, None) {
        Ok(mut again) => {
            // What the container itself said (a length that disagrees with the file, ...)
            // has no counterpart in JSON text; everything else must be the same.
            let mut rig = rig.clone();
            for r in [&mut rig, &mut again] {
                r.findings.retain(|f| !f.code.starts_with("GLB_"));
            }
            let (a, b) = (format!("{rig:?}"), format!("{again:?}"));
            assert!(a == b, "the .glb and its data-URI twin load differently");
        }
        Err(e) => panic!("the .glb loads but its data-URI twin does not: {e}"),
    }
}

/// Repair and write to memory (both formats), then reload: the copy loads, and no
/// primitive the repair checked still breaks the weight rules.
pub fn normalize(data: &[u8]) {
    let Ok(rig) = import::load_bytes(data, NAME, None) else { return };
    let Ok(raw) = import::load_raw_bytes(data, NAME, None) else {
        panic!("loads as a rig but not as a document");
    };
    let options = repair::Options::default();
    let fixed = repair::repair(&rig, &options);
    for format in [export::Format::Glb, export::Format::Gltf] {
        let Ok(written) = export::write(&raw, &fixed, format) else { continue };
        let after = match import::load_bytes(&written.bytes, NAME, None) {
            Ok(after) => after,
            Err(e) => panic!("the repaired copy ({format:?}) does not load: {e}"),
        };
        let report = diagnose::check(&after, &diagnose::Options::default());
        for finding in &report.findings {
            let weight_rule = finding.code.starts_with("ACCESSOR_WEIGHTS_")
                || (finding.code.starts_with("ACCESSOR_JOINTS_")
                    && finding.code != "ACCESSOR_JOINTS_USED_ZERO_WEIGHT");
            let repaired = fixed.primitives.iter().any(|p| {
                Some(p.mesh) == finding.mesh && Some(p.primitive) == finding.primitive && p.unresolved == 0
            });
            assert!(
                !(weight_rule && repaired),
                "the repaired copy ({format:?}) still has {}",
                finding.message
            );
        }
    }
}

/// A Draco stream decoded as a skinned primitive's data: the first four bytes give the
/// vertex and triangle counts the accessors declare (big-endian u16s, so the fuzzer can
/// match what a stream decodes to), the rest is the stream, with attribute ids as glTF
/// Transform writes them; then the pipeline runs on whatever loads.
pub fn draco(data: &[u8]) {
    let [v0, v1, t0, t1, stream @ ..] = data else { return };
    let vertices = usize::from(u16::from_be_bytes([*v0, *v1])).max(1);
    let indices = usize::from(u16::from_be_bytes([*t0, *t1])).max(1) * 3;
    let ids = serde_json::json!({"JOINTS_0": 0, "NORMAL": 1, "POSITION": 2, "WEIGHTS_0": 3});
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_draco_mesh_compression"],
        "scene": 0, "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0, "skin": 0}, {"name": "joint", "rotation": [0.0, 0.0, 0.38268343, 0.9238795]}],
        "skins": [{"joints": [1]}],
        "meshes": [{"primitives": [{
            "attributes": {"JOINTS_0": 0, "NORMAL": 1, "POSITION": 2, "WEIGHTS_0": 3},
            "indices": 4,
            "extensions": {"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": ids}}
        }]}],
        "buffers": [{"byteLength": stream.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": stream.len()}],
        "accessors": [
            {"componentType": 5121, "count": vertices, "type": "VEC4"},
            {"componentType": 5126, "count": vertices, "type": "VEC3"},
            {"componentType": 5126, "count": vertices, "type": "VEC3"},
            {"componentType": 5126, "count": vertices, "type": "VEC4"},
            {"componentType": 5123, "count": indices, "type": "SCALAR"}
        ]
    });
    if let Ok(file) = export::glb(&doc, stream.to_vec()) {
        pipeline(&file);
    }
}

/// A meshopt-compressed buffer view decoded at load: the first five bytes choose the mode
/// (ATTRIBUTES, TRIANGLES, INDICES), the filter (none, OCTAHEDRAL, QUATERNION, EXPONENTIAL,
/// COLOR), the byte stride and the element count (big-endian u16); the rest is the
/// compressed data, decoded into a fallback buffer; then the pipeline runs on whatever
/// loads.
pub fn meshopt(data: &[u8]) {
    let [mode, filter, stride, c0, c1, compressed @ ..] = data else { return };
    let mode = ["ATTRIBUTES", "TRIANGLES", "INDICES"][usize::from(*mode) % 3];
    let filter = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"][usize::from(*filter) % 5];
    let stride = usize::from(*stride).clamp(1, 64);
    let count = usize::from(u16::from_be_bytes([*c0, *c1])).max(1);
    let decoded = stride.saturating_mul(count);
    let extension = if filter == "COLOR" { "KHR_meshopt_compression" } else { "EXT_meshopt_compression" };
    let compression = serde_json::json!({extension: {"buffer": 0, "byteLength": compressed.len(),
        "byteStride": stride, "count": count, "mode": mode, "filter": filter}});
    // Vertex data is drawn as positions (quantized below 12 bytes a vertex); index data
    // indexes 65,536 zero-filled positions.
    let (view, accessors, primitive) = if mode == "ATTRIBUTES" {
        let component = match stride {
            4 => 5120,
            8 => 5122,
            _ => 5126,
        };
        (
            serde_json::json!({"buffer": 1, "byteLength": decoded, "byteStride": stride, "extensions": compression}),
            serde_json::json!([{"bufferView": 0, "componentType": component, "count": count, "type": "VEC3"}]),
            serde_json::json!({"attributes": {"POSITION": 0}}),
        )
    } else {
        let component = if stride == 2 { 5123 } else { 5125 };
        (
            serde_json::json!({"buffer": 1, "byteLength": decoded, "extensions": compression}),
            serde_json::json!([
                {"componentType": 5126, "count": 65_536, "type": "VEC3"},
                {"bufferView": 0, "componentType": component, "count": (decoded / stride.max(2)).max(1), "type": "SCALAR"}
            ]),
            serde_json::json!({"attributes": {"POSITION": 0}, "indices": 1}),
        )
    };
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": [extension, "KHR_mesh_quantization"],
        "extensionsRequired": [extension, "KHR_mesh_quantization"],
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [primitive]}],
        "buffers": [
            {"byteLength": compressed.len()},
            {"byteLength": decoded, "extensions": {extension: {"fallback": true}}}
        ],
        "bufferViews": [view],
        "accessors": accessors
    });
    if let Ok(file) = export::glb(&doc, compressed.to_vec()) {
        pipeline(&file);
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// Every file under `fuzz/corpus/TARGET` and `fuzz/regressions/TARGET`.
    fn inputs(target: &str) -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        let mut files = Vec::new();
        for dir in [root.join("corpus").join(target), root.join("regressions").join(target)] {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                files.push(entry.path());
            }
        }
        files.sort();
        files
    }

    fn replay(target: &str, body: fn(&[u8])) {
        // The published crate leaves fuzz/ out (cargo never packages a nested package), so
        // from a package these tests have nothing to replay; in the repository they must.
        let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        if !fuzz.join("Cargo.toml").is_file() {
            eprintln!("note: skipping the {target} corpus replay: fuzz/ is not here (a packaged crate)");
            return;
        }
        let files = inputs(target);
        assert!(!files.is_empty(), "no committed inputs for the {target} target");
        for file in files {
            let bytes = std::fs::read(&file).unwrap_or_default();
            if std::panic::catch_unwind(|| body(&bytes)).is_err() {
                panic!("{}: the {target} target fails on it", file.display());
            }
        }
    }

    #[test]
    fn the_load_corpus_replays() {
        replay("load", super::load);
    }

    #[test]
    fn the_pipeline_corpus_replays() {
        replay("pipeline", super::pipeline);
    }

    #[test]
    fn the_draco_corpus_replays() {
        replay("draco", super::draco);
    }

    #[test]
    fn the_meshopt_corpus_replays() {
        replay("meshopt", super::meshopt);
    }

    #[test]
    fn the_normalize_corpus_replays() {
        replay("normalize", super::normalize);
    }

    #[test]
    fn the_anim_bind_corpus_replays() {
        replay("anim_bind", super::anim_bind);
    }

    #[test]
    fn the_map_corpus_replays() {
        replay("map", super::map);
    }

    #[test]
    fn the_vrm_corpus_replays() {
        replay("vrm", super::vrm);
    }

    #[test]
    fn the_retarget_corpus_replays() {
        replay("retarget", super::retarget);
    }
}
