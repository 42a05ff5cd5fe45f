//! VRM avatars (issue 40): the humanoid mapping in `inspect` and `pose`, VRM's humanoid rules
//! in `check` (on hand-broken copies made here), and the expressions with their binds. The
//! fixtures are the walker dressed as VRM 1.0 and 0.x (tests/fixtures/vrm/README.md).

use serde_json::Value;

use crate::cli::rigscope;

pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/vrm/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn json_of(args: &[&str]) -> Value {
    let run = rigscope(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// The walker's node names (samplegen/walker.rs, its table) and the VRM bone each is, as the
/// VRM 1.0 humanoid table names them; VRM 0.x uses the same names for these bones.
const EXPECTED: [(&str, &str); 19] = [
    ("hips", "hips"),
    ("spine", "spine"),
    ("chest", "chest"),
    ("neck", "neck"),
    ("head", "head"),
    ("upper_arm.L", "leftUpperArm"),
    ("forearm.L", "leftLowerArm"),
    ("hand.L", "leftHand"),
    ("upper_arm.R", "rightUpperArm"),
    ("forearm.R", "rightLowerArm"),
    ("hand.R", "rightHand"),
    ("thigh.L", "leftUpperLeg"),
    ("shin.L", "leftLowerLeg"),
    ("foot.L", "leftFoot"),
    ("thigh.R", "rightUpperLeg"),
    ("shin.R", "rightLowerLeg"),
    ("foot.R", "rightFoot"),
    ("eye.L", "leftEye"),
    ("eye.R", "rightEye"),
];

fn bone_by_name(nodes: &Value) -> Vec<(String, Option<String>)> {
    let mut list: Vec<(String, Option<String>)> = nodes
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| {
            (n["name"].as_str().unwrap_or("").to_string(), n["humanoid_bone"].as_str().map(str::to_string))
        })
        .collect();
    list.sort();
    list
}

fn expected_bones() -> Vec<(String, Option<String>)> {
    let mut list: Vec<(String, Option<String>)> =
        EXPECTED.iter().map(|(n, b)| (n.to_string(), Some(b.to_string()))).collect();
    list.push(("walker".to_string(), None));
    list.push(("eyes".to_string(), None));
    list.sort();
    list
}

#[test]
fn inspect_and_pose_name_the_humanoid_bone_of_every_node() {
    for file in ["walker-vrm1.vrm", "walker-vrm0.vrm"] {
        let doc = json_of(&["inspect", &fixture(file), "--json"]);
        assert_eq!(bone_by_name(&doc["nodes"]), expected_bones(), "{file}");
        let version = if file.contains("vrm1") { "1.0" } else { "0.x" };
        assert_eq!(doc["vrm"]["version"], version);
        assert_eq!(doc["vrm"]["humanoid"].as_array().map(Vec::len), Some(19));

        let pose = json_of(&["pose", &fixture(file), "--json", "--no-positions", "--time", "0"]);
        assert_eq!(bone_by_name(&pose["frames"][0]["nodes"]), expected_bones(), "{file}");

        let text = rigscope(&["inspect", &fixture(file)]).stdout;
        assert!(text.contains(&format!("VRM {version} humanoid (19 bones)")), "{text}");
        assert!(text.contains("upper_arm.L (node 5, joint 5) [leftUpperArm]"), "{text}");
    }
    // A plain glTF has no VRM section and no humanoid_bone fields.
    let doc = json_of(&["inspect", &crate::cli::sample("walker.glb"), "--json"]);
    assert!(doc.get("vrm").is_none());
    assert!(doc["nodes"].as_array().expect("nodes").iter().all(|n| n.get("humanoid_bone").is_none()));
}

/// The JSON text and BIN chunk of a .glb.
pub(crate) fn split_glb(bytes: &[u8]) -> (String, Vec<u8>) {
    assert_eq!(&bytes[0..4], b"glTF");
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let json = String::from_utf8(bytes[20..20 + len].to_vec()).expect("UTF-8 JSON");
    (json.trim_end().to_string(), bytes[20 + len + 8..].to_vec())
}

/// A .glb from JSON text (padded with spaces) and a BIN chunk (already 4-byte aligned).
pub(crate) fn join_glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

/// Runs `check --json` on a copy of fixture `file` whose JSON text `edit` changed; returns
/// the exit code and the (code, pointer) of every VRM finding, sorted.
pub(crate) fn check_broken(
    file: &str,
    tag: &str,
    edit: impl Fn(&str) -> String,
) -> (i32, Vec<(String, String)>) {
    let bytes = std::fs::read(fixture(file)).expect("fixture");
    let (json, bin) = split_glb(&bytes);
    let broken = edit(&json);
    assert_ne!(broken, json, "the edit changed nothing");
    let dir = std::env::temp_dir().join(format!("rigscope-vrm-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(file);
    std::fs::write(&path, join_glb(&broken, &bin)).expect("write copy");
    let run = rigscope(&["check", "--json", path.to_str().expect("path")]);
    let _ = std::fs::remove_dir_all(&dir);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr));
    let findings = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"].as_str().is_some_and(|c| c.starts_with("RIG_VRM_")))
        .map(|f| {
            (f["code"].as_str().unwrap_or("").to_string(), f["pointer"].as_str().unwrap_or("").to_string())
        })
        .collect::<Vec<_>>();
    let mut findings = findings;
    findings.sort();
    (run.code, findings)
}

/// (code, pointer) pairs, sorted as `check_broken` sorts what it found.
fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    list.sort();
    list
}

const V1: &str = "/extensions/VRMC_vrm/humanoid/humanBones";
const V0: &str = "/extensions/VRM/humanoid/humanBones";

#[test]
fn valid_avatars_have_no_vrm_findings() {
    for file in ["walker-vrm1.vrm", "walker-vrm0.vrm"] {
        let run = rigscope(&["check", "--json", &fixture(file)]);
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert!(!run.stdout.contains("RIG_VRM_"), "{file}: {}", run.stdout);
    }
}

#[test]
fn a_missing_required_bone_is_reported_by_the_rules_of_each_version() {
    // leftFoot is required in both versions.
    let (code, found) =
        check_broken("walker-vrm1.vrm", "foot1", |j| j.replace(r#""leftFoot":{"node":13},"#, ""));
    assert_eq!(code, 1);
    assert_eq!(found, pairs(&[("RIG_VRM_REQUIRED_BONE_MISSING", V1)]));
    let (_, found) =
        check_broken("walker-vrm0.vrm", "foot0", |j| j.replace(r#"{"bone":"leftFoot","node":13},"#, ""));
    assert_eq!(found, pairs(&[("RIG_VRM_REQUIRED_BONE_MISSING", V0)]));
    // chest is required in 0.x only; without it, neck and the upper arms nest under spine,
    // which is what the specification's chain (upperChest, chest, spine) then asks for.
    let (code, found) =
        check_broken("walker-vrm1.vrm", "chest1", |j| j.replace(r#""chest":{"node":2},"#, ""));
    assert_eq!((code, found), (0, vec![]));
    let (_, found) =
        check_broken("walker-vrm0.vrm", "chest0", |j| j.replace(r#"{"bone":"chest","node":2},"#, ""));
    assert_eq!(found, pairs(&[("RIG_VRM_REQUIRED_BONE_MISSING", V0)]));
}

#[test]
fn a_bone_mapped_twice_and_a_node_mapped_twice_are_reported() {
    // VRM 1.0 can only say it with a repeated key: head again, on the body node.
    let (code, found) = check_broken("walker-vrm1.vrm", "twice1", |j| {
        j.replace(r#""head":{"node":4}"#, r#""head":{"node":4},"head":{"node":17}"#)
    });
    assert_eq!(code, 1);
    assert_eq!(found, pairs(&[("RIG_VRM_BONE_MAPPED_TWICE", &format!("{V1}/head"))]));
    // VRM 0.x: a second entry for head (entry 19, appended after the eyes).
    let (_, found) = check_broken("walker-vrm0.vrm", "twice0", |j| {
        j.replace(
            r#"{"bone":"rightEye","node":19}]"#,
            r#"{"bone":"rightEye","node":19},{"bone":"head","node":17}]"#,
        )
    });
    assert_eq!(found, pairs(&[("RIG_VRM_BONE_MAPPED_TWICE", &format!("{V0}/19"))]));
    // One node as two bones: head's node also mapped as jaw. jaw's nearest mapped ancestor is
    // then neck (node 3), not head, so its place in the chain is wrong as well.
    let (_, found) = check_broken("walker-vrm0.vrm", "node0", |j| {
        j.replace(
            r#"{"bone":"rightEye","node":19}]"#,
            r#"{"bone":"rightEye","node":19},{"bone":"jaw","node":4}]"#,
        )
    });
    let jaw = format!("{V0}/19");
    assert_eq!(found, pairs(&[("RIG_VRM_NODE_MAPPED_TWICE", &jaw), ("RIG_VRM_BONE_PARENT", &jaw)]));
}

#[test]
fn a_wrong_parent_order_is_reported_on_each_misplaced_bone() {
    // Upper and lower left arm swapped: upper arm (node 6) sits under the lower arm (node 5),
    // the lower arm right under chest, and the hand under the upper arm.
    let (code, found) = check_broken("walker-vrm1.vrm", "order1", |j| {
        j.replace(r#""leftLowerArm":{"node":6}"#, r#""leftLowerArm":{"node":5}"#)
            .replace(r#""leftUpperArm":{"node":5}"#, r#""leftUpperArm":{"node":6}"#)
    });
    assert_eq!(code, 1);
    let at = |b: &str| format!("{V1}/{b}");
    let expected = [
        ("RIG_VRM_BONE_PARENT", at("leftUpperArm")),
        ("RIG_VRM_BONE_PARENT", at("leftLowerArm")),
        ("RIG_VRM_BONE_PARENT", at("leftHand")),
    ];
    let expected: Vec<(&str, &str)> = expected.iter().map(|(c, p)| (*c, p.as_str())).collect();
    assert_eq!(found, pairs(&expected));
}

#[test]
fn a_bone_that_needs_its_parent_is_reported_without_it() {
    // upperChest may only be mapped with chest (humanoid.md, "Needs Parent Bone: Yes").
    let (code, found) = check_broken("walker-vrm1.vrm", "needs1", |j| {
        j.replace(r#""chest":{"node":2}"#, r#""upperChest":{"node":2}"#)
    });
    assert_eq!(code, 1);
    assert_eq!(found, pairs(&[("RIG_VRM_BONE_NEEDS_PARENT", &format!("{V1}/upperChest"))]));
}

#[test]
fn inspect_lists_the_expressions_with_their_binds() {
    // From src/samplegen/vrm.rs: the body is node 17 (mesh 0); VRM 0.x weights are 0..100.
    let v1 = json_of(&["inspect", &fixture("walker-vrm1.vrm"), "--json"]);
    let bind = |index: u64, weight: f64| serde_json::json!({ "node": 17, "index": index, "weight": weight });
    let expected = serde_json::json!([
        { "name": "blink", "preset": "blink", "is_binary": false, "binds": [bind(1, 1.0)] },
        { "name": "happy", "preset": "happy", "is_binary": false, "binds": [bind(0, 1.0)] },
        { "name": "nod", "preset": null, "is_binary": true, "binds": [bind(0, 0.5), bind(1, 0.25)] },
    ]);
    assert_eq!(v1["vrm"]["expressions"], expected);

    let v0 = json_of(&["inspect", &fixture("walker-vrm0.vrm"), "--json"]);
    let bind = |index: u64, weight: f64| serde_json::json!({ "mesh": 0, "index": index, "weight": weight });
    let expected = serde_json::json!([
        { "name": "Joy", "preset": "joy", "is_binary": false, "binds": [bind(0, 1.0)] },
        { "name": "Blink", "preset": "blink", "is_binary": false, "binds": [bind(1, 1.0)] },
        { "name": "Nod", "preset": null, "is_binary": true, "binds": [bind(0, 0.5), bind(1, 0.25)] },
    ]);
    assert_eq!(v0["vrm"]["expressions"], expected);

    let text = rigscope(&["inspect", &fixture("walker-vrm1.vrm")]).stdout;
    assert!(
        text.contains(
            "nod (custom, binary): walker (node 17) morph 0 x 0.5, walker (node 17) morph 1 x 0.25"
        ),
        "{text}"
    );
    let text = rigscope(&["inspect", &fixture("walker-vrm0.vrm")]).stdout;
    assert!(text.contains("Joy (preset joy): mesh #0 morph 0 x 1"), "{text}");
}

/// What three-vrm 3.5 (in Node, tests/fixtures/vrm/three-vrm/read-vrm.mjs) read from the fixtures.
fn three_vrm(file: &str) -> Value {
    let path = format!("{}/tests/fixtures/vrm/three-vrm/three-vrm.json", env!("CARGO_MANIFEST_DIR"));
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("three-vrm.json")).expect("JSON");
    let files = doc["files"].as_array().expect("files");
    files.iter().find(|f| f["file"] == file).cloned().expect("file in three-vrm.json")
}

/// three-vrm names VRM 0.x preset groups by their VRM 1.0 presets (three-vrm-core
/// `VRMExpressionLoaderPlugin`, `v0v1PresetNameMap`); only the fixtures' presets are listed.
fn v1_preset(v0: &str) -> &str {
    match v0 {
        "joy" => "happy",
        other => other,
    }
}

#[test]
fn the_mapping_and_expressions_agree_with_three_vrm() {
    for file in ["walker-vrm1.vrm", "walker-vrm0.vrm"] {
        let three = three_vrm(file);
        let ours = json_of(&["inspect", &fixture(file), "--json"]);

        let mut theirs: Vec<(String, u64)> = (three["humanoid"].as_object().expect("humanoid").iter())
            .map(|(bone, node)| (bone.clone(), node.as_u64().expect("node")))
            .collect();
        let mut mine: Vec<(String, u64)> = (ours["vrm"]["humanoid"].as_array().expect("humanoid").iter())
            .map(|b| (b["bone"].as_str().expect("bone").to_string(), b["node"].as_u64().expect("node")))
            .collect();
        theirs.sort();
        mine.sort();
        assert_eq!(mine, theirs, "{file}");

        // Binds as (expression, node, morph index, weight); a VRM 0.x bind names a mesh, which
        // three-vrm applies on every node drawing it.
        let nodes = ours["nodes"].as_array().expect("nodes");
        let mut mine = Vec::new();
        for e in ours["vrm"]["expressions"].as_array().expect("expressions") {
            let name = match e["preset"].as_str() {
                Some(p) => v1_preset(p).to_string(),
                None => e["name"].as_str().expect("name").to_string(),
            };
            for b in e["binds"].as_array().expect("binds") {
                let drawn: Vec<u64> = match b.get("node") {
                    Some(n) => vec![n.as_u64().expect("node")],
                    None => (nodes.iter())
                        .filter(|n| n["mesh"] == b["mesh"])
                        .map(|n| n["index"].as_u64().expect("index"))
                        .collect(),
                };
                for node in drawn {
                    mine.push((
                        name.clone(),
                        e["is_binary"].as_bool(),
                        node,
                        b["index"].as_u64(),
                        b["weight"].as_f64(),
                    ));
                }
            }
        }
        let mut theirs = Vec::new();
        for e in three["expressions"].as_array().expect("expressions") {
            for b in e["binds"].as_array().expect("binds") {
                let name = e["name"].as_str().expect("name").to_string();
                let node = b["node"].as_u64().expect("node");
                theirs.push((
                    name,
                    e["is_binary"].as_bool(),
                    node,
                    b["index"].as_u64(),
                    b["weight"].as_f64(),
                ));
            }
        }
        let key = |v: &(String, Option<bool>, u64, Option<u64>, Option<f64>)| (v.0.clone(), v.2, v.3);
        mine.sort_by_key(key);
        theirs.sort_by_key(key);
        assert_eq!(mine.len(), theirs.len(), "{file}: {mine:?} {theirs:?}");
        for (m, t) in mine.iter().zip(&theirs) {
            assert_eq!(key(m), key(t), "{file}");
            assert_eq!(m.1, t.1, "{file} is_binary of {}", m.0);
            let (a, b) = (m.4.expect("weight"), t.4.expect("weight"));
            assert!((a - b).abs() < 1e-6, "{file} {}: {a} vs {b}", m.0);
        }
    }
}

#[test]
fn rest_world_matrices_agree_with_three_vrm() {
    for file in ["walker-vrm1.vrm", "walker-vrm0.vrm"] {
        let three = three_vrm(file);
        let pose = json_of(&["pose", &fixture(file), "--json", "--time", "0"]);
        let frame = &pose["frames"][0];
        // 1e-4 of the bounding box diagonal of the posed vertices, as issue 40 judges.
        let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
        for mesh in frame["meshes"].as_array().expect("meshes") {
            for p in mesh["positions"].as_array().expect("positions") {
                for k in 0..3 {
                    let x = p[k].as_f64().expect("coordinate");
                    lo[k] = lo[k].min(x);
                    hi[k] = hi[k].max(x);
                }
            }
        }
        let diagonal = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
        assert!(diagonal > 1.5, "{diagonal}");
        for node in frame["nodes"].as_array().expect("nodes") {
            let n = node["node"].as_u64().expect("node") as usize;
            let theirs = three["worlds"][n].as_array().expect("three-vrm world");
            for (a, b) in node["world"].as_array().expect("world").iter().zip(theirs) {
                let (a, b) = (a.as_f64().expect("f"), b.as_f64().expect("f"));
                assert!((a - b).abs() <= 1e-4 * diagonal, "{file} node {n}: {a} vs {b}");
            }
        }
    }
}

/// walker-walk.vrma played on the three avatars by rigscope's binding (`rigscope::vrma::bind`)
/// equals three-vrm 3.5 playing it (three-vrm/play-vrma.mjs) within 1e-4 of the bounding
/// box diagonal: every node's world matrix and the deformed vertices of the body and the
/// eyes, at 11 times that are not key times; the expression weights within 1e-5. The gaze
/// turns the eyes of the first two (bone type) and drives the look expressions of the third.
#[test]
fn a_vrma_plays_on_both_avatars_as_three_vrm_plays_it() {
    let path = format!("{}/tests/fixtures/vrm/three-vrm/three-vrm-walk.json", env!("CARGO_MANIFEST_DIR"));
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("reference")).expect("JSON");
    let anim = rigscope::import::load(std::path::Path::new(&fixture("walker-walk.vrma"))).expect("vrma");
    for file in ["walker-vrm1.vrm", "walker-vrm0.vrm", "walker-vrm1-gaze-expressions.vrm"] {
        let avatar = rigscope::import::load(std::path::Path::new(&fixture(file))).expect("avatar");
        let bound = rigscope::vrma::bind(&avatar, &anim, 0).expect("bind");
        // Both avatars have a bone lookAt, eye bones and no spring bones: nothing is left out.
        let expected_notes: &[&str] = if file == "walker-vrm0.vrm" {
            &["the avatar has no expression nod; its track is not played"]
        } else {
            &[]
        };
        assert_eq!(bound.notes, expected_notes, "{file}");
        let theirs =
            reference["files"].as_array().expect("files").iter().find(|f| f["file"] == file).expect("file");
        let stride = theirs["vertex_stride"].as_u64().expect("stride") as usize;
        let mut ws = rigscope::anim::Workspace::new(&avatar);
        let frames = theirs["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), 11);
        for frame in frames {
            let t = frame["t"].as_f64().expect("t") as f32;
            ws.evaluate(&avatar, Some(&bound.clip), t);
            // Each expression's weight as three-vrm holds it (the gaze sets the look ones on
            // the expression-type avatar).
            let play = bound.clip.vrm.as_deref().expect("VRM part");
            let weights = rigscope::anim::vrm_pose::weights_at(play, t);
            let theirs = frame["expressions"].as_object().expect("expressions");
            assert_eq!(theirs.len(), play.expressions.len(), "{file}");
            for (e, w) in play.expressions.iter().zip(&weights) {
                let b = theirs[&e.name].as_f64().expect("weight") as f32;
                assert!((w - b).abs() <= 1e-5, "{file} t={t} expression {}: {w} vs {b}", e.name);
            }
            let body = ws.primitives.iter().find(|p| p.node == 17).expect("body");
            let (mut lo, mut hi) = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
            for p in body.positions.iter() {
                lo = lo.min(*p);
                hi = hi.max(*p);
            }
            let tolerance = 1e-4 * (hi - lo).length();
            for (n, world) in frame["worlds"].as_array().expect("worlds").iter().enumerate() {
                let Some(world) = world.as_array() else { continue };
                for (a, b) in ws.globals[n].to_cols_array().iter().zip(world) {
                    let b = b.as_f64().expect("f") as f32;
                    assert!((a - b).abs() <= tolerance, "{file} t={t} node {n}: {a} vs {b}");
                }
            }
            // The body (skin and morph targets) and the eyes (turned by lookAt).
            let meshes = frame["meshes"].as_array().expect("meshes");
            assert_eq!(meshes.len(), 2);
            for mesh in meshes {
                let node = mesh["node"].as_u64().expect("node") as usize;
                let expected = mesh["positions"].as_array().expect("positions");
                let mine = &ws.primitives.iter().find(|p| p.node == node).expect("mesh").positions;
                assert_eq!(expected.len(), mine.len().div_ceil(stride));
                for (k, p) in expected.iter().enumerate() {
                    let v = mine[k * stride];
                    for (c, a) in v.to_array().iter().enumerate() {
                        let b = p[c].as_f64().expect("f") as f32;
                        assert!(
                            (a - b).abs() <= tolerance,
                            "{file} t={t} node {node} vertex {}: {v} vs {p}",
                            k * stride
                        );
                    }
                }
            }
        }
    }
}

/// The gaze track sweeps past the avatars' range maps, so the eyes stop at the maps' output
/// scales: at the largest yaw the left eye (VRM 1.0, outer map 18 degrees) and at the largest
/// negative yaw the inner map (12 degrees). Checked by hand from the specification's numbers.
#[test]
fn the_gaze_is_clamped_by_the_range_maps() {
    let anim = rigscope::import::load(std::path::Path::new(&fixture("walker-walk.vrma"))).expect("vrma");
    let avatar = rigscope::import::load(std::path::Path::new(&fixture("walker-vrm1.vrm"))).expect("avatar");
    let bound = rigscope::vrma::bind(&avatar, &anim, 0).expect("bind");
    let mut ws = rigscope::anim::Workspace::new(&avatar);
    // The track's yaw is 0.7 sin(2 pi t) radians (40 degrees at t = 0.25), its pitch
    // 0.35 sin(4 pi t) (0 at t = 0.25 and 0.75).
    let mut angle = |t: f32| {
        ws.evaluate(&avatar, Some(&bound.clip), t);
        let (axis, angle) = ws.pose.locals[18].rotation.to_axis_angle();
        (axis, angle.to_degrees())
    };
    let (axis, degrees) = angle(0.25);
    assert!((degrees - 18.0).abs() < 1e-3 && (axis.y - 1.0).abs() < 1e-4, "{axis} {degrees}");
    let (axis, degrees) = angle(0.75);
    assert!((degrees - 12.0).abs() < 1e-3 && (axis.y + 1.0).abs() < 1e-4, "{axis} {degrees}");
}

#[test]
fn the_committed_fixtures_are_what_the_generator_writes() {
    for (name, bytes) in rigscope::samplegen::vrm_fixtures() {
        let committed = std::fs::read(fixture(name)).expect("fixture");
        assert!(committed == bytes, "{name} differs: run `cargo run --example gen-samples`");
    }
}

#[test]
fn inspect_shows_what_a_vrma_node_is() {
    // From src/samplegen/vrma.rs: joints 0..=16 as in the avatars, happy 17, nod 18, lookAt 19.
    let doc = json_of(&["inspect", &fixture("walker-walk.vrma"), "--json"]);
    let map = &doc["vrm_animation"];
    assert_eq!(map["humanoid"].as_array().map(Vec::len), Some(17));
    let hips =
        map["humanoid"].as_array().expect("humanoid").iter().find(|b| b["bone"] == "hips").expect("hips");
    assert_eq!(hips["node"], 0);
    let expected = serde_json::json!([
        { "name": "happy", "preset": true, "node": 17 },
        { "name": "nod", "preset": false, "node": 18 },
    ]);
    assert_eq!(map["expressions"], expected);
    assert_eq!(map["look_at"], 19);
    let text = rigscope(&["inspect", &fixture("walker-walk.vrma")]).stdout;
    assert!(
        text.contains("VRM animation: 17 humanoid bones") && text.contains("lookAt: lookAt (node 19)"),
        "{text}"
    );
}

/// The same through the command line: `pose AVATAR --anim ANIM --json` (the shared `--anim`
/// path of issue 39) gives three-vrm's node world matrices and vertices at the 11 times.
#[test]
fn pose_with_anim_plays_a_vrma_as_three_vrm_does() {
    let path = format!("{}/tests/fixtures/vrm/three-vrm/three-vrm-walk.json", env!("CARGO_MANIFEST_DIR"));
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("reference")).expect("JSON");
    for theirs in reference["files"].as_array().expect("files") {
        let file = theirs["file"].as_str().expect("file");
        let stride = theirs["vertex_stride"].as_u64().expect("stride") as usize;
        let frames = theirs["frames"].as_array().expect("frames");
        let times: Vec<String> = frames.iter().map(|f| f["t"].as_f64().expect("t").to_string()).collect();
        let (avatar, anim) = (fixture(file), fixture("walker-walk.vrma"));
        let mut args = vec!["pose", &avatar, "--anim", &anim, "--json"];
        for t in &times {
            args.extend(["--time", t]);
        }
        let ours = json_of(&args);
        assert_eq!(ours["clip"]["name"], "walk (walker-walk.vrma)");
        for (mine, frame) in ours["frames"].as_array().expect("frames").iter().zip(frames) {
            let body =
                mine["meshes"].as_array().expect("meshes").iter().find(|m| m["node"] == 17).expect("body");
            let positions = body["positions"].as_array().expect("positions");
            let coords = |p: &Value| -> Vec<f64> { (0..3).map(|k| p[k].as_f64().expect("f")).collect() };
            let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
            for p in positions {
                for (k, x) in coords(p).into_iter().enumerate() {
                    lo[k] = lo[k].min(x);
                    hi[k] = hi[k].max(x);
                }
            }
            let tolerance = 1e-4 * (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
            for node in mine["nodes"].as_array().expect("nodes") {
                let n = node["node"].as_u64().expect("node") as usize;
                let world = frame["worlds"][n].as_array().expect("three-vrm world");
                for (a, b) in node["world"].as_array().expect("world").iter().zip(world) {
                    let (a, b) = (a.as_f64().expect("f"), b.as_f64().expect("f"));
                    assert!((a - b).abs() <= tolerance, "{file} t={} node {n}: {a} vs {b}", frame["t"]);
                }
            }
            for mesh in frame["meshes"].as_array().expect("meshes") {
                let node = &mesh["node"];
                let mine = mine["meshes"].as_array().expect("meshes").iter().find(|m| m["node"] == *node);
                let mine = mine.expect("mesh")["positions"].as_array().expect("positions");
                for (k, p) in mesh["positions"].as_array().expect("positions").iter().enumerate() {
                    for (a, b) in coords(&mine[k * stride]).into_iter().zip(coords(p)) {
                        assert!(
                            (a - b).abs() <= tolerance,
                            "{file} t={} node {node} vertex {}: {a} vs {b}",
                            frame["t"],
                            k * stride
                        );
                    }
                }
            }
        }
    }
}

/// `fit` on a .vrma speaks in humanoid terms: the walk has 15 humanoid tracks (14 rotations
/// and the hips translation; src/samplegen/walker.rs `walk`), 2 expression tracks and a gaze
/// track. The 0.x avatar's custom expression is `Nod`, not `nod`, so one expression is left
/// out there: a note, not a problem.
#[test]
fn fit_reports_a_vrma_binding_in_humanoid_terms() {
    let run = rigscope(&["fit", &fixture("walker-vrm1.vrm"), &fixture("walker-walk.vrma")]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("clip walk: 15 of 15 humanoid tracks bind, 2 of 2 expression tracks, lookAt played\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("tracks bind\n"), "{}", run.stdout);
    let run = rigscope(&["fit", &fixture("walker-vrm0.vrm"), &fixture("walker-walk.vrma")]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("15 of 15 humanoid tracks bind, 1 of 2 expression tracks"), "{}", run.stdout);
    assert!(run.stdout.contains("the avatar has no expression nod"), "{}", run.stdout);
    let doc = json_of(&["fit", &fixture("walker-vrm1.vrm"), &fixture("walker-walk.vrma"), "--json"]);
    let expected = serde_json::json!({
        "humanoid_tracks": 15, "humanoid_bound": 15, "expression_tracks": 2, "expressions_bound": 2,
        "expressions_inert": 0, "look_at_track": true, "look_at_played": true
    });
    assert_eq!(doc["libraries"][0]["clips"][0]["vrm"], expected);
    // Other libraries have no `vrm` object.
    let walker = crate::cli::sample("walker.glb");
    let doc = json_of(&["fit", &walker, &walker, "--json"]);
    assert!(doc["libraries"][0]["clips"][0].get("vrm").is_none());
}

#[test]
fn fit_reports_humanoid_bones_the_avatar_lacks() {
    let run = rigscope(&["fit", &fixture("walker-vrm1.vrm"), &fixture("walker-walk.vrma")]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // The walk moves leftFoot; an avatar without it is told so, as a problem.
    let (code, _) = check_broken("walker-vrm1.vrm", "fit", |j| j.replace(r#""leftFoot":{"node":13},"#, ""));
    assert_eq!(code, 1);
    let bytes = std::fs::read(fixture("walker-vrm1.vrm")).expect("fixture");
    let (json, bin) = split_glb(&bytes);
    let dir = std::env::temp_dir().join(format!("rigscope-vrm-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("no-foot.vrm");
    std::fs::write(&path, join_glb(&json.replace(r#""leftFoot":{"node":13},"#, ""), &bin)).expect("write");
    let run = rigscope(&["fit", path.to_str().expect("path"), &fixture("walker-walk.vrma")]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("the avatar has no leftFoot bone"), "{}", run.stdout);
}

/// The avatar with the walk attached as `--anim` attaches it, and an App paused on that clip.
fn viewer_on_the_walk(file: &str) -> rigscope::tui::App {
    let mut avatar = rigscope::import::load(std::path::Path::new(&fixture(file))).expect("avatar");
    let anim = rigscope::import::load(std::path::Path::new(&fixture("walker-walk.vrma"))).expect("vrma");
    rigscope::attach::attach(&mut avatar, &anim, "walker-walk.vrma", &Default::default()).expect("binds");
    let clip = avatar.clips.len() - 1;
    let launch = rigscope::tui::Launch {
        paused: true,
        color: rigscope::render::ColorDepth::None,
        clip: Some(clip),
        ..Default::default()
    };
    rigscope::tui::App::new(avatar, &launch)
}

/// The weights the .vrma's generator wrote (src/samplegen/vrma.rs) at key `k` of 24: happy
/// 0.5 - 0.5 sin(p + 1.2), nod 0.5 + 0.45 sin(p), p = 2 pi k / 24 (at a key, LINEAR is exact).
fn weights_at_key(k: u32) -> (f64, f64) {
    let p = std::f64::consts::TAU * f64::from(k) / 24.0;
    (0.5 - 0.5 * (p + 1.2).sin(), 0.5 + 0.45 * p.sin())
}

/// While the .vrma plays, the details panel lists every expression with its weight now, and
/// the weights follow the clip as it is scrubbed (one frame on with `.`). In the avatar's
/// order: rigscope reads VRM 1.0's expression objects sorted by name.
#[test]
fn the_details_panel_lists_the_expressions_as_the_clip_plays() {
    let mut a = viewer_on_the_walk("walker-vrm1.vrm");
    a.player.playback.time = 6.0 / 24.0;
    let s = super::tui::screen(&mut a, 200, 50);
    let (happy, nod) = weights_at_key(6);
    let line = format!("express. blink 0.000, happy {happy:.3}, nod {nod:.3}");
    assert!(s.contains(&line), "{line}\n{s}");
    assert!(!s.contains("spring bones"), "{s}");
    // The fit lines speak of the humanoid binding (the hips are selected).
    assert!(s.contains("clip from walker-walk.vrma (VRM animation)"), "{s}");
    assert!(s.contains("this node: moved by its humanoid track"), "{s}");
    super::tui::press(&mut a, ".");
    assert!((a.player.playback.time - 7.0 / 24.0).abs() < 1e-5, "{}", a.player.playback.time);
    let s = super::tui::screen(&mut a, 200, 50);
    let (happy, nod) = weights_at_key(7);
    let line = format!("express. blink 0.000, happy {happy:.3}, nod {nod:.3}");
    assert!(s.contains(&line), "{line}\n{s}");
    // VRM 0.x: the groups under three-vrm's names (Joy is happy), the custom one as named.
    // The spring avatar: the walker VRM 0.x file with hair and tail chains.
    let mut a = viewer_on_the_walk("walker-springs-vrm0.vrm");
    a.player.playback.time = 6.0 / 24.0;
    let s = super::tui::screen(&mut a, 200, 50);
    let (happy, _) = weights_at_key(6);
    assert!(s.contains(&format!("express. happy {happy:.3}, blink 0.000, Nod 0.000")), "{s}");
    assert!(s.contains("spring bones are not simulated"), "{s}");
}

/// The real viewer in tmux: `rigscope AVATAR --anim ANIM` lists the expressions in the
/// details panel while the .vrma plays (paused at 0: the generator's weights at key 0).
#[test]
fn tmux_shows_the_expressions_of_a_playing_vrma() {
    let Some(tmux) = super::tmux::Tmux::new("the tmux VRM expressions test") else { return };
    let bin = env!("CARGO_BIN_EXE_rigscope");
    let cmd = format!(
        "{bin} {} --anim {} --paused; sleep 30",
        fixture("walker-vrm1.vrm"),
        fixture("walker-walk.vrma")
    );
    tmux.start("vrm", 200, 50, &cmd);
    let (happy, nod) = weights_at_key(0);
    let line = format!("blink 0.000, happy {happy:.3}, nod {nod:.3}");
    tmux.wait_for("vrm", &["express.", &line]);
    tmux.run(&["send-keys", "-t", "vrm", "q"]);
}

#[test]
fn the_help_names_vrm_avatars_and_vrma_animations() {
    let viewer = rigscope(&["--help"]);
    assert_eq!(viewer.code, 0, "{}", viewer.stderr);
    let file = viewer.stdout.split("[FILE]").nth(2).unwrap_or_default();
    assert!(file.trim_start().starts_with("A .gltf, .glb or .vrm file"), "{}", viewer.stdout);
    for command in ["pose", "render", "record", "inspect", "normalize", "fit", "merge", "diff"] {
        let help = rigscope(&["help", command]).stdout;
        assert!(help.contains(".vrm"), "{command}: {help}");
    }
    for command in ["pose", "render", "record", "fit", "merge"] {
        let help = rigscope(&["help", command]).stdout;
        assert!(help.contains(".vrma"), "{command} --anim or LIB does not name .vrma: {help}");
    }
}
