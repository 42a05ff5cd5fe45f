//! `rigscope normalize`, run as a program: the copy passes the weight rules (checked with
//! `rigscope::diagnose`, which follows the Khronos validator), everything else in it is the
//! input's data exactly (checked through `rigscope::load` and, for the JSON, by comparing the
//! documents with serde_json), and the paths it must never write are left alone.

use rigscope::diagnose::{self, Report};
use rigscope::rig::Rig;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/bad-weights.glb");

/// A fresh, empty folder for one test.
fn folder(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    super::temp::folder(&format!("normalize-{tag}"))
}

fn normalize(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rigscope")).arg("normalize").args(args).output().expect("runs")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

fn load(path: &Path) -> Rig {
    rigscope::load(path).unwrap_or_else(|e| panic!("{e}"))
}

fn check(rig: &Rig) -> Report {
    diagnose::check(rig, &diagnose::Options::default())
}

/// Findings of the codes the weight rules produce.
fn weight_findings(report: &Report) -> Vec<&'static str> {
    report
        .findings
        .iter()
        .map(|f| f.code)
        .filter(|c| {
            c.starts_with("ACCESSOR_WEIGHTS_")
                || c.starts_with("ACCESSOR_JOINTS_")
                || *c == "ACCESSOR_INVALID_FLOAT"
        })
        .collect()
}

/// Everything but skin weights is the same data, compared exactly.
fn assert_same_except_weights(a: &Rig, b: &Rig) {
    assert_eq!(a.nodes.len(), b.nodes.len());
    for (na, nb) in a.nodes.iter().zip(&b.nodes) {
        assert_eq!(na.rest, nb.rest);
        assert_eq!(na.matrix, nb.matrix);
        assert_eq!((na.parent, na.mesh, na.skin), (nb.parent, nb.mesh, nb.skin));
        assert_eq!(na.name, nb.name);
    }
    for (sa, sb) in a.skins.iter().zip(&b.skins) {
        assert_eq!(sa.joints, sb.joints);
        assert_eq!(sa.inverse_bind, sb.inverse_bind);
    }
    assert_eq!(a.meshes.len(), b.meshes.len());
    for (ma, mb) in a.meshes.iter().zip(&b.meshes) {
        for (pa, pb) in ma.primitives.iter().zip(&mb.primitives) {
            assert_eq!(pa.positions, pb.positions);
            assert_eq!(pa.normals, pb.normals);
            assert_eq!(pa.indices, pb.indices);
            assert_eq!(pa.influences.len(), pb.influences.len());
            for (ia, ib) in pa.influences.iter().zip(&pb.influences) {
                assert_eq!(ia.weight_storage, ib.weight_storage);
            }
        }
    }
    assert_eq!(a.clips.len(), b.clips.len());
    for (ca, cb) in a.clips.iter().zip(&b.clips) {
        assert_eq!(ca.name, cb.name);
        assert_eq!(ca.duration, cb.duration);
        for (ha, hb) in ca.channels.iter().zip(&cb.channels) {
            assert_eq!((ha.node, ha.property, ha.interpolation), (hb.node, hb.property, hb.interpolation));
            assert_eq!(ha.times, hb.times);
            assert_eq!(
                ha.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                hb.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
    }
}

/// The JSON document of a .glb, read from its chunk header.
fn glb_json(bytes: &[u8]) -> Value {
    assert_eq!(&bytes[0..4], b"glTF");
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).expect("JSON chunk")
}

/// Top-level JSON other than buffers, views, accessors and meshes is identical, and meshes
/// differ only in `JOINTS_n`/`WEIGHTS_n` attribute indices.
fn assert_json_kept(input: &Value, output: &Value) {
    let (Some(a), Some(b)) = (input.as_object(), output.as_object()) else {
        panic!("documents are objects");
    };
    for (key, value) in a {
        if !matches!(key.as_str(), "buffers" | "bufferViews" | "accessors" | "meshes") {
            assert_eq!(Some(value), b.get(key), "top-level '{key}' differs");
        }
    }
    let strip = |doc: &Value| {
        let mut meshes = doc["meshes"].clone();
        for mesh in meshes.as_array_mut().into_iter().flatten() {
            for prim in mesh["primitives"].as_array_mut().into_iter().flatten() {
                if let Some(attrs) = prim["attributes"].as_object_mut() {
                    attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_"));
                }
            }
        }
        meshes
    };
    assert_eq!(strip(input), strip(output));
    // Old accessors are kept in place (new ones are appended), apart from bufferView fields.
    let old = input["accessors"].as_array().map_or(0, Vec::len);
    for i in 0..old {
        for field in ["componentType", "count", "type", "min", "max", "normalized"] {
            assert_eq!(
                input["accessors"][i].get(field),
                output["accessors"][i].get(field),
                "accessor {i} {field}"
            );
        }
    }
}

#[test]
fn the_bad_weights_sample_comes_out_clean_and_otherwise_unchanged() {
    let (_guard, dir) = folder("glb");
    let out = dir.join("out.glb");
    let run = normalize(&[SAMPLE, "-o", path_str(&out)]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    // samples/README.md: ten vertices carry a validator finding, vertex 7 is all zero.
    assert!(text.contains("vertices touched     10 of 52"), "{text}");
    assert!(text.contains("given to root joint  1"), "{text}");

    let (before, after) = (load(Path::new(SAMPLE)), load(&out));
    assert!(!weight_findings(&check(&before)).is_empty());
    assert_eq!(weight_findings(&check(&after)), Vec::<&str>::new());
    assert_same_except_weights(&before, &after);
    let input = std::fs::read(SAMPLE).expect("sample");
    let output = std::fs::read(&out).expect("output");
    assert_json_kept(&glb_json(&input), &glb_json(&output));
    // Only OUT was written: no temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir).expect("folder").flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("out.glb")]);
}

#[test]
fn gltf_output_loads_with_an_embedded_buffer() {
    let (_guard, dir) = folder("gltf");
    let out = dir.join("out.gltf");
    let run = normalize(&[SAMPLE, "-o", path_str(&out), "--max-influences", "4"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("JSON");
    let buffers = doc["buffers"].as_array().expect("buffers");
    assert_eq!(buffers.len(), 1);
    assert!(
        buffers[0]["uri"].as_str().is_some_and(|u| u.starts_with("data:application/octet-stream;base64,"))
    );
    let after = load(&out);
    let report = check(&after);
    assert_eq!(weight_findings(&report), Vec::<&str>::new());
    // With at most 4 influences, rigscope's own >4 rule is gone too.
    assert_eq!(report.with_code("RIG_MORE_THAN_4_INFLUENCES").count(), 0);
    assert_same_except_weights(&load(Path::new(SAMPLE)), &after);
}

#[test]
fn the_input_is_never_overwritten() {
    let (_guard, dir) = folder("input");
    let input = dir.join("in.glb");
    std::fs::copy(SAMPLE, &input).expect("copy");
    let original = std::fs::read(&input).expect("read");
    let same_file =
        [dir.join("in.glb"), dir.join(".").join("in.glb"), dir.join("sub").join("..").join("in.glb")];
    std::fs::create_dir_all(dir.join("sub")).expect("sub folder");
    for out in &same_file {
        let run = normalize(&[path_str(&input), "-o", path_str(out), "--force"]);
        assert_eq!(run.status.code(), Some(2), "{}", out.display());
        assert!(String::from_utf8_lossy(&run.stderr).contains("input file"));
    }
    #[cfg(unix)]
    {
        let link = dir.join("link.glb");
        std::os::unix::fs::symlink(&input, &link).expect("symlink");
        let hard = dir.join("hard.glb");
        std::fs::hard_link(&input, &hard).expect("hard link");
        for out in [&link, &hard] {
            let run = normalize(&[path_str(&input), "-o", path_str(out), "--force"]);
            assert_eq!(run.status.code(), Some(2), "{}", out.display());
        }
    }
    assert_eq!(std::fs::read(&input).expect("read"), original);
}

#[test]
fn an_existing_output_needs_force_and_other_extensions_are_refused() {
    let (_guard, dir) = folder("force");
    let out = dir.join("out.glb");
    std::fs::write(&out, b"keep me").expect("write");
    let run = normalize(&[SAMPLE, "-o", path_str(&out)]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).expect("read"), b"keep me");
    let run = normalize(&[SAMPLE, "-o", path_str(&out), "--force"]);
    assert!(run.status.success());
    assert!(std::fs::read(&out).expect("read").starts_with(b"glTF"));

    let obj = dir.join("out.obj");
    let run = normalize(&[SAMPLE, "-o", path_str(&obj)]);
    assert_eq!(run.status.code(), Some(2));
    assert!(!obj.exists());
    let run = normalize(&[SAMPLE, "-o", path_str(&dir.join("x.glb")), "--prune", "1.5"]);
    assert_eq!(run.status.code(), Some(2));
    let run = normalize(&[SAMPLE, "-o", path_str(&dir.join("x.glb")), "--max-influences", "0"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(!dir.join("x.glb").exists());
}

fn assets_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("RIGSCOPE_ASSETS").map(PathBuf::from);
    if dir.is_none() {
        super::assets::skip_notice("normalize asset tests");
    }
    dir
}

#[test]
fn real_assets_round_trip() {
    let Some(assets) = assets_dir() else {
        return;
    };
    let (_guard, dir) = folder("assets");
    // INDEX.md: CesiumMan-legacy has 210 vertices the validator calls non-normalised, Fox none.
    for (file, non_normalized) in [("CesiumMan-legacy/CesiumMan.glb", 210), ("Fox/Fox.glb", 0)] {
        let input = assets.join(file);
        let out = dir.join(file.replace('/', "-"));
        let run = normalize(&[path_str(&input), "-o", path_str(&out)]);
        assert!(run.status.success(), "{file}: {}", String::from_utf8_lossy(&run.stderr));
        let (before, after) = (load(&input), load(&out));
        assert_eq!(
            check(&before).with_code("ACCESSOR_WEIGHTS_NON_NORMALIZED").count(),
            non_normalized,
            "{file}"
        );
        assert_eq!(weight_findings(&check(&after)), Vec::<&str>::new(), "{file}");
        assert_same_except_weights(&before, &after);
        let text = String::from_utf8_lossy(&run.stdout);
        let vertices =
            before.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.vertex_count()).sum::<usize>();
        assert!(text.contains(&format!("vertices touched     {non_normalized} of {vertices}")), "{text}");
    }
}

/// `normalize --force` killed at moments spread over its whole run leaves OUT either as it
/// was or as the complete new copy, never truncated (it writes a temporary file beside OUT
/// and renames it into place).
#[test]
fn an_interrupted_normalize_never_leaves_out_truncated() {
    let (_guard, dir) = folder("interrupted");
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/walker.glb");
    let out = dir.join("out.glb");
    let args = ["normalize", input, "-o", path_str(&out), "--max-influences", "2", "--force"];
    assert_interrupted_writes_leave_old_or_complete(&args, &out);
}

/// Runs `rigscope ARGS` (which writes OUT with `--force`) once whole, then kills it at moments
/// spread over such a run: OUT must each time be the old bytes or the complete new ones.
pub(crate) fn assert_interrupted_writes_leave_old_or_complete(args: &[&str], out: &Path) {
    let run = || Command::new(env!("CARGO_BIN_EXE_rigscope")).args(args).output().expect("runs");
    // How long a whole run takes here, to spread the kills over it.
    let started = std::time::Instant::now();
    let done = run();
    let whole = started.elapsed();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let complete = std::fs::read(out).expect("complete copy");
    let old = b"the user's previous file".to_vec();
    let mut outcomes = [0usize; 2];
    for k in 0..12u32 {
        std::fs::write(out, &old).expect("old OUT");
        let mut child = Command::new(env!("CARGO_BIN_EXE_rigscope"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(whole.mul_f64(f64::from(k) / 8.0));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(out).expect("OUT still exists");
        if now == old {
            outcomes[0] += 1;
        } else {
            assert!(
                now == complete,
                "{args:?}, kill {k}: OUT has {} bytes, neither the old file nor the copy",
                now.len()
            );
            outcomes[1] += 1;
        }
    }
    // Which outcomes occur depends on the machine's load; any mix is right.
    eprintln!("{args:?}: kills that left the old file, the complete copy: {outcomes:?}");
}

/// Numbers that fast float parsers get wrong by one unit in the last place (long mantissas,
/// halfway cases, subnormals, the edges of f64 and f32) and integers past 2^53 written as
/// integers. Each must come back from `normalize` as the same f64.
const HARD_NUMBERS: &[&str] = &[
    "9.283547401428223",
    "-0.18815206736326218",
    "0.30000000000000004",
    "2.2250738585072011e-308",
    "2.2250738585072012e-308",
    "2.2250738585072014e-308",
    "4.9406564584124654e-324",
    "5e-324",
    "2.4703282292062328e-324",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "8.988465674311579e307",
    "1e23",
    "9.999999999999999e22",
    "7.038531e-26",
    "3.4028234663852886e38",
    "3.4028235677973366e38",
    "1.1754943508222875e-38",
    "1.1754942807573643e-38",
    "1.401298464324817e-45",
    "16777217",
    "16777216.000000002",
    "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203126",
    "0.1000000000000000055511151231257827021181583404541015625",
    "123456789012345678901234567890e-10",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551615",
    "18446744073709551617",
    "-9223372036854775809",
    "-0",
    "-0.0",
    "1E+2",
];

/// The text of the JSON array that follows `"key":` in `text`, split at commas (the numbers
/// hold no commas or brackets).
fn array_items<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    let start = text.find(&format!("\"{key}\"")).unwrap_or_else(|| panic!("{key} in the output"));
    let open = start + text[start..].find('[').expect("an array");
    let close = open + text[open..].find(']').expect("the array ends");
    text[open + 1..close].split(',').map(str::trim).collect()
}

#[test]
fn numbers_it_does_not_change_come_back_as_the_same_f64() {
    let (_guard, dir) = folder("numbers");
    let input = dir.join("numbers.glb");
    let output = dir.join("out.glb");
    let list = HARD_NUMBERS.join(",");
    let sample = std::fs::read(SAMPLE).expect("sample");
    // Under the document's own extras, which normalize copies through untouched.
    let edited = crate::glb_edit::with_json(&sample, |text| {
        let body = text.strip_prefix('{').expect("a JSON object");
        format!("{{\"extras\":{{\"rigscope_numbers\":[{list}]}},{body}")
    });
    std::fs::write(&input, edited).expect("write input");
    let out = normalize(&[path_str(&input), "-o", path_str(&output)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = crate::glb_edit::json_text(&std::fs::read(&output).expect("output"));
    let back = array_items(&written, "rigscope_numbers");
    assert_eq!(back.len(), HARD_NUMBERS.len());
    // Rust's own `str::parse` is correctly rounded: it is the reference for both sides.
    for (asked, got) in HARD_NUMBERS.iter().zip(back) {
        let a: f64 = asked.parse().expect("a number");
        let b: f64 = got.parse().unwrap_or_else(|_| panic!("{got} is a number"));
        assert_eq!(a.to_bits(), b.to_bits(), "{asked} came back as {got}");
    }
}

/// bad-weights.glb as a .gltf in `dir` whose buffer is the file `payload.glb` and which names
/// the image `skin.glb`: the files loading it reads besides itself.
fn split_sample(dir: &Path) -> PathBuf {
    let bytes = std::fs::read(SAMPLE).expect("sample");
    let mut json = glb_json(&bytes);
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let at = 20 + json_len;
    let bin_len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    std::fs::write(dir.join("payload.glb"), &bytes[at + 8..at + 8 + bin_len]).expect("buffer");
    // A .glb name, so that it is a name normalize could write to.
    std::fs::write(dir.join("skin.glb"), b"\x89PNG\r\n\x1a\n not really an image").expect("image");
    json["buffers"][0]["uri"] = "payload.glb".into();
    json["images"] = serde_json::json!([{ "uri": "skin.glb" }]);
    let file = dir.join("model.gltf");
    std::fs::write(&file, serde_json::to_vec(&json).expect("JSON")).expect("gltf");
    file
}

#[test]
fn no_file_the_input_reads_is_ever_overwritten() {
    let (_guard, dir) = folder("reads");
    let input = split_sample(&dir);
    let read = [input.clone(), dir.join("payload.glb"), dir.join("skin.glb")];
    let before: Vec<Vec<u8>> = read.iter().map(|p| std::fs::read(p).expect("read")).collect();
    let mut outputs = vec![dir.join("payload.glb"), dir.join(".").join("payload.glb"), dir.join("skin.glb")];
    #[cfg(unix)]
    {
        std::fs::hard_link(dir.join("payload.glb"), dir.join("hard.glb")).expect("hard link");
        outputs.push(dir.join("hard.glb"));
    }
    for out in &outputs {
        for force in [true, false] {
            let mut args = vec![path_str(&input), "-o", path_str(out)];
            args.extend(force.then_some("--force"));
            let run = normalize(&args);
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert_eq!(run.status.code(), Some(2), "{}: {stderr}", out.display());
            // Without --force, an image (known only once read) is refused as existing first.
            let why = if force || !out.ends_with("skin.glb") {
                "never writes over a file it reads"
            } else {
                "already exists"
            };
            assert!(stderr.contains(why), "{}: {stderr}", out.display());
        }
    }
    let after: Vec<Vec<u8>> = read.iter().map(|p| std::fs::read(p).expect("read")).collect();
    assert!(before == after, "an input file changed");
    // The same input to a file it does not read is written.
    let run = normalize(&[path_str(&input), "-o", path_str(&dir.join("fresh.glb"))]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

/// The floats of every FLOAT accessor with a buffer view in a .glb: what the validator reads
/// for ACCESSOR_INVALID_FLOAT, used or not.
fn every_float_accessor(bytes: &[u8]) -> Vec<(usize, Vec<f32>)> {
    let json = glb_json(bytes);
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    let bin_at = 20 + word(12) + 8;
    let components = super::merge::components;
    let mut out = Vec::new();
    for (i, a) in json["accessors"].as_array().expect("accessors").iter().enumerate() {
        let (Some(view), Some(5126)) = (a["bufferView"].as_u64(), a["componentType"].as_u64()) else {
            continue;
        };
        let v = &json["bufferViews"][view as usize];
        let n = components(a["type"].as_str().expect("type"));
        let stride = v["byteStride"].as_u64().map_or(4 * n, |s| s as usize);
        let start = bin_at
            + v["byteOffset"].as_u64().unwrap_or(0) as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let mut floats = Vec::new();
        for e in 0..a["count"].as_u64().expect("count") as usize {
            for c in 0..n {
                let at = start + e * stride + 4 * c;
                floats.push(f32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")));
            }
        }
        out.push((i, floats));
    }
    out
}

#[test]
fn a_vrm_s_nan_weights_accessor_is_replaced_not_kept_beside_the_new_one() {
    let (_guard, dir) = folder("vrm-nan");
    for name in ["walker-vrm1.vrm", "walker-vrm0.vrm"] {
        let mut bytes = std::fs::read(format!("{}/tests/fixtures/vrm/{name}", env!("CARGO_MANIFEST_DIR")))
            .expect("fixture");
        let json = glb_json(&bytes);
        // The second weight of vertex 0 of mesh 0's first primitive becomes NaN.
        let weights =
            json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"].as_u64().expect("weights");
        let accessor = &json["accessors"][weights as usize];
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().expect("view") as usize];
        let json_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
        let at = 20
            + json_len
            + 8
            + view["byteOffset"].as_u64().unwrap_or(0) as usize
            + accessor["byteOffset"].as_u64().unwrap_or(0) as usize
            + 4;
        bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let (input, out) = (dir.join(name), dir.join(format!("fixed-{name}")).with_extension("glb"));
        std::fs::write(&input, &bytes).expect("input");
        assert!(every_float_accessor(&bytes).iter().any(|(_, f)| f.iter().any(|x| x.is_nan())));

        let run = normalize(&[path_str(&input), "-o", path_str(&out)]);
        assert!(run.status.success(), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        let written = std::fs::read(&out).expect("output");
        for (i, floats) in every_float_accessor(&written) {
            assert!(
                floats.iter().all(|x| x.is_finite()),
                "{name}: accessor {i} still holds a non-finite float"
            );
        }
        // Still the avatar it was.
        let (before, after) = (glb_json(&bytes), glb_json(&written));
        assert_eq!(before["extensions"], after["extensions"], "{name}");
        assert_eq!(before["extensionsUsed"], after["extensionsUsed"], "{name}");
    }
}

#[test]
fn an_old_nan_accessor_kept_for_an_unknown_extension_is_said() {
    let (_guard, dir) = folder("nan-kept");
    let input = split_sample(&dir);
    let mut json: Value = serde_json::from_slice(&std::fs::read(&input).expect("gltf")).expect("JSON");
    json["extensionsUsed"] = serde_json::json!(["EXT_nobody_knows"]);
    std::fs::write(&input, serde_json::to_vec(&json).expect("JSON")).expect("gltf");
    let run = normalize(&[path_str(&input), "-o", path_str(&dir.join("out.glb"))]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // bad-weights.glb holds one NaN weight (samples/README.md).
    assert!(stdout.contains("1 old weights accessor with NaN or infinite values is kept unused"), "{stdout}");
    let written = std::fs::read(dir.join("out.glb")).expect("output");
    let non_finite =
        every_float_accessor(&written).iter().filter(|(_, f)| f.iter().any(|x| !x.is_finite())).count();
    assert_eq!(non_finite, 1);
}
