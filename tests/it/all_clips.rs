//! `--clip all`: every clip of the file at once, each channel from its own clip. Checked
//! against each clip played alone, and against the keys written into the file by hand.

use glam::{DQuat, DVec3};
use rigscope::samplegen::builder::{GltfBuilder, Interpolation, Track};
use serde_json::Value;

use super::cli::rigscope;

/// Three nodes under a root; `bend` turns `arm` (1 s), `lift` moves `leg` (2 s), `late` moves
/// `leg` again and `tail` (1.5 s): `leg` is in two clips, so under `all` the later one drives it.
fn three_clips() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("root", None, DVec3::ZERO, DQuat::IDENTITY);
    let arm = b.node("arm", Some(root), DVec3::new(1.0, 0.0, 0.0), DQuat::IDENTITY);
    let leg = b.node("leg", Some(root), DVec3::new(0.0, -1.0, 0.0), DQuat::IDENTITY);
    let tail = b.node("tail", Some(root), DVec3::new(0.0, 0.0, -1.0), DQuat::IDENTITY);
    let quarter = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    b.animation(
        "bend",
        &[Track::rotations(arm, Interpolation::Linear, &[0.0, 1.0], &[DQuat::IDENTITY, quarter])],
    );
    b.animation("lift", &[Track::translations(leg, &[0.0, 2.0], &[DVec3::new(0.0, -1.0, 0.0), DVec3::ZERO])]);
    b.animation(
        "late",
        &[
            Track::translations(leg, &[0.0, 1.5], &[DVec3::new(5.0, 0.0, 0.0), DVec3::new(8.0, 0.0, 0.0)]),
            Track::translations(tail, &[0.0, 1.5], &[DVec3::new(0.0, 0.0, -1.0), DVec3::new(0.0, 0.0, -4.0)]),
        ],
    );
    b.to_glb()
}

/// Each node's world matrix at each time, by node name.
fn worlds(file: &str, clip: &str, times: &[&str]) -> Vec<Vec<(String, Vec<f64>)>> {
    let mut args = vec!["pose", file, "--json", "--no-positions", "--clip", clip];
    for t in times {
        args.extend(["--time", t]);
    }
    let run = rigscope(&args);
    assert_eq!(run.code, 0, "{clip}: {}", run.stderr);
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
                .map(|n| {
                    let world = n["world"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
                    (n["name"].as_str().unwrap_or_default().to_string(), world)
                })
                .collect()
        })
        .collect()
}

fn world_of<'a>(frame: &'a [(String, Vec<f64>)], name: &str) -> &'a [f64] {
    &frame.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} posed")).1
}

#[test]
fn every_joint_under_all_equals_that_joint_under_its_own_clip() {
    let (_guard, dir) = super::temp::folder("all-clips");
    let file = dir.join("three.glb");
    std::fs::write(&file, three_clips()).expect("write");
    let file = file.to_str().unwrap();
    let times = ["0", "0.5", "1", "1.25", "2"];
    let all = worlds(file, "all", &times);
    // Whose clip drives each node under `all`: `leg` is in `lift` and `late`, the later wins.
    for (node, own) in [("arm", "bend"), ("leg", "late"), ("tail", "late"), ("root", "bend")] {
        let alone = worlds(file, own, &times);
        for (k, t) in times.iter().enumerate() {
            assert_eq!(world_of(&all[k], node), world_of(&alone[k], node), "{node} at {t}");
        }
    }
    // By hand: at 0.5 s `arm` is half-way to a quarter turn about z (cos 45 deg in the
    // matrix's first column), `leg` 1/3 of the way from x = 5 to 8, `tail` at z = -2.
    let half = world_of(&all[1], "arm");
    assert!((half[0] - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-6, "{half:?}");
    assert!((world_of(&all[1], "leg")[12] - 6.0).abs() < 1e-6);
    assert!((world_of(&all[1], "tail")[14] + 2.0).abs() < 1e-6);
    // After `late` ends (1.5 s) its last keys hold, as each clip alone holds them.
    assert!((world_of(&all[4], "leg")[12] - 8.0).abs() < 1e-6);

    let run = rigscope(&["pose", file, "--json", "--no-positions", "--clip", "all"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(doc["clip"]["name"], "all");
    assert_eq!(doc["clip"]["duration"], 2.0, "the longest clip's length");

    let render = rigscope(&["render", file, "--clip", "all", "--time", "0.5"]);
    assert_eq!(render.code, 0, "{}", render.stderr);
    let cast = dir.join("all.cast");
    let record = rigscope(&["record", file, "--clip", "all", "-o", cast.to_str().unwrap()]);
    assert_eq!(record.code, 0, "{}", record.stderr);
    assert!(cast.exists());
}

/// InterpolationTest: nine clips, each moving its own node (the case COLLADA2GLTF writes).
#[test]
fn all_clips_of_a_one_clip_per_node_file_match_each_clip_alone() {
    let Some(dir) = super::assets::assets_dir() else { return };
    let file = dir.join("InterpolationTest/InterpolationTest.gltf");
    let file = file.to_str().unwrap();
    let times = ["0", "0.2", "0.3", "0.6", "0.7", "1.1", "1.2", "1.5", "1.7"];
    let all = worlds(file, "all", &times);
    let names = ["Step Scale", "Linear Scale", "CubicSpline Scale", "Step Rotation", "Linear Translation"];
    for clip in names {
        let alone = worlds(file, clip, &times);
        // The node that clip moves is the one whose matrix changes over it.
        let moved: Vec<&String> = alone[0]
            .iter()
            .filter(|(n, w)| alone.iter().any(|f| world_of(f, n) != w.as_slice()))
            .map(|(n, _)| n)
            .collect();
        assert_eq!(moved.len(), 1, "{clip} moves one node: {moved:?}");
        for k in 0..times.len() {
            assert_eq!(world_of(&all[k], moved[0]), world_of(&alone[k], moved[0]), "{clip} at {}", times[k]);
        }
    }
}
