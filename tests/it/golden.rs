//! Values computed by hand from the description of the samples, compared with what
//! `rigscope pose --json` prints. The expected numbers never go through rigscope's matrices.

use serde_json::Value;

use super::cli::{rigscope, sample};

/// The seed arm's outline, weights and bone offsets exactly as the design describes them.
const OUTLINE: [[f64; 2]; 13] = [
    [-0.1, 0.05],
    [0.1, 0.05],
    [0.3, 0.05],
    [0.45, 0.06],
    [0.6, 0.15],
    [0.65, 0.1],
    [0.5, 0.0],
    [0.65, -0.1],
    [0.6, -0.15],
    [0.45, -0.06],
    [0.3, -0.05],
    [0.1, -0.05],
    [-0.1, -0.05],
];
/// Bones: 0 root, 1 b1, 2 b2, 3 b31, 4 b32.
const WEIGHTS: [&[(usize, f64)]; 13] = [
    &[(0, 1.0)],
    &[(0, 0.5), (1, 0.5)],
    &[(1, 0.5), (2, 0.5)],
    &[(2, 0.3), (3, 0.7)],
    &[(2, 0.2), (3, 0.8)],
    &[(3, 1.0)],
    &[(3, 0.5), (4, 0.5)],
    &[(4, 1.0)],
    &[(2, 0.2), (4, 0.8)],
    &[(2, 0.3), (4, 0.7)],
    &[(1, 0.5), (2, 0.5)],
    &[(0, 0.5), (1, 0.5)],
    &[(0, 1.0)],
];

/// Piecewise-linear interpolation through (time, value) keys, clamped at both ends.
fn lerp_keys(keys: &[(f64, f64)], t: f64) -> f64 {
    if t <= keys[0].0 {
        return keys[0].1;
    }
    for w in keys.windows(2) {
        let ((t0, v0), (t1, v1)) = (w[0], w[1]);
        if t <= t1 {
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
        }
    }
    keys[keys.len() - 1].1
}

/// World positions of the five bones when b1 is offset by `b1_y` in y and b32 sits at
/// `b32_x` along x from b2: sums of the local offsets down the chain (no rotations).
fn bone_positions(b1_y: f64, b32_x: f64) -> [[f64; 2]; 5] {
    let root = [0.0, 0.0];
    let b1 = [root[0] + 0.2, root[1] + b1_y];
    let b2 = [b1[0] + 0.2, b1[1]];
    let b31 = [b2[0] + 0.2, b2[1] + 0.1];
    let b32 = [b2[0] + b32_x, b2[1] - 0.1];
    [root, b1, b2, b31, b32]
}

#[test]
fn seed_arm_translation_clip_moves_each_vertex_by_its_weighted_bone_offsets() {
    let times = [0.0, 0.25, 0.5, 0.8, 1.0, 1.3, 1.75, 2.0, 3.0, -1.0];
    let mut args = vec![
        "pose".to_string(),
        sample("seed-arm.gltf"),
        "--clip".into(),
        "translate".into(),
        "--json".into(),
    ];
    for t in times {
        args.push(format!("--time={t}"));
    }
    let out = rigscope(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).expect("pose JSON");
    assert_eq!(doc["clip"]["name"], "translate");
    let bind = bone_positions(0.0, 0.2);
    for (frame, &t) in doc["frames"].as_array().expect("frames").iter().zip(&times) {
        // The clip's keys, as the issue describes them: b1 y 0, 0.2, 0, -0.2, 0 at 0..2 s
        // every 0.5 s; b32 x 0.2 -> 0.4 -> 0.2 at 0, 1, 2 s.
        let b1_y = lerp_keys(&[(0.0, 0.0), (0.5, 0.2), (1.0, 0.0), (1.5, -0.2), (2.0, 0.0)], t);
        let b32_x = lerp_keys(&[(0.0, 0.2), (1.0, 0.4), (2.0, 0.2)], t);
        let now = bone_positions(b1_y, b32_x);
        let meshes = frame["meshes"].as_array().expect("meshes");
        assert_eq!(meshes.len(), 1);
        assert_eq!(meshes[0]["skinned"], true);
        let got = meshes[0]["positions"].as_array().expect("positions");
        assert_eq!(got.len(), 13);
        for (v, p) in got.iter().enumerate() {
            let mut expect = [OUTLINE[v][0], OUTLINE[v][1]];
            for &(bone, w) in WEIGHTS[v] {
                expect[0] += w * (now[bone][0] - bind[bone][0]);
                expect[1] += w * (now[bone][1] - bind[bone][1]);
            }
            let p: Vec<f64> =
                p.as_array().expect("xyz").iter().map(|x| x.as_f64().expect("number")).collect();
            let err = (p[0] - expect[0]).abs().max((p[1] - expect[1]).abs()).max(p[2].abs());
            assert!(err < 1e-6, "t={t} vertex {v}: got {p:?}, expected {expect:?}");
        }
        // The bones themselves: world translation of nodes 0..4 equals the chain sums.
        let nodes = frame["nodes"].as_array().expect("nodes");
        for (bone, expect) in now.iter().enumerate() {
            let world = &nodes[bone]["world"];
            let (x, y) = (world[12].as_f64().expect("x"), world[13].as_f64().expect("y"));
            assert!((x - expect[0]).abs() < 1e-6 && (y - expect[1]).abs() < 1e-6, "t={t} bone {bone}");
            assert_eq!(nodes[bone]["joint"], true);
        }
    }
}

#[test]
fn seed_arm_bend_clip_rotates_b1_about_z_by_the_keyed_angle() {
    // At t = 0.5 b1 has swung half way to +30 degrees (slerp of a single-axis rotation is
    // linear in the angle): 15 degrees about z; b2 15 + 22.5 = 37.5 degrees in world.
    let out = rigscope(&["pose", &sample("seed-arm.gltf"), "--clip", "bend", "--time", "0.5", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).expect("pose JSON");
    let nodes = &doc["frames"][0]["nodes"];
    let angle = |node: usize| {
        let w = &nodes[node]["world"];
        // Column 0 is the rotated x axis: (cos a, sin a).
        w[1].as_f64().expect("m10").atan2(w[0].as_f64().expect("m00")).to_degrees()
    };
    assert!((angle(1) - 15.0).abs() < 1e-4, "b1 {}", angle(1));
    assert!((angle(2) - 37.5).abs() < 1e-4, "b2 {}", angle(2));
    // b2 sits 0.2 along b1's rotated x axis from b1 (which sits at (0.2, 0)).
    let a = 15f64.to_radians();
    let w = &nodes[2]["world"];
    let (x, y) = (w[12].as_f64().expect("x"), w[13].as_f64().expect("y"));
    assert!((x - (0.2 + 0.2 * a.cos())).abs() < 1e-6 && (y - 0.2 * a.sin()).abs() < 1e-6);
}
