//! Node, mesh and clip names holding terminal escapes (ESC sequences, BEL, the C1 CSI) reach
//! no terminal raw: every text output of `inspect`, `pose`, `check`, `diff` and `fit` prints
//! them as visible escapes.

use base64::Engine as _;
use serde_json::Value;

use super::cli::{rigscope, sample};

/// What the names hold: recolour red, ring the bell, clear the screen through the C1 CSI.
const EVIL: &str = "\u{1b}[31mred\u{7}\u{9b}2J";

/// bad-weights.glb (findings that name its mesh and clip) as a .gltf with every node, mesh
/// and clip named `EVIL` and a number, its buffer embedded; `moved` shifts node 1.
fn evil_gltf(path: &std::path::Path, moved: bool) {
    let bytes = std::fs::read(sample("bad-weights.glb")).expect("sample");
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    let json_len = word(12);
    let mut doc: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("JSON chunk");
    let at = 20 + json_len;
    let bin = &bytes[at + 8..at + 8 + word(at)];
    let encoded = base64::engine::general_purpose::STANDARD.encode(bin);
    doc["buffers"][0]["uri"] = format!("data:application/octet-stream;base64,{encoded}").into();
    for list in ["nodes", "meshes", "animations"] {
        for (i, item) in doc[list].as_array_mut().expect(list).iter_mut().enumerate() {
            item["name"] = format!("{EVIL}{i}").into();
        }
    }
    if moved {
        doc["nodes"][1]["translation"] = serde_json::json!([0.5, 0.25, 0.0]);
    }
    std::fs::write(path, serde_json::to_vec(&doc).expect("JSON")).expect("gltf");
}

#[test]
fn names_with_escapes_are_printed_visibly_by_every_text_output() {
    let (_guard, dir) = super::temp::folder("escapes");
    let (a, b) = (dir.join("a.gltf"), dir.join("b.gltf"));
    evil_gltf(&a, false);
    evil_gltf(&b, true);
    let (a, b) = (a.to_str().expect("UTF-8 path"), b.to_str().expect("UTF-8 path"));
    let walker = sample("walker.glb");
    let folder = dir.to_str().expect("UTF-8 path");
    let runs: [&[&str]; 9] = [
        &["inspect", a],
        &["pose", a],
        &["check", a],
        &["check", folder],
        &["check", folder, "--format", "github"],
        &["diff", a, b],
        &["fit", &walker, a],
        &["fit", a, a],
        &["pose", a, "--clip", "nothing"],
    ];
    for args in runs {
        let run = rigscope(args);
        assert!(run.code == 0 || run.code == 1 || args.contains(&"nothing"), "{args:?}: {}", run.stderr);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(!all.contains(['\u{1b}', '\u{7}', '\u{9b}']), "{args:?} printed a raw escape:\n{all}");
        assert!(all.contains("\\x1b[31mred\\x07\\u{9b}2J"), "{args:?} shows no name:\n{all}");
    }
}
