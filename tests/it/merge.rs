//! `rigscope merge`, run as a program: the merged file plays in three.js as the libraries'
//! clips play bound from the library files themselves (`tests/fixtures/clips/merge-oracle.mjs`,
//! three r187 in Node), the character's JSON values and bytes come through whole, stored keys
//! are copied bit for bit, and the paths it must never write are left alone.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::{Run, rigscope, sample};
use super::clips::{floats, rest_diagonal};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/clips/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn folder(tag: &str) -> (tempfile::TempDir, PathBuf) {
    super::temp::folder(&format!("merge-{tag}"))
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

fn merge(args: &[&str]) -> Run {
    let mut all = vec!["merge"];
    all.extend_from_slice(args);
    rigscope(&all)
}

/// The JSON and BIN chunks of a .glb.
fn glb_parts(bytes: &[u8]) -> (Value, Vec<u8>) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(word(8), bytes.len());
    let json_len = word(12);
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("JSON chunk");
    let at = 20 + json_len;
    let bin = if at < bytes.len() { bytes[at + 8..at + 8 + word(at)].to_vec() } else { Vec::new() };
    (json, bin)
}

fn component_size(t: u64) -> usize {
    match t {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    }
}

/// Floats per element of a glTF accessor type.
pub(crate) fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        _ => 16,
    }
}

/// The bytes of `count` elements of `element` bytes read from `view` at `offset` (with the
/// view's stride), in a file whose one buffer is `buffer`.
fn view_bytes(json: &Value, buffer: &[u8], view: u64, offset: u64, count: usize, element: usize) -> Vec<u8> {
    let v = &json["bufferViews"][view as usize];
    assert_eq!(v["buffer"], 0, "one buffer");
    let start = (v["byteOffset"].as_u64().unwrap_or(0) + offset) as usize;
    let stride = v["byteStride"].as_u64().map_or(element, |s| s as usize);
    (0..count).flat_map(|i| buffer[start + i * stride..start + i * stride + element].to_vec()).collect()
}

/// What accessor `index` stores: its elements' bytes and, when sparse, its indices' and
/// values' bytes.
fn stored_bytes(json: &Value, buffer: &[u8], index: usize) -> Vec<Vec<u8>> {
    let a = &json["accessors"][index];
    let size = component_size(a["componentType"].as_u64().expect("componentType"));
    let element = size * components(a["type"].as_str().expect("type"));
    let count = a["count"].as_u64().expect("count") as usize;
    let mut parts = Vec::new();
    if let Some(view) = a["bufferView"].as_u64() {
        parts.push(view_bytes(json, buffer, view, a["byteOffset"].as_u64().unwrap_or(0), count, element));
    }
    if let Some(sparse) = a.get("sparse") {
        let n = sparse["count"].as_u64().expect("count") as usize;
        let (i, v) = (&sparse["indices"], &sparse["values"]);
        let index_size = component_size(i["componentType"].as_u64().expect("componentType"));
        let at = |p: &Value| p["byteOffset"].as_u64().unwrap_or(0);
        parts.push(view_bytes(json, buffer, i["bufferView"].as_u64().expect("view"), at(i), n, index_size));
        parts.push(view_bytes(json, buffer, v["bufferView"].as_u64().expect("view"), at(v), n, element));
    }
    parts
}

/// An accessor's JSON without where its bytes are (which a copy changes).
fn without_location(accessor: &Value) -> Value {
    let mut a = accessor.clone();
    let object = a.as_object_mut().expect("object");
    object.remove("bufferView");
    object.remove("byteOffset");
    if let Some(sparse) = object.get_mut("sparse") {
        for part in ["indices", "values"] {
            let p = sparse[part].as_object_mut().expect("part");
            p.remove("bufferView");
            p.remove("byteOffset");
        }
    }
    a
}

/// `pose FILE ARGS --json` at `times`: every node's world matrix, per time.
fn node_worlds(file: &str, args: &[&str], times: &[f64]) -> Vec<Vec<(u64, Vec<f64>)>> {
    let times: Vec<String> = times.iter().map(f64::to_string).collect();
    let mut all = vec!["pose", file, "--json", "--no-positions"];
    all.extend_from_slice(args);
    for t in &times {
        all.extend(["--time", t]);
    }
    let run = rigscope(&all);
    assert_eq!(run.code, 0, "{all:?}: {}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    doc["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| {
            f["nodes"]
                .as_array()
                .expect("nodes")
                .iter()
                .map(|n| (n["node"].as_u64().expect("node"), floats(&n["world"])))
                .collect()
        })
        .collect()
}

/// Node matrices against three.js's: rotation and scale columns within 1e-4, positions within
/// `tol`.
fn assert_worlds_equal(what: &str, ours: &[Vec<(u64, Vec<f64>)>], theirs: &[Value], tol: f64) {
    assert_eq!(ours.len(), theirs.len(), "{what}");
    for (frame, three) in ours.iter().zip(theirs) {
        let t = &three["t"];
        for (node, got) in frame {
            let want = floats(&three["worlds"][node.to_string()]);
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                let limit = if k >= 12 { tol } else { 1e-4 };
                assert!((a - b).abs() <= limit, "{what} t={t} node {node}[{k}]: {a} vs three.js {b}");
            }
        }
    }
}

/// Each merge of `merge-oracle.mjs`, made again here: rigscope plays the merged file as three.js
/// played it, three.js played it as it plays the clip bound from the library itself (exact
/// binding), or as `pose CHARACTER --anim LIB` shows it (loose names, retargeting); in place,
/// the hips keep their height and stay on the spot.
#[test]
fn merged_clips_play_in_three_js_as_bound_from_their_libraries() {
    let text = std::fs::read_to_string(fixture("oracle-merge.json")).expect("oracle-merge.json");
    let oracle: Value = serde_json::from_str(&text).expect("parses");
    assert_eq!(oracle["three"], "187");
    let (_guard, dir) = folder("three");
    for (i, case) in oracle["cases"].as_array().expect("cases").iter().enumerate() {
        let args: Vec<String> = case["merge"]
            .as_array()
            .expect("merge")
            .iter()
            .map(|a| a.as_str().expect("arg"))
            .map(|a| if a.ends_with(".glb") { fixture(a) } else { a.to_string() })
            .collect();
        let out = dir.join(format!("out-{i}.glb"));
        let mut run_args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_args.extend(["-o", path_str(&out)]);
        let run = merge(&run_args);
        assert!(run.code == 0 || run.code == 1, "{run_args:?}: {}", run.stderr);
        let clip = case["clip"].as_str().expect("clip");
        let character = &args[0];
        let tol = 1e-4 * rest_diagonal(character);
        let frames = case["frames"].as_array().expect("frames");
        let times: Vec<f64> = frames.iter().map(|f| f["t"].as_f64().expect("t")).collect();
        // The record is of the files merge wrote then: when what rigscope plays changes on
        // purpose (retargeting, say), merge-oracle.mjs records three.js anew.
        let what = format!(
            "{clip} of merge {:?} (if rigscope's playing changed on purpose, re-record: RIGSCOPE=target/debug/rigscope node tests/fixtures/clips/merge-oracle.mjs)",
            case["merge"]
        );
        let ours = node_worlds(path_str(&out), &["--clip", clip], &times);
        assert_worlds_equal(&what, &ours, frames, tol);

        if case["from"].is_null() {
            // Loose binding and retargeting are rigscope's: three.js playing the file shows
            // what `--anim` shows.
            let lib = &args[1];
            let source_name = clip.split(" (").next().expect("name");
            let mut anim = vec!["--anim", lib.as_str(), "--clip", source_name];
            anim.extend(run_args[2..run_args.len() - 2].iter().copied());
            let shown = node_worlds(character, &anim, &times);
            assert_worlds_equal(&format!("{what}, pose --anim"), &shown, frames, tol);
        } else if case["in_place"] == true {
            let from = case["from_frames"].as_array().expect("from_frames");
            let hips = "0";
            let at = |f: &Value| {
                let m = floats(&f["worlds"][hips]);
                [m[12], m[13], m[14]]
            };
            let start = at(&frames[0]);
            let height = at(&from[0])[1];
            for (played, bound) in frames.iter().zip(from) {
                let (p, b) = (at(played), at(bound));
                let across = ((p[0] - start[0]).powi(2) + (p[2] - start[2]).powi(2)).sqrt();
                assert!(across <= 0.01 * height, "t={}: the hips are {across} from the spot", played["t"]);
                assert!(
                    (p[1] - b[1]).abs() <= 1e-6,
                    "t={}: height {} vs {} in the library",
                    played["t"],
                    p[1],
                    b[1]
                );
                // Every rotation plays as from the library.
                for (node, m) in played["worlds"].as_object().expect("worlds") {
                    let want = floats(&bound["worlds"][node]);
                    for (k, (x, y)) in
                        floats(m).iter().zip(&want).enumerate().filter(|(k, _)| k % 4 != 3 && *k < 12)
                    {
                        assert!((x - y).abs() <= 1e-5, "t={} node {node}[{k}]: {x} vs {y}", played["t"]);
                    }
                }
            }
        } else {
            let worst = case["largest_difference"].as_f64().expect("largest_difference");
            assert!(worst <= tol, "{what}: three.js plays it {worst} away from the library itself");
        }
    }
}

/// Every JSON value of the character is in the merged file where it was (buffer views name
/// the one buffer at a new offset), its accessors keep their indices and bytes, its clips
/// come first, and the new objects come after; a Draco character stays compressed.
#[test]
fn the_character_comes_through_whole() {
    let (_guard, dir) = folder("whole");
    let out = dir.join("out.glb");
    let character = fixture("character.glb");
    let run = merge(&[&character, &fixture("anims.glb"), &fixture("apose.glb"), "-o", path_str(&out)]);
    assert_eq!(run.code, 1, "tracks are dropped: {}{}", run.stdout, run.stderr);
    assert_kept_whole(&character, &out);
    let names = |file: &Path| -> Vec<String> {
        let (b, _) = glb_parts(&std::fs::read(file).expect("out"));
        b["animations"]
            .as_array()
            .expect("animations")
            .iter()
            .map(|x| x["name"].as_str().expect("name").to_string())
            .collect()
    };
    assert_eq!(names(&out), ["walk", "idle", "walk (anims)", "idle (anims)", "walk (apose)", "idle (apose)"]);

    let draco = pipeline("draco-walker.glb");
    let run = merge(&[&draco, &fixture("quantized.glb"), "-o", path_str(&out), "--force"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_kept_whole(&draco, &out);
    let (b, _) = glb_parts(&std::fs::read(&out).expect("out"));
    assert_eq!(b["extensionsRequired"], serde_json::json!(["KHR_draco_mesh_compression"]));
    let listed = rigscope(&["inspect", path_str(&out)]);
    assert!(listed.stdout.contains("Draco"), "{}", listed.stdout);
}

fn pipeline(name: &str) -> String {
    format!("{}/tests/fixtures/pipeline/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn assert_kept_whole(character: &str, out: &Path) {
    let (a, a_bin) = glb_parts(&std::fs::read(character).expect("character"));
    let (b, b_bin) = glb_parts(&std::fs::read(out).expect("out"));
    assert_json_kept(&a, &b);
    for i in 0..a["accessors"].as_array().expect("accessors").len() {
        assert_eq!(a["accessors"][i], b["accessors"][i], "accessor {i}");
        assert_eq!(stored_bytes(&a, &a_bin, i), stored_bytes(&b, &b_bin, i), "accessor {i}'s bytes");
    }
    // The Draco streams too.
    for (i, view) in a["bufferViews"].as_array().expect("views").iter().enumerate() {
        let length = view["byteLength"].as_u64().expect("length") as usize;
        assert_eq!(
            view_bytes(&a, &a_bin, i as u64, 0, 1, length),
            view_bytes(&b, &b_bin, i as u64, 0, 1, length),
            "view {i}"
        );
    }
    // Nothing of the libraries but their clips: no node, mesh, skin or material more.
    for key in ["nodes", "meshes", "skins", "materials", "scenes"] {
        assert_eq!(a.get(key), b.get(key), "{key}");
    }
}

/// Top-level values other than buffers, views, accessors, animations and images are equal;
/// views differ only in `buffer` and `byteOffset`, animations and accessors by what is
/// appended.
fn assert_json_kept(a: &Value, b: &Value) {
    let (ao, bo) = (a.as_object().expect("object"), b.as_object().expect("object"));
    for (key, value) in ao {
        if !matches!(key.as_str(), "buffers" | "bufferViews" | "accessors" | "animations" | "images") {
            assert_eq!(Some(value), bo.get(key), "top-level '{key}' differs");
        }
    }
    let strip = |v: &Value| {
        let mut v = v.clone();
        let o = v.as_object_mut().expect("view");
        o.remove("buffer");
        o.remove("byteOffset");
        v
    };
    for (i, view) in a["bufferViews"].as_array().into_iter().flatten().enumerate() {
        assert_eq!(strip(view), strip(&b["bufferViews"][i]), "bufferViews[{i}]");
    }
    for key in ["accessors", "animations"] {
        let old = a[key].as_array().map_or(&[][..], Vec::as_slice);
        let new = b[key].as_array().expect("array");
        assert!(new.len() > old.len(), "{key}: nothing appended");
        assert_eq!(old, &new[..old.len()], "{key}");
    }
    let old_buffers = a["buffers"].as_array().map_or(0, Vec::len);
    assert!(old_buffers > 0 && b["buffers"].as_array().map(Vec::len) == Some(1));
}

/// A .gltf character whose buffer and image are files beside it comes out as one .glb that
/// holds both, byte for byte; `-o X.gltf` writes X.gltf and one .bin it names.
#[test]
fn a_character_with_external_files_comes_out_in_one_file() {
    let (_guard, dir) = folder("external");
    let (mut json, bin) = glb_parts(&std::fs::read(sample("walker.glb")).expect("walker"));
    json["buffers"][0]["uri"] = "walker data.bin".into();
    let png = b"\x89PNG\r\n\x1a\n-not-decoded-by-anyone-".to_vec();
    json["images"] = serde_json::json!([{ "uri": "skin%20tone.png", "name": "skin" }]);
    std::fs::write(dir.join("walker data.bin"), &bin).expect("bin");
    std::fs::write(dir.join("skin tone.png"), &png).expect("png");
    let character = dir.join("hero.gltf");
    std::fs::write(&character, serde_json::to_vec(&json).expect("json")).expect("gltf");

    let out = dir.join("out.glb");
    let run = merge(&[path_str(&character), &fixture("quantized.glb"), "-o", path_str(&out)]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let (b, b_bin) = glb_parts(&std::fs::read(&out).expect("out"));
    let image = &b["images"][0];
    assert_eq!(image["name"], "skin");
    assert_eq!(image["mimeType"], "image/png");
    let view = &b["bufferViews"][image["bufferView"].as_u64().expect("view") as usize];
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    assert_eq!(&b_bin[at..at + view["byteLength"].as_u64().expect("length") as usize], &png[..]);
    for i in 0..json["accessors"].as_array().expect("accessors").len() {
        assert_eq!(stored_bytes(&json, &bin, i), stored_bytes(&b, &b_bin, i), "accessor {i}");
    }
    assert!(run.stdout.contains("1 external image(s) of the character are embedded"), "{}", run.stdout);

    // .gltf out: one .bin beside it, named with its space percent-encoded.
    let out = dir.join("with clips.gltf");
    let run = merge(&[path_str(&character), &fixture("quantized.glb"), "-o", path_str(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written: Value = serde_json::from_slice(&std::fs::read(&out).expect("gltf")).expect("json");
    assert_eq!(written["buffers"].as_array().map(Vec::len), Some(1));
    assert_eq!(written["buffers"][0]["uri"], "with%20clips.bin");
    let bin_len = std::fs::metadata(dir.join("with clips.bin")).expect("bin beside").len();
    assert_eq!(written["buffers"][0]["byteLength"].as_u64(), Some(bin_len));
    let listed = rigscope(&["inspect", path_str(&out)]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(listed.stdout.contains("\"walk (quantized)\""), "{}", listed.stdout);
    // The .bin is an output too: it is never written over an input.
    let bin_as_input = dir.join("walker data.gltf");
    let run =
        merge(&[path_str(&character), &fixture("quantized.glb"), "-o", path_str(&bin_as_input), "--force"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("hero.gltf's buffer"), "{}", run.stderr);
    assert_eq!(std::fs::read(dir.join("walker data.bin")).expect("bin"), bin);
}

/// A channel bound as stored has its sampler's accessors copied as the library stores them:
/// normalized SHORT rotations stay SHORT, a sparse accessor stays sparse, CUBICSPLINE and STEP
/// keep their interpolation, and every byte is the library's.
#[test]
fn stored_keys_are_copied_bit_for_bit() {
    let (_guard, dir) = folder("bits");
    for (character, lib) in [
        (sample("walker.glb"), fixture("quantized.glb")),
        (sample("walker.glb"), pipeline("walker.gltfpack.glb")),
        (sample("tentacle.glb"), sample("tentacle.glb")),
    ] {
        let out = dir.join("out.glb");
        let run = merge(&[&character, &lib, "-o", path_str(&out), "--force"]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        let (l, l_bin) = glb_parts(&std::fs::read(&lib).expect("lib"));
        let (c, _) = glb_parts(&std::fs::read(&character).expect("character"));
        let (b, b_bin) = glb_parts(&std::fs::read(&out).expect("out"));
        let own = c["animations"].as_array().map_or(0, Vec::len);
        let lib_clips = l["animations"].as_array().expect("library clips");
        for (k, la) in lib_clips.iter().enumerate() {
            let ba = &b["animations"][own + k];
            assert_eq!(la["channels"].as_array().map(Vec::len), ba["channels"].as_array().map(Vec::len));
            for (lc, bc) in la["channels"]
                .as_array()
                .expect("channels")
                .iter()
                .zip(ba["channels"].as_array().expect("channels"))
            {
                assert_eq!(lc["target"]["path"], bc["target"]["path"]);
                let node_name = |doc: &Value, ch: &Value| {
                    doc["nodes"][ch["target"]["node"].as_u64().expect("node") as usize]["name"].clone()
                };
                assert_eq!(node_name(&l, lc), node_name(&b, bc));
                let ls = &la["samplers"][lc["sampler"].as_u64().expect("sampler") as usize];
                let bs = &ba["samplers"][bc["sampler"].as_u64().expect("sampler") as usize];
                assert_eq!(
                    ls.get("interpolation").and_then(Value::as_str).unwrap_or("LINEAR"),
                    bs["interpolation"]
                );
                for part in ["input", "output"] {
                    let (li, bi) = (
                        ls[part].as_u64().expect("accessor") as usize,
                        bs[part].as_u64().expect("accessor") as usize,
                    );
                    assert_eq!(
                        without_location(&l["accessors"][li]),
                        without_location(&b["accessors"][bi]),
                        "{lib} clip {k} {part}"
                    );
                    assert_eq!(
                        stored_bytes(&l, &l_bin, li),
                        stored_bytes(&b, &b_bin, bi),
                        "{lib} clip {k} {part} bytes"
                    );
                }
            }
        }
        if lib.ends_with("quantized.glb") {
            let sparse = b["accessors"]
                .as_array()
                .expect("accessors")
                .iter()
                .filter(|a| a.get("sparse").is_some())
                .count();
            let shorts = b["accessors"]
                .as_array()
                .expect("accessors")
                .iter()
                .filter(|a| a["componentType"] == 5122)
                .count();
            assert_eq!((sparse, shorts), (1, 22));
        }
    }
}

/// A library whose keys are meshopt-compressed (gltfpack -cc) gives its decoded keys: the
/// merged clip plays as `--anim` plays it from the compressed file, and OUT needs no meshopt.
#[test]
fn compressed_library_keys_are_written_decoded() {
    let (_guard, dir) = folder("meshopt");
    let out = dir.join("out.glb");
    let (walker, lib) = (sample("walker.glb"), pipeline("walker.gltfpack-cc.glb"));
    let run = merge(&[&walker, &lib, "-o", path_str(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (b, _) = glb_parts(&std::fs::read(&out).expect("out"));
    assert!(b.get("extensionsUsed").is_none(), "{:?}", b.get("extensionsUsed"));
    let times = [0.0, 0.3, 0.55, 1.0];
    let merged = node_worlds(path_str(&out), &["--clip", "walk (walker.gltfpack-cc)"], &times);
    let bound = node_worlds(&walker, &["--anim", &lib, "--clip", "walk"], &times);
    for (m, a) in merged.iter().zip(&bound) {
        for ((n, x), (_, y)) in m.iter().zip(a) {
            assert!(x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-6), "node {n}: {x:?} vs {y:?}");
        }
    }
}

/// OUT is no bigger than the character plus twice what the clips take in the library: their
/// accessors' bytes and the JSON of their animations, accessors and views.
#[test]
fn the_merged_file_grows_by_the_clips_alone() {
    let (_guard, dir) = folder("size");
    let out = dir.join("out.glb");
    let (character, lib) = (sample("walker.glb"), fixture("quantized.glb"));
    let run = merge(&[&character, &lib, "-o", path_str(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (l, l_bin) = glb_parts(&std::fs::read(&lib).expect("lib"));
    let mut used: Vec<usize> = Vec::new();
    for a in l["animations"].as_array().expect("clips") {
        for s in a["samplers"].as_array().expect("samplers") {
            used.extend(["input", "output"].iter().map(|p| s[p].as_u64().expect("accessor") as usize));
        }
    }
    used.sort_unstable();
    used.dedup();
    let bytes: usize =
        used.iter().map(|&i| stored_bytes(&l, &l_bin, i).iter().map(Vec::len).sum::<usize>()).sum();
    let json = serde_json::to_string(&l["animations"]).expect("json").len()
        + used
            .iter()
            .map(|&i| serde_json::to_string(&l["accessors"][i]).expect("json").len() + 60)
            .sum::<usize>();
    let clips = (bytes + json) as u64;
    let (out_len, character_len) =
        (std::fs::metadata(&out).expect("out").len(), std::fs::metadata(&character).expect("c").len());
    assert!(out_len <= character_len + 2 * clips, "{out_len} > {character_len} + 2 * {clips}");
}

#[test]
fn outputs_that_exist_or_are_inputs_are_refused() {
    let (_guard, dir) = folder("refuse");
    let lib = dir.join("lib.glb");
    std::fs::copy(fixture("quantized.glb"), &lib).expect("lib");
    let character = dir.join("walker.glb");
    std::fs::copy(sample("walker.glb"), &character).expect("character");
    let out = dir.join("out.glb");
    std::fs::write(&out, b"the user's file").expect("out");
    let run = merge(&[path_str(&character), path_str(&lib), "-o", path_str(&out)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("already exists (use --force to replace it)"), "{}", run.stderr);
    assert_eq!(std::fs::read(&out).expect("out"), b"the user's file");
    let run = merge(&[path_str(&character), path_str(&lib), "-o", path_str(&out), "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read(&out).expect("out").starts_with(b"glTF"));

    for input in [&character, &lib] {
        let before = std::fs::read(input).expect("input");
        let run = merge(&[path_str(&character), path_str(&lib), "-o", path_str(input), "--force"]);
        assert_eq!(run.code, 2, "{}", run.stdout);
        assert!(run.stderr.contains("merge never writes over a file it reads"), "{}", run.stderr);
        assert_eq!(std::fs::read(input).expect("input"), before);
    }
    // By another path to the same file.
    let other = dir.join(".").join("lib.glb");
    let run = merge(&[path_str(&character), path_str(&lib), "-o", path_str(&other), "--force"]);
    assert_eq!(run.code, 2);
    let run = merge(&[path_str(&character), path_str(&lib), "-o", path_str(&dir.join("out.obj"))]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("must end in .glb or .gltf"), "{}", run.stderr);
    let run =
        merge(&[path_str(&character), path_str(&lib), "--clip", "dance", "-o", path_str(&dir.join("x.glb"))]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no library has a clip named 'dance'; the clips are:\n  walk\n  idle\n"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("x.glb").exists());
}

/// A library without clips is named; with nothing left to write, nothing is written (exit 2).
#[test]
fn a_library_without_clips_is_named() {
    let (_guard, dir) = folder("noclips");
    let empty = dir.join("pose-only.gltf");
    std::fs::write(
        &empty,
        br#"{"asset":{"version":"2.0"},"nodes":[{"name":"hips"}],"scenes":[{"nodes":[0]}]}"#,
    )
    .expect("empty");
    let walker = sample("walker.glb");
    let out = dir.join("out.glb");
    let run = merge(&[&walker, path_str(&empty), "-o", path_str(&out)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nothing to write: pose-only.gltf has no clips"), "{}", run.stderr);
    assert!(!out.exists());
    let run = merge(&[&walker, path_str(&empty), &fixture("quantized.glb"), "-o", path_str(&out)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("warning: pose-only.gltf has no clips"), "{}", run.stdout);
    assert!(out.exists());
}

/// Names stay as in the library; a taken one gets the library's stem; `--clip` chooses; the
/// JSON report says what was dropped and why.
#[test]
fn names_choices_and_the_report() {
    let (_guard, dir) = folder("names");
    let out = dir.join("out.glb");
    let character = fixture("character.glb");
    let anims = fixture("anims.glb");
    let run = merge(&[&character, &anims, &anims, "--clip", "walk", "-o", path_str(&out), "--json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(report["format_version"], 1);
    let written: Vec<&str> = report["libraries"]
        .as_array()
        .expect("libraries")
        .iter()
        .flat_map(|l| l["clips"].as_array().expect("clips"))
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(written, ["walk (anims)", "walk (anims 2)"]);
    let first = &report["libraries"][0];
    assert_eq!(first["not_chosen"], serde_json::json!(["idle"]));
    assert_eq!(first["clips"][0]["renamed"], "character.glb already has a clip named 'walk'");
    // anims.glb's `Foot.L` differs by case and `tail` is not on the character: exactly the
    // tracks three.js warns about (oracle.json).
    let dropped: Vec<(&str, &str)> = first["clips"][0]["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .map(|d| (d["track"].as_str().expect("track"), d["reason"].as_str().expect("reason")))
        .collect();
    assert_eq!(dropped, [("FootL.quaternion", "no_target_node"), ("tail.quaternion", "no_target_node")]);
    assert_eq!(report["tracks_dropped"], 4);
    let (b, _) = glb_parts(&std::fs::read(&out).expect("out"));
    assert_eq!(b["animations"].as_array().map(Vec::len), Some(4));
}

/// In place, the report gives the travel taken out: travel.glb's walk goes 2 forward (+Z) in
/// its 1 s and sways back to the middle (make.mjs).
#[test]
fn in_place_reports_the_travel_it_took_out() {
    let (_guard, dir) = folder("inplace");
    let out = dir.join("out.glb");
    let run = merge(&[
        &sample("walker.glb"),
        &fixture("travel.glb"),
        "--in-place",
        "--clip",
        "walk",
        "-o",
        path_str(&out),
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("json");
    let travel = &report["libraries"][0]["clips"][0]["in_place"];
    let d = travel["distance"].as_f64().expect("distance");
    let dir3 = floats(&travel["direction"]);
    // walker's own walk adds its hips' small drift to the 2 along Z.
    assert!((d - 2.0).abs() < 0.05, "{d}");
    assert!(dir3[2] > 0.999, "{dir3:?}");
    assert!((travel["speed"].as_f64().expect("speed") - d).abs() < 1e-6, "1 s clip");
}

/// `merge --force` killed at moments spread over its run leaves OUT as it was or whole.
#[test]
fn an_interrupted_merge_never_leaves_out_truncated() {
    let (_guard, dir) = folder("interrupted");
    let out = dir.join("out.glb");
    let (walker, lib) = (sample("walker.glb"), fixture("quantized.glb"));
    let args = ["merge", &walker, &lib, "-o", path_str(&out), "--force"];
    super::normalize::assert_interrupted_writes_leave_old_or_complete(&args, &out);
}

/// Every malformed file of `malformed.rs`, as the character or as a library: exit 2 naming
/// it, no panic, nothing written.
#[test]
fn malformed_inputs_exit_2_and_write_nothing() {
    let (_guard, dir) = folder("malformed");
    let walker = sample("walker.glb");
    let out = dir.join("out.glb");
    for (name, bytes, _) in super::malformed::cases() {
        let path = super::malformed::write_case(&dir, name, &bytes).expect("write case");
        let shown = path.display().to_string();
        for args in [[shown.as_str(), walker.as_str()], [walker.as_str(), shown.as_str()]] {
            let run = merge(&[args[0], args[1], "-o", path_str(&out)]);
            assert_eq!(run.code, 2, "{name}: exit {} {}", run.code, run.stderr);
            assert!(run.stderr.starts_with(&format!("rigscope: error: {shown}: ")), "{name}: {}", run.stderr);
            assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
            assert!(!out.exists(), "{name}: wrote OUT");
        }
    }
}

#[test]
fn no_output_is_a_buffer_or_image_an_input_reads() {
    let (_guard, dir) = folder("reads");
    let lib = dir.join("lib.glb");
    std::fs::copy(fixture("quantized.glb"), &lib).expect("lib");
    let (mut json, bin) = glb_parts(&std::fs::read(sample("walker.glb")).expect("walker"));
    std::fs::write(dir.join("payload.glb"), &bin).expect("buffer");
    std::fs::write(dir.join("arm.bin"), &bin).expect("second buffer");
    std::fs::write(dir.join("skin.png"), b"\x89PNG\r\n\x1a\n not really an image").expect("image");
    json["buffers"][0]["uri"] = "payload.glb".into();
    let mut second = json["buffers"][0].clone();
    second["uri"] = "arm.bin".into();
    json["buffers"].as_array_mut().expect("buffers").push(second);
    json["images"] = serde_json::json!([{ "uri": "skin.png" }]);
    let character = dir.join("model.gltf");
    std::fs::write(&character, serde_json::to_vec(&json).expect("JSON")).expect("character");
    let read = [dir.join("payload.glb"), dir.join("arm.bin"), dir.join("skin.png"), character.clone()];
    let before: Vec<Vec<u8>> = read.iter().map(|p| std::fs::read(p).expect("read")).collect();

    // payload.glb itself; arm.gltf, whose .bin is arm.bin; and the image under a .glb name.
    let mut outputs = vec!["payload.glb", "arm.gltf"];
    #[cfg(unix)]
    {
        std::fs::hard_link(dir.join("skin.png"), dir.join("skin.glb")).expect("hard link");
        outputs.push("skin.glb");
    }
    for out in outputs {
        for force in [true, false] {
            let out = dir.join(out);
            let mut args = vec![path_str(&character), path_str(&lib), "-o", path_str(&out)];
            args.extend(force.then_some("--force"));
            let run = merge(&args);
            assert_eq!(run.code, 2, "{}: {}", out.display(), run.stderr);
            // Without --force, an image (known only once read) is refused as existing first.
            let why = if force || !out.ends_with("skin.glb") {
                "never writes over a file it reads"
            } else {
                "already exists"
            };
            assert!(run.stderr.contains(why), "{}", run.stderr);
        }
    }
    let after: Vec<Vec<u8>> = read.iter().map(|p| std::fs::read(p).expect("read")).collect();
    assert!(before == after, "an input file changed");
    assert!(!dir.join("arm.gltf").exists());
    let run = merge(&[path_str(&character), path_str(&lib), "-o", path_str(&dir.join("fresh.glb"))]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
