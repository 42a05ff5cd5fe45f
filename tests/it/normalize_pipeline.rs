//! `rigscope normalize` on pipeline output (tests/fixtures/pipeline/, made by draco-normalize-make.sh with
//! glTF Transform): Draco files come out decoded with the extension gone, images named by a
//! relative URI come out inside the copy, and no copy keeps objects nothing refers to.

use rigscope::diagnose;
use rigscope::rig::Rig;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pipeline").join(name)
}

fn folder(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    super::temp::folder(&format!("normalize-pipeline-{tag}"))
}

/// Runs normalize FILE -o OUT; returns its summary.
fn normalize(input: &Path, output: &Path) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .arg("normalize")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .expect("runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8_lossy(&run.stdout).into_owned()
}

fn load(path: &Path) -> Rig {
    rigscope::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The JSON of a .glb or .gltf file.
fn document(bytes: &[u8]) -> Value {
    if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
        serde_json::from_slice(&bytes[20..20 + len]).expect("JSON chunk")
    } else {
        serde_json::from_slice(bytes).expect("JSON")
    }
}

/// The weight codes rigscope's check (the validator's rules) reports.
fn weight_findings(rig: &Rig) -> usize {
    let report = diagnose::check(rig, &diagnose::Options::default());
    report
        .findings
        .iter()
        .filter(|f| {
            f.code.starts_with("ACCESSOR_WEIGHTS_")
                || f.code.starts_with("ACCESSOR_JOINTS_")
                || f.code == "ACCESSOR_INVALID_FLOAT"
        })
        .count()
}

/// Every accessor and buffer view is named somewhere (the validator's UNUSED_OBJECT rule
/// for them), found by walking the document's reference sites.
fn assert_nothing_unused(doc: &Value) {
    let list = |v: &Value, key: &str| v.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut accessors = BTreeSet::new();
    let add = |set: &mut BTreeSet<u64>, v: Option<&Value>| {
        if let Some(i) = v.and_then(Value::as_u64) {
            set.insert(i);
        }
    };
    for mesh in list(doc, "meshes") {
        for prim in list(&mesh, "primitives") {
            for v in prim["attributes"].as_object().into_iter().flat_map(|m| m.values()) {
                add(&mut accessors, Some(v));
            }
            add(&mut accessors, prim.get("indices"));
            for target in list(&prim, "targets") {
                for v in target.as_object().into_iter().flat_map(|m| m.values()) {
                    add(&mut accessors, Some(v));
                }
            }
        }
    }
    for skin in list(doc, "skins") {
        add(&mut accessors, skin.get("inverseBindMatrices"));
    }
    for animation in list(doc, "animations") {
        for sampler in list(&animation, "samplers") {
            add(&mut accessors, sampler.get("input"));
            add(&mut accessors, sampler.get("output"));
        }
    }
    let count = |key: &str| list(doc, key).len() as u64;
    assert_eq!(accessors, (0..count("accessors")).collect(), "every accessor is used");
    let mut views = BTreeSet::new();
    for accessor in list(doc, "accessors") {
        add(&mut views, accessor.get("bufferView"));
    }
    for image in list(doc, "images") {
        add(&mut views, image.get("bufferView"));
    }
    assert_eq!(views, (0..count("bufferViews")).collect(), "every buffer view is used");
}

#[test]
fn draco_files_come_out_decoded_and_clean() {
    let (_guard, dir) = folder("draco");
    for name in ["draco-walker.glb", "draco-tentacle-sequential.glb", "draco-tentacle-valence.glb"] {
        let input = fixture(name);
        let out = dir.join(name);
        let summary = normalize(&input, &out);
        assert!(summary.contains("1 Draco-compressed primitive is written decoded"), "{summary}");
        let bytes = std::fs::read(&out).expect("output");
        let doc = document(&bytes);
        assert!(!String::from_utf8_lossy(&bytes[..]).contains("KHR_draco_mesh_compression"), "{name}");
        assert!(doc.get("extensionsUsed").is_none() && doc.get("extensionsRequired").is_none());
        assert_nothing_unused(&doc);

        let (before, after) = (load(&input), load(&out));
        assert_eq!(weight_findings(&after), 0, "{name}");
        // The decoded geometry is written as it decodes: same vertices, same order.
        let (a, b) = (&before.meshes[0].primitives[0], &after.meshes[0].primitives[0]);
        assert_eq!(a.positions, b.positions);
        assert_eq!(a.normals, b.normals);
        assert_eq!(a.indices, b.indices);
        assert_eq!(a.influences[0].joints.len(), b.influences[0].joints.len());
    }
}

#[test]
fn a_copy_elsewhere_carries_its_external_image() {
    let input = fixture("normalize-textured/seed-arm.gltf");
    let png = std::fs::read(fixture("normalize-textured/checker.png")).expect("png");
    let (_guard, dir) = folder("image");
    for name in ["out.gltf", "out.glb"] {
        let out = dir.join(name);
        let summary = normalize(&input, &out);
        assert!(summary.contains("1 external image embedded in OUT"), "{summary}");
        let bytes = std::fs::read(&out).expect("output");
        let doc = document(&bytes);
        let image = &doc["images"][0];
        assert!(image.get("uri").is_none(), "{image}");
        assert_eq!(image["mimeType"], "image/png");
        // The view's bytes are the PNG file's, read through the copy's own buffer.
        let raw = rigscope::import::load_raw_bytes(&bytes, name, None).expect("the copy alone loads");
        let view = &doc["bufferViews"][image["bufferView"].as_u64().expect("view") as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = view["byteLength"].as_u64().expect("length") as usize;
        assert_eq!(&raw.buffers[0][start..start + len], &png[..]);
        assert_eq!(weight_findings(&load(&out)), 0);
    }
    // Nothing but the two copies was written.
    let mut names: Vec<_> =
        std::fs::read_dir(&dir).expect("folder").flatten().map(|e| e.file_name()).collect();
    names.sort();
    assert_eq!(names, vec!["out.glb", "out.gltf"]);
}

#[test]
fn repaired_weights_leave_nothing_behind_and_the_file_does_not_grow() {
    let input = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/bad-weights.glb");
    let (_guard, dir) = folder("prune");
    let out = dir.join("out.glb");
    let summary = normalize(&input, &out);
    assert!(summary.contains("removed what nothing refers to any more"), "{summary}");
    let (a, b) = (std::fs::read(&input).expect("input"), std::fs::read(&out).expect("output"));
    assert_nothing_unused(&document(&b));
    // The repaired sets replace the old ones in the same component types.
    assert!(b.len() <= a.len(), "{} -> {} bytes", a.len(), b.len());
    assert_eq!(weight_findings(&load(&out)), 0);
}
