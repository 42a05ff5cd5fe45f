//! `rigscope pose --json` against a plain evaluation written here in f64: the stateless
//! sampler (`anim::sample`: a binary search per channel, nothing baked or cached), each
//! node's world matrix by walking up its parents, and every skinned vertex as the spec's
//! sum over influences of `world(joint) * inverseBind * position`. The viewer's pipeline is
//! optimised stage by stage (baked tracks, a cached 3x4 walk, the AVX2 kernel, the rayon
//! pool); whatever it does, the printed numbers must stay within f32 rounding of these:
//! 1e-5 relative to each value's magnitude.

use glam::{DMat4, DVec3};
use rigscope::Rig;
use rigscope::anim::{Pose, sample};
use serde_json::Value;

use super::assets::assets_dir;
use super::cli::{rigscope, sample as sample_path};

const TOLERANCE: f64 = 1e-5;

/// Every node's world matrix at `pose`, in f64, each from its own chain of parents.
fn worlds(rig: &Rig, pose: &Pose) -> Vec<DMat4> {
    let local = |i: usize| -> DMat4 {
        match (pose.use_matrix[i], rig.nodes[i].matrix) {
            (true, Some(m)) => m.as_dmat4(),
            _ => {
                let l = &pose.locals[i];
                DMat4::from_scale_rotation_translation(
                    l.scale.as_dvec3(),
                    l.rotation.as_dquat().normalize(),
                    l.translation.as_dvec3(),
                )
            }
        }
    };
    (0..rig.nodes.len())
        .map(|mut i| {
            let mut world = local(i);
            while let Some(parent) = rig.nodes[i].parent {
                world = local(parent) * world;
                i = parent;
            }
            world
        })
        .collect()
}

/// The deformed positions of `prim` on `node` (no morph targets): skinned by the spec's
/// formula (the mesh node's own transform ignored), else moved by the node's world matrix.
/// Influences the program skips by its documented policy (joint past the skin, NaN or
/// infinite weight) are skipped here too.
fn positions(rig: &Rig, worlds: &[DMat4], node: usize, prim: &rigscope::rig::Primitive) -> Vec<DVec3> {
    let skin = rig.nodes[node].skin.and_then(|s| rig.skins.get(s)).filter(|_| prim.is_skinned());
    (0..prim.positions.len())
        .map(|v| {
            let p = prim.positions[v].as_dvec3();
            let Some(skin) = skin else { return worlds[node].transform_point3(p) };
            let mut out = DVec3::ZERO;
            for (j, w) in prim.influences_of(v) {
                let j = usize::from(j);
                if j >= skin.joints.len() || !w.is_finite() {
                    continue;
                }
                let joint = worlds[skin.joints[j]] * skin.inverse_bind[j].as_dmat4();
                out += f64::from(w) * joint.transform_point3(p);
            }
            out
        })
        .collect()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(|x| x.as_f64().expect("a number")).collect()
}

/// Largest difference between `got` and `want` relative to `want`'s magnitude (at least
/// `floor`, so values near zero are judged against the scale they live at).
fn relative_error(got: &[f64], want: &[f64], floor: f64) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(floor, |m, x| m.max(x.abs()));
    got.iter().zip(want).map(|(g, w)| (g - w).abs() / scale).fold(0.0, f64::max)
}

/// Checks every clip of `path` at three times (a key time, between keys, near the end).
fn check_file(path: &str) {
    let rig = rigscope::load(std::path::Path::new(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut vertices_checked = 0;
    let clips: Vec<Option<usize>> =
        if rig.clips.is_empty() { vec![None] } else { (0..rig.clips.len()).map(Some).collect() };
    for clip in clips {
        let duration = clip.map_or(0.0, |c| rig.clips[c].duration);
        let times = [0.0, 0.37 * duration, 0.93 * duration];
        let mut args = vec!["pose".to_string(), path.to_string(), "--json".to_string()];
        if let Some(c) = clip {
            args.extend(["--clip".to_string(), c.to_string()]);
        }
        for t in times {
            args.extend(["--time".to_string(), t.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = rigscope(&args);
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout).expect("pose --json parses");
        for frame in doc["frames"].as_array().expect("frames") {
            let t = frame["t"].as_f64().expect("t") as f32;
            let mut pose = Pose::rest(&rig);
            if let Some(c) = clip {
                sample(&rig.clips[c], t, &mut pose);
            }
            let worlds = worlds(&rig, &pose);
            for node in frame["nodes"].as_array().expect("nodes") {
                let i = node["node"].as_u64().expect("node") as usize;
                let want = worlds[i].to_cols_array();
                let err = relative_error(&numbers(&node["world"]), &want, 1.0);
                assert!(err <= TOLERANCE, "{path} clip {clip:?} t {t}: node {i} world off by {err:e}");
            }
            for mesh in frame["meshes"].as_array().expect("meshes") {
                let node = mesh["node"].as_u64().expect("node") as usize;
                let p = mesh["primitive"].as_u64().expect("primitive") as usize;
                let Some(prim) = rig.nodes[node].mesh.and_then(|m| rig.meshes[m].primitives.get(p)) else {
                    panic!("{path}: pose printed a primitive the rig lacks");
                };
                if !prim.morph_targets.is_empty() {
                    continue;
                }
                let want = positions(&rig, &worlds, node, prim);
                let got = mesh["positions"].as_array().expect("positions");
                assert_eq!(got.len(), want.len(), "{path}: vertex count");
                // One scale for the whole primitive: its extent, so a vertex near the origin
                // is held to the precision the rest of the mesh has.
                let extent = want.iter().fold(1e-3f64, |m, v| m.max(v.abs().max_element()));
                vertices_checked += want.len();
                for (v, (g, w)) in got.iter().zip(&want).enumerate() {
                    let err = relative_error(&numbers(g), &w.to_array(), extent);
                    assert!(
                        err <= TOLERANCE,
                        "{path} clip {clip:?} t {t}: node {node} primitive {p} vertex {v} off by {err:e}"
                    );
                }
            }
        }
    }
    assert!(vertices_checked > 0, "{path}: no vertex was compared");
}

#[test]
fn pose_json_of_the_samples_matches_a_plain_f64_evaluation() {
    for name in ["walker.glb", "tentacle.glb", "seed-arm.gltf"] {
        check_file(&sample_path(name));
    }
}

#[test]
fn pose_json_of_the_skinned_assets_matches_a_plain_f64_evaluation() {
    let Some(dir) = assets_dir() else { return };
    for file in [
        "CesiumMan/CesiumMan.glb",
        "CesiumMan-x32/CesiumMan-x32.glb",
        "Fox/Fox.glb",
        "RiggedFigure/RiggedFigure.glb",
        "RiggedSimple/RiggedSimple.glb",
        "SimpleSkin/SimpleSkin.gltf",
        "InterpolationTest/InterpolationTest.gltf",
    ] {
        check_file(&dir.join(file).to_string_lossy());
    }
}
