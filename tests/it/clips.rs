//! `--anim LIB`: clips from another file, bound as three.js binds them and retargeted by
//! skinning.md's formula. The three.js figures come from `tests/fixtures/clips/oracle.mjs`
//! (three r187 itself, run in Node on the committed fixtures), not from rigscope.

use glam::Quat;
use rigscope::Rig;
use rigscope::anim::{Pose, sample as sample_clip};
use rigscope::attach::{AnimSet, BindOptions, load_with_anims};
use rigscope::rig::Clip;
use serde_json::Value;

use super::cli::{rigscope, sample};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/clips/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The oracle's paths are relative to the fixture folder.
fn oracle_path(rel: &str) -> String {
    format!("{}/tests/fixtures/clips/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn oracle() -> Value {
    let text = std::fs::read_to_string(fixture("oracle.json")).expect("oracle.json");
    serde_json::from_str(&text).expect("oracle.json parses")
}

pub(crate) fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number")).collect()
}

/// The diagonal of the box around every deformed vertex of the character's rest pose.
pub(crate) fn rest_diagonal(character: &str) -> f64 {
    let run = rigscope(&["pose", character, "--rest", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for mesh in doc["frames"][0]["meshes"].as_array().expect("meshes") {
        for p in mesh["positions"].as_array().expect("positions") {
            for (k, x) in floats(p).into_iter().enumerate() {
                lo[k] = lo[k].min(x);
                hi[k] = hi[k].max(x);
            }
        }
    }
    (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn pose_with_anim_equals_three_js_animation_mixer() {
    equals_three_js(&oracle(), &oracle_path(""));
}

/// Clips across the third-party rigs of `$RIGSCOPE_ASSETS` (partly matching Cesium skeletons,
/// and a library on a fox it was not made for): `oracle-assets.mjs`'s record of three.js.
#[test]
fn pose_with_anim_equals_three_js_on_third_party_rigs() {
    let Some(dir) = super::assets::assets_dir() else { return };
    let text = std::fs::read_to_string(fixture("oracle-assets.json")).expect("oracle-assets.json");
    let oracle: Value = serde_json::from_str(&text).expect("parses");
    equals_three_js(&oracle, &format!("{}/", dir.display()));
    fit_equals_three_js(&oracle, &format!("{}/", dir.display()));
}

/// `pose --anim LIB --clip C --json` at the oracle's times against three.js's node world
/// matrices and skinned positions; paths in the oracle are relative to `base`.
fn equals_three_js(oracle: &Value, base: &str) {
    assert_eq!(oracle["three"], "187");
    for case in oracle["cases"].as_array().expect("cases") {
        let character = format!("{base}{}", case["character"].as_str().expect("character"));
        let lib = format!("{base}{}", case["lib"].as_str().expect("lib"));
        let clip = case["clip"].as_str().expect("clip");
        let diagonal = rest_diagonal(&character);
        let tol = 1e-4 * diagonal;
        let frames = case["frames"].as_array().expect("frames");
        let times: Vec<String> = frames.iter().map(|f| f["t"].as_f64().expect("t").to_string()).collect();
        let mut args = vec!["pose", &character, "--anim", &lib, "--clip", clip, "--json"];
        for t in &times {
            args.extend(["--time", t]);
        }
        let run = rigscope(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout).expect("json");
        let lib_name = std::path::Path::new(&lib).file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(doc["clip"]["name"], format!("{clip} ({lib_name})"));
        let ours = doc["frames"].as_array().expect("frames");
        assert_eq!(ours.len(), frames.len());
        for (theirs, ours) in frames.iter().zip(ours) {
            let t = &theirs["t"];
            for node in ours["nodes"].as_array().expect("nodes") {
                let index = node["node"].as_u64().expect("index").to_string();
                let want = floats(&theirs["worlds"][&index]);
                let got = floats(&node["world"]);
                for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                    // Columns 0-2 are rotation and scale (unitless); column 3 is position.
                    let limit = if k >= 12 { tol } else { 1e-4 };
                    assert!(
                        (a - b).abs() <= limit,
                        "{clip} on {character} t={t} node {index}[{k}]: {a} vs three.js {b}"
                    );
                }
            }
            let meshes = ours["meshes"].as_array().expect("meshes");
            let checked = theirs["positions"].as_array().expect("positions");
            assert!(!checked.is_empty());
            for p in checked {
                let node = p["node"].as_u64().expect("node");
                let vertex = p["vertex"].as_u64().expect("vertex") as usize;
                let mesh = meshes.iter().find(|m| m["node"].as_u64() == Some(node)).expect("mesh of node");
                let got = floats(&mesh["positions"][vertex]);
                let want = floats(&p["p"]);
                let d = (0..3).map(|k| (got[k] - want[k]).powi(2)).sum::<f64>().sqrt();
                assert!(d <= tol, "{clip} t={t} vertex {vertex}: {got:?} vs three.js {want:?}");
            }
        }
    }
}

/// Every node's world rotation at `t`: the rotation of its world matrix with the scale
/// divided out (skinning.md's `W`; `idle` scales `chest` unevenly, which turns the columns of
/// the joints below it), from the pose walk rather than from retargeting's own terms.
fn world_rotations(rig: &Rig, clip: Option<&Clip>, t: f32) -> Vec<Quat> {
    let mut pose = Pose::rest(rig);
    if let Some(clip) = clip {
        sample_clip(clip, t, &mut pose);
    }
    let mut globals = vec![glam::Mat4::IDENTITY; rig.nodes.len()];
    rigscope::anim::compute_globals(rig, &pose, &mut globals);
    globals.iter().map(|m| m.to_scale_rotation_translation().1).collect()
}

/// The angle of `a * inverse(b)`, accurate for tiny angles.
fn angle_between(a: Quat, b: Quat) -> f32 {
    let d = a * b.inverse();
    2.0 * d.xyz().length().atan2(d.w.abs())
}

#[test]
fn retarget_rest_turns_each_joint_from_its_rest_as_the_source_does() {
    let mut character = rigscope::load(std::path::Path::new(&sample("walker.glb"))).expect("walker");
    let source = rigscope::load(std::path::Path::new(&fixture("apose.glb"))).expect("apose");
    let set = AnimSet {
        files: vec![fixture("apose.glb").into()],
        options: BindOptions {
            retarget: Some(rigscope::attach::body::ReferencePose::Rest),
            ..BindOptions::default()
        },
    };
    load_with_anims(&mut character, &set).expect("binds");
    let rest_t = world_rotations(&character, None, 0.0);
    let rest_s = world_rotations(&source, None, 0.0);
    for (k, attached) in character.attached.iter().enumerate() {
        let clip = &character.clips[attached.clip];
        let source_clip = &source.clips[k];
        assert!(attached.unbound.is_empty(), "{:?}", attached.unbound);
        // Every node the clip animates has its namesake on the character: those are bound.
        let mut animated: Vec<usize> = source_clip.channels.iter().map(|c| c.node).collect();
        animated.sort_unstable();
        animated.dedup();
        let pairs: Vec<(usize, usize)> = animated
            .into_iter()
            .map(|s| {
                let name = source.nodes[s].name.clone().expect("named");
                let j =
                    character.nodes.iter().position(|n| n.name.as_deref() == Some(&name)).expect("namesake");
                (j, s)
            })
            .collect();
        let mut worst = 0.0f32;
        // Key times and times between keys (the clips' keys are 1/24 s apart).
        for i in 0..=53 {
            let t = source_clip.duration * i as f32 / 53.0;
            let on_t = world_rotations(&character, Some(clip), t);
            let on_s = world_rotations(&source, Some(source_clip), t);
            for &(j, s) in &pairs {
                let d_t = on_t[j] * rest_t[j].inverse();
                let d_s = on_s[s] * rest_s[s].inverse();
                worst = worst.max(angle_between(d_t, d_s));
            }
        }
        assert!(worst <= 1e-5, "{}: worst joint differs by {worst} rad", attached.name);
    }
    // Played raw, the same clip leaves the arms 38 degrees off their source's turn.
    let mut raw = rigscope::load(std::path::Path::new(&sample("walker.glb"))).expect("walker");
    load_with_anims(&mut raw, &AnimSet { files: vec![fixture("apose.glb").into()], ..AnimSet::default() })
        .expect("binds");
    let clip = &raw.clips[raw.attached[0].clip];
    let arm = raw.nodes.iter().position(|n| n.name.as_deref() == Some("upper_arm.L")).expect("arm");
    let on_t = world_rotations(&raw, Some(clip), 0.0);
    let on_s = world_rotations(&source, Some(&source.clips[0]), 0.0);
    let d_t = on_t[arm] * rest_t[arm].inverse();
    let d_s = on_s[arm] * rest_s[arm].inverse();
    assert!((angle_between(d_t, d_s).to_degrees() - 38.0).abs() < 0.5);
}

#[test]
fn clip_names_select_library_clips_and_bad_anim_files_exit_2() {
    let walker = sample("walker.glb");
    let lib = fixture("anims.glb");
    // "walk" is the character's own clip too; with --anim it names the library's.
    let run = rigscope(&["pose", &walker, "--anim", &lib, "--clip", "walk", "--json", "--time", "0"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("\"name\":\"walk (anims.glb)\""), "{}", &run.stdout[..200]);
    // Without --clip, the library's first clip.
    let run = rigscope(&["pose", &walker, "--anim", &lib, "--json", "--time", "0"]);
    assert!(run.stdout.contains("\"name\":\"walk (anims.glb)\""), "{}", &run.stdout[..200]);
    let run = rigscope(&["pose", &walker, "--anim", &lib, "--clip", "#0", "--json", "--time", "0"]);
    assert!(run.stdout.contains("\"name\":\"walk\""), "{}", &run.stdout[..200]);
    let run = rigscope(&["pose", &walker, "--anim", "no-such.glb"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no-such.glb"), "{}", run.stderr);
    let run = rigscope(&["render", &walker, "--map", &lib]);
    assert_eq!(run.code, 2);
    let run = rigscope(&["pose", &walker, "--anim", &lib, "--map", &lib]);
    assert_eq!(run.code, 2, "a binary file is no name map");
    assert!(run.stderr.contains("anims.glb"), "{}", run.stderr);
}

#[test]
fn fit_lists_exactly_the_tracks_three_js_warns_about() {
    fit_equals_three_js(&oracle(), &oracle_path(""));
}

fn fit_equals_three_js(oracle: &Value, base: &str) {
    for case in oracle["cases"].as_array().expect("cases") {
        let character = format!("{base}{}", case["character"].as_str().expect("character"));
        let lib = format!("{base}{}", case["lib"].as_str().expect("lib"));
        let clip = case["clip"].as_str().expect("clip");
        let run = rigscope(&["fit", &character, &lib, "--json"]);
        let doc: Value = serde_json::from_str(&run.stdout).expect("fit json");
        let clips = doc["libraries"][0]["clips"].as_array().expect("clips");
        let ours = clips.iter().find(|c| c["name"] == clip).expect("clip in report");
        assert_eq!(ours["unbound"], case["warnings"], "{clip} of {lib} on {character}");
        // Unbound tracks are said (a note when every skinned joint is still driven, else a
        // problem); problems alone set exit 1.
        let warned = !case["warnings"].as_array().expect("warnings").is_empty();
        let (problems, notes) =
            (doc["problems"].as_u64().expect("problems"), doc["notes"].as_u64().expect("notes"));
        assert!(!warned || problems + notes > 0, "{}", run.stdout);
        assert_eq!(run.code, if problems > 0 { 1 } else { 0 }, "{}", run.stdout);
    }
}

#[test]
fn loose_binding_plays_mixamo_names_as_the_characters_own_clip() {
    let walker = sample("walker.glb");
    let mixamo = fixture("mixamo.glb");
    let fit = rigscope(&["fit", &walker, &mixamo, "--bind", "loose", "--json"]);
    assert_eq!(fit.code, 0, "{}", fit.stdout);
    let doc: Value = serde_json::from_str(&fit.stdout).expect("json");
    let walk = &doc["libraries"][0]["clips"][0];
    assert_eq!(walk["unbound"].as_array().map(Vec::len), Some(0));
    assert!(walk["bound"].as_array().expect("bound").iter().all(|b| b["how"] == "prefix"));
    let worlds = |args: &[&str]| -> Vec<Value> {
        let run = rigscope(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout).expect("json");
        doc["frames"].as_array().expect("frames").iter().map(|f| f["nodes"].clone()).collect()
    };
    let own = worlds(&["pose", &walker, "--clip", "#0", "--json", "--no-positions"]);
    let bound = worlds(&[
        "pose",
        &walker,
        "--anim",
        &mixamo,
        "--bind",
        "loose",
        "--clip",
        "walk",
        "--json",
        "--no-positions",
    ]);
    assert_eq!(own, bound);
    // By default (three.js's rule) nothing binds and the character stays at rest.
    let exact = worlds(&["pose", &walker, "--anim", &mixamo, "--clip", "walk", "--json", "--no-positions"]);
    let rest = worlds(&["pose", &walker, "--rest", "--json", "--no-positions"]);
    assert!(exact.iter().all(|f| *f == rest[0]));
    // A map binds what the rules would not, and says so.
    let (_guard, dir) = super::temp::folder("clips-map");
    let map = dir.join("names.txt");
    std::fs::write(&map, "# Mixamo to walker\nmixamorig:hips\thips\nmixamorig:spine spine\n").expect("map");
    let fit = rigscope(&["fit", &walker, &mixamo, "--map", map.to_str().expect("utf-8"), "--json"]);
    let doc: Value = serde_json::from_str(&fit.stdout).expect("json");
    let bound = doc["libraries"][0]["clips"][0]["bound"].as_array().expect("bound").clone();
    assert_eq!(bound.len(), 3, "{bound:?}");
    assert!(bound.iter().all(|b| b["how"] == "map"));
}

#[test]
fn fit_explains_a_rest_pose_mismatch_and_retargeting_answers_it() {
    let walker = sample("walker.glb");
    let apose = fixture("apose.glb");
    // apose.glb's keys are turned with its arms: raw values swing the walker's arms as the
    // library's, so fit measures raw binding right and advises it.
    let run = rigscope(&["fit", &walker, &apose, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let lib = &doc["libraries"][0];
    let arm = lib["rest"]
        .as_array()
        .expect("rest")
        .iter()
        .find(|r| r["joint"] == "upper_arm.L")
        .expect("arm")
        .clone();
    // make.mjs turned the arm's rest by 38 degrees about Z.
    assert!((arm["rotation_degrees"].as_f64().expect("angle") - 38.0).abs() < 0.01, "{arm}");
    let said = |doc: &Value, start: &str| {
        doc["libraries"][0]["summary"]
            .as_array()
            .expect("summary")
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with(start)))
    };
    assert!(said(&doc, "advice: play raw"), "{}", run.stdout);
    // Retargeted, each arm keeps the walker's own rest, 38 degrees from the library's.
    let run = rigscope(&["fit", &walker, &apose, "--retarget=rest", "--json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let worst = &doc["libraries"][0]["retarget"]["retargeted"]["worst_limb"];
    assert!((worst["degrees"].as_f64().expect("degrees") - 38.0).abs() < 0.5, "{worst}");
    let problems = doc["libraries"][0]["problems"].as_array().expect("problems");
    assert!(problems.iter().any(|p| p.as_str().is_some_and(|p| p.ends_with("so leave --retarget=rest off"))));
    // The pose comes only after `=`: a LIB right after the flag is a file, and a pose
    // written with a space is named as such instead of "no such file".
    let run = rigscope(&["fit", &walker, "--retarget", &apose, "--json"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(doc["libraries"][0]["file"], "apose.glb", "{}", run.stderr);
    let run = rigscope(&["fit", &walker, &apose, "--retarget", "rest"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("rest: no such file; to retarget from the rest pose write --retarget=rest"),
        "{}",
        run.stderr
    );
}

#[test]
fn animation_pointer_channels_bind_to_nothing_as_in_three_js_gltf_loader() {
    let pointer = |name: &str| format!("{}/tests/fixtures/pointer/{name}", env!("CARGO_MANIFEST_DIR"));
    let (core, pointers) = (pointer("swing-core.gltf"), pointer("swing-pointer.gltf"));
    let bound = |lib: &str| -> usize {
        let run = rigscope(&["fit", &core, lib, "--json"]);
        assert_eq!(run.code, 0, "{}", run.stdout);
        let doc: Value = serde_json::from_str(&run.stdout).expect("json");
        let clip = &doc["libraries"][0]["clips"][0];
        assert_eq!(clip["unbound"].as_array().map(Vec::len), Some(0));
        clip["bound"].as_array().expect("bound").len()
    };
    // The same clip: core targets bind (rotation, translation, two weights channels);
    // GLTFLoader reads no KHR_animation_pointer channel, so neither does --anim.
    assert_eq!(bound(&core), 4);
    assert_eq!(bound(&pointers), 0);
}
