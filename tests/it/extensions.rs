//! One file, one reading: every command (the loader `inspect`, `check` and the viewer use,
//! and the raw copy `normalize` writes from) makes the same decision about every extension.
//! An extension object `extensionsUsed` does not declare is ignored by both, with the
//! validator's UNDECLARED_EXTENSION; `normalize` refuses such a primitive rather than
//! "repair" weights read from its plain accessors; a required unknown extension is refused
//! by both with the same message; a declared unknown one is ignored and copied through.
//! Variants of committed files are made here by editing their JSON chunk.

use rigscope::rig::{Compression, ExtensionHandling, Severity};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::glb_edit;

const DRACO: &str = "KHR_draco_mesh_compression";

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pipeline").join(name);
    std::fs::read(path).expect("fixture")
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples").join(name)).expect("sample")
}

/// `glb` with its JSON document changed by `edit`.
fn edited(glb: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    glb_edit::with_json(glb, |text| {
        let mut doc: Value = serde_json::from_str(text).expect("JSON chunk");
        edit(&mut doc);
        doc.to_string()
    })
}

/// A fresh folder holding `bytes` as `name`; removed when the guard drops, pass or fail.
fn written(tag: &str, name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let (guard, dir) = super::temp::folder(&format!("extensions-{tag}"));
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    (guard, path)
}

fn rigscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rigscope")).args(args).output().expect("runs")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// The valence fixture with its primitive's Draco extension left undeclared, two ways: the
/// `extensionsUsed` entry renamed (as the fuzzed file had it), or the primitive's key renamed
/// (an unknown extension nobody declares).
fn undeclared_draco_variants() -> Vec<(&'static str, Vec<u8>, String)> {
    let valence = fixture("draco-tentacle-valence.glb");
    let used_renamed = edited(&valence, |doc| doc["extensionsUsed"][0] = "KHR_draco_mesh_compressioN".into());
    let key_renamed = edited(&valence, |doc| {
        let ext = &mut doc["meshes"][0]["primitives"][0]["extensions"];
        let stream = ext[DRACO].take();
        ext.as_object_mut().expect("extensions").remove(DRACO);
        ext["KHR_draco_mesh_compressioX"] = stream;
    });
    vec![
        ("used-renamed", used_renamed, format!("/meshes/0/primitives/0/extensions/{DRACO}")),
        (
            "key-renamed",
            key_renamed,
            "/meshes/0/primitives/0/extensions/KHR_draco_mesh_compressioX".to_string(),
        ),
    ]
}

#[test]
fn an_undeclared_draco_stream_is_ignored_by_both_loaders_and_normalize_refuses() {
    for (tag, bytes, pointer) in undeclared_draco_variants() {
        // The loader every command uses: not decoded, reported, weights as stored (none).
        let rig = rigscope::load_bytes(&bytes, tag, None).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let undeclared: Vec<(&str, Severity)> = rig
            .findings
            .iter()
            .filter(|f| f.code == "UNDECLARED_EXTENSION")
            .map(|f| (f.pointer.as_str(), f.severity))
            .collect();
        assert_eq!(undeclared, [(pointer.as_str(), Severity::Error)], "{tag}");
        assert_eq!(rig.storage.primitives[0].compression, None, "{tag}");
        // Whatever lists name Draco, `inspect` never calls it applied when it was not.
        for ext in rig.storage.extensions.iter().filter(|e| e.name == DRACO) {
            assert_eq!(ext.handling == ExtensionHandling::Applied, ext.used, "{tag}: {ext:?}");
        }
        let set = &rig.meshes[0].primitives[0].influences[0];
        assert_eq!(set.weights.len(), 2401, "{tag}");
        assert!(set.weights.iter().all(|w| *w == [0.0; 4]), "{tag}: the accessors store no weights");
        // The raw loader normalize writes from makes the same decision: nothing decoded, the
        // primitive's extension object left as the file has it.
        let raw =
            rigscope::import::load_raw_bytes(&bytes, tag, None).unwrap_or_else(|e| panic!("{tag}: {e}"));
        assert!(raw.draco_primitives.is_empty(), "{tag}");
        let ext_name = pointer.rsplit('/').next().expect("name");
        assert!(raw.json["meshes"][0]["primitives"][0]["extensions"].get(ext_name).is_some(), "{tag}");
        // Every command says so the same way.
        let (dir, input) = written(tag, "tentacle.glb", &bytes);
        let check = rigscope(&["check", path_str(&input), "--json"]);
        let doc: Value = serde_json::from_str(&String::from_utf8_lossy(&check.stdout)).expect("check JSON");
        let codes: Vec<&str> =
            doc["findings"].as_array().expect("findings").iter().filter_map(|f| f["code"].as_str()).collect();
        assert!(codes.contains(&"UNDECLARED_EXTENSION"), "{tag}: {codes:?}");
        assert_eq!(rigscope(&["inspect", path_str(&input), "--json"]).status.code(), Some(0), "{tag}");
        // normalize refuses, naming the primitive and the extension, and writes nothing.
        let output = dir.path().join("out.glb");
        let run = rigscope(&["normalize", path_str(&input), "-o", path_str(&output)]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{tag}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "/meshes/0/primitives/0 carries extension {ext_name}, which extensionsUsed does not declare"
            )),
            "{tag}: {stderr}"
        );
        assert!(!output.exists(), "{tag}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn the_declared_stream_still_decodes_in_both_loaders() {
    let bytes = fixture("draco-tentacle-valence.glb");
    let rig = rigscope::load_bytes(&bytes, "valence", None).expect("loads");
    assert_eq!(rig.storage.primitives[0].compression, Some(Compression::Draco));
    assert!(!rig.findings.iter().any(|f| f.code == "UNDECLARED_EXTENSION"));
    let raw = rigscope::import::load_raw_bytes(&bytes, "valence", None).expect("loads");
    assert_eq!(raw.draco_primitives, [(0, 0)]);
}

#[test]
fn a_required_unknown_extension_is_refused_alike_and_a_declared_one_is_copied_through() {
    let bad = sample("bad-weights.glb");
    let required = edited(&bad, |doc| {
        doc["extensionsUsed"] = serde_json::json!(["ACME_warp_vertices"]);
        doc["extensionsRequired"] = serde_json::json!(["ACME_warp_vertices"]);
    });
    let a = rigscope::load_bytes(&required, "x.glb", None).expect_err("refused").to_string();
    let b = rigscope::import::load_raw_bytes(&required, "x.glb", None).expect_err("refused").to_string();
    assert_eq!(a, b);
    assert!(a.contains("ACME_warp_vertices"), "{a}");

    // Declared but not required: ignored by both, kept in the copy, not reported.
    let used = edited(&bad, |doc| {
        doc["extensionsUsed"] = serde_json::json!(["ACME_warp_vertices"]);
        doc["meshes"][0]["primitives"][0]["extensions"] = serde_json::json!({"ACME_warp_vertices": {"k": 1}});
    });
    let rig = rigscope::load_bytes(&used, "y.glb", None).expect("loads");
    assert!(!rig.findings.iter().any(|f| f.code == "UNDECLARED_EXTENSION"));
    let (dir, input) = written("declared", "y.glb", &used);
    let output = dir.path().join("out.glb");
    let run = rigscope(&["normalize", path_str(&input), "-o", path_str(&output)]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let out: Value =
        serde_json::from_str(&glb_edit::json_text(&std::fs::read(&output).expect("output"))).expect("JSON");
    assert_eq!(out["meshes"][0]["primitives"][0]["extensions"]["ACME_warp_vertices"]["k"], 1);
    let _ = std::fs::remove_dir_all(&dir);
}
