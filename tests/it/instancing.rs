//! GPU instancing (`EXT_mesh_gpu_instancing`): every instance is drawn at
//! `node world * instance TRS`. Fixtures in `tests/fixtures/instancing` (see its README):
//! `pegs.gltf` places one triangle three times with three nodes under a parent; the real tools
//! turned that into one instanced node. Expected positions are worked out by hand below.

use base64::Engine;
use glam::{Mat4, Quat, Vec3};
use rigscope::anim::Workspace;
use serde_json::{Value, json};

use super::cli::rigscope;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/instancing/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The triangle (0,0,0), (1,0,0), (0,1,0) of `pegs.gltf` at each peg's world transform:
/// rack T(0,1,0); peg.a T(2,0,0); peg.b T(0,0,-2) R(90 deg about z); peg.c T(-2,0,0) S(2).
fn pegs_by_hand() -> [[Vec3; 3]; 3] {
    let v = Vec3::new;
    [
        [v(2.0, 1.0, 0.0), v(3.0, 1.0, 0.0), v(2.0, 2.0, 0.0)],
        // Rz(90) turns x into y and y into -x.
        [v(0.0, 1.0, -2.0), v(0.0, 2.0, -2.0), v(-1.0, 1.0, -2.0)],
        [v(-2.0, 1.0, 0.0), v(0.0, 1.0, 0.0), v(-2.0, 3.0, 0.0)],
    ]
}

/// Per instance (in order), the deformed positions of the instanced node's primitive.
fn instance_positions(ws: &Workspace) -> Vec<(Option<usize>, Vec<Vec3>)> {
    ws.primitives.iter().map(|p| (p.instance, p.positions.clone())).collect()
}

fn assert_close(got: &[Vec3], want: &[Vec3], tolerance: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.abs_diff_eq(*w, tolerance), "{what}: got {g}, want {w}");
    }
}

#[test]
fn gltf_transform_instances_sit_where_the_three_nodes_were() {
    let rig = rigscope::load(fixture("pegs-instanced.glb").as_ref()).expect("loads");
    assert_eq!(rig.nodes.len(), 1);
    assert_eq!(rig.nodes[0].instances.len(), 3);
    let ws = Workspace::new(&rig);
    let got = instance_positions(&ws);
    assert_eq!(got.len(), 3, "one drawn copy per instance, the mesh itself not drawn again");
    for (k, ((instance, positions), want)) in got.iter().zip(pegs_by_hand()).enumerate() {
        assert_eq!(*instance, Some(k));
        assert_close(positions, &want, 1e-6, &format!("instance {k}"));
    }
    // Second method: the same pegs as three ordinary nodes, through the non-instanced path.
    let separate = rigscope::load(fixture("pegs.gltf").as_ref()).expect("loads");
    let ws_separate = Workspace::new(&separate);
    for (a, b) in ws.primitives.iter().zip(&ws_separate.primitives) {
        assert_close(&a.positions, &b.positions, 1e-6, "instanced vs separate nodes");
    }
}

#[test]
fn gltfpack_short_normalized_rotations_and_required_extension_load() {
    // gltfpack stores ROTATION as normalized SHORT and lists the extension as required.
    let text = std::fs::read(fixture("pegs-gltfpack.glb")).expect("fixture");
    assert!(text.windows(18).any(|w| w == b"extensionsRequired"));
    let rig = rigscope::load(fixture("pegs-gltfpack.glb").as_ref()).expect("loads");
    let ws = Workspace::new(&rig);
    let got = instance_positions(&ws);
    assert_eq!(got.len(), 3);
    // A quaternion component is off by at most half of 1/32767; a unit vector it turns moves
    // by a few of those.
    for (k, ((_, positions), want)) in got.iter().zip(pegs_by_hand()).enumerate() {
        assert_close(positions, &want, 1e-4, &format!("instance {k}"));
    }
}

#[test]
fn pose_json_gives_one_entry_per_instance_with_its_world_matrix() {
    let run = rigscope(&["pose", &fixture("pegs-instanced.glb"), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(doc["format_version"], 1);
    let meshes = doc["frames"][0]["meshes"].as_array().expect("meshes");
    assert_eq!(meshes.len(), 3);
    for (k, m) in meshes.iter().enumerate() {
        assert_eq!(m["node"], 0);
        assert_eq!(m["instance"], k);
    }
    // Instance 1 (peg.b): T(0,1,-2) * Rz(90), column-major.
    let want = [0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, -2.0, 1.0];
    let got: Vec<f64> =
        meshes[1]["instance_world"].as_array().expect("matrix").iter().filter_map(Value::as_f64).collect();
    assert_eq!(got.len(), 16);
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{got:?}");
    }
    // A file without instancing keeps the entries it always had, without the new fields.
    let run = rigscope(&["pose", &fixture("pegs.gltf"), "--json"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let first = &doc["frames"][0]["meshes"][0];
    assert!(first.get("instance").is_none() && first.get("instance_world").is_none(), "{first}");
}

#[test]
fn render_draws_the_instances_as_the_separate_nodes_were_drawn() {
    let frame = |file: &str| {
        let run =
            rigscope(&["render", &fixture(file), "--size", "48x16", "--mode", "ascii", "--color", "never"]);
        assert_eq!(run.code, 0, "{file}: {}", run.stderr);
        run.stdout
    };
    let separate = frame("pegs.gltf");
    assert!(separate.chars().filter(|c| !c.is_whitespace()).count() > 10, "something is drawn:\n{separate}");
    assert_eq!(frame("pegs-instanced.glb"), separate);
}

/// `doc` as JSON text with one embedded buffer: each of `parts` is buffer view `i`.
fn embedded(mut doc: Value, parts: &[Vec<u8>]) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut views = Vec::new();
    for p in parts {
        while buf.len() % 4 != 0 {
            buf.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": buf.len(), "byteLength": p.len()}));
        buf.extend_from_slice(p);
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&buf)
    );
    doc["bufferViews"] = Value::Array(views);
    doc["buffers"] = json!([{"byteLength": buf.len(), "uri": uri}]);
    serde_json::to_vec(&doc).expect("JSON")
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Quantized instance attributes (BYTE translations, normalized SHORT rotations) under an
/// animated parent; instancing on a node without a mesh and on a skinned node is reported and
/// ignored, never a crash.
#[test]
fn quantized_instances_follow_their_animated_parent() {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    // Instance 0: T(1,0,0), no rotation. Instance 1: T(0,2,0), 90 deg about x, stored as
    // normalized SHORT 23170 / 32767.
    let translations: Vec<u8> = [1i8, 0, 0, 0, 2, 0].iter().map(|&b| b as u8).collect();
    let rotations: Vec<u8> =
        [0i16, 0, 0, 32767, 23170, 0, 0, 23170].iter().flat_map(|v| v.to_le_bytes()).collect();
    let doc = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_mesh_gpu_instancing"],
        "extensionsRequired": ["EXT_mesh_gpu_instancing"],
        "scene": 0,
        "scenes": [{"nodes": [0, 2, 3]}],
        "nodes": [
            {"name": "base", "children": [1],
             "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 2}}}},
            {"name": "pegs", "mesh": 0, "translation": [0, 0, 1],
             "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 2, "ROTATION": 3}}}},
            {"name": "skinned", "mesh": 1, "skin": 0,
             "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 2}}}},
            {"name": "joint"}
        ],
        "skins": [{"joints": [3]}],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": 0}}]},
            {"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 6, "WEIGHTS_0": 7}}]}
        ],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
                        "samplers": [{"input": 4, "output": 5}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5120, "count": 2, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5122, "count": 2, "type": "VEC4", "normalized": true},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 5, "componentType": 5121, "count": 3, "type": "VEC4"},
            {"bufferView": 6, "componentType": 5126, "count": 3, "type": "VEC4"}
        ]
    });
    let bytes = embedded(
        doc,
        &[
            f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
            translations,
            rotations,
            f32s(&[0.0, 1.0]),
            f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, s, 0.0, s]),
            vec![0; 12],
            f32s(&[1.0, 0.0, 0.0, 0.0].repeat(3)),
        ],
    );
    let rig = rigscope::load_bytes(&bytes, "quantized.gltf", None).expect("loads");
    let ignored: Vec<&str> = rig
        .findings
        .iter()
        .filter(|f| f.code == "RIG_INSTANCING_IGNORED")
        .map(|f| f.pointer.as_str())
        .collect();
    assert_eq!(
        ignored,
        ["/nodes/0/extensions/EXT_mesh_gpu_instancing", "/nodes/2/extensions/EXT_mesh_gpu_instancing"]
    );
    assert!(rig.nodes[0].instances.is_empty() && rig.nodes[2].instances.is_empty());

    let q = 23170.0 / 32767.0;
    let instance = [
        Mat4::from_translation(Vec3::X),
        Mat4::from_rotation_translation(Quat::from_xyzw(q, 0.0, 0.0, q), Vec3::new(0.0, 2.0, 0.0)),
    ];
    let mut ws = Workspace::new(&rig);
    let clip = rig.clips.first();
    for (t, base) in [(0.0, Mat4::IDENTITY), (1.0, Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2))] {
        ws.evaluate(&rig, clip, t);
        let pegs: Vec<_> = ws.primitives.iter().filter(|p| p.node == 1).collect();
        assert_eq!(pegs.len(), 2);
        // By hand at t = 1 for instance 1's vertex (0,1,0): Rx(90) -> (0,0,1), + (0,2,0),
        // + the node's (0,0,1) -> (0,2,2), Ry(90) -> (2,2,0).
        if t == 1.0 {
            assert!(
                pegs[1].positions[2].abs_diff_eq(Vec3::new(2.0, 2.0, 0.0), 1e-4),
                "{}",
                pegs[1].positions[2]
            );
            assert!(
                pegs[0].positions[1].abs_diff_eq(Vec3::new(1.0, 0.0, -2.0), 1e-6),
                "{}",
                pegs[0].positions[1]
            );
        }
        let node = base * Mat4::from_translation(Vec3::Z);
        for (k, p) in pegs.iter().enumerate() {
            let want: Vec<Vec3> = [Vec3::ZERO, Vec3::X, Vec3::Y]
                .iter()
                .map(|&v| (node * instance[k]).transform_point3(v))
                .collect();
            assert_close(&p.positions, &want, 1e-5, &format!("t {t} instance {k}"));
        }
        // The skinned node is drawn once, skinned.
        let skinned: Vec<_> = ws.primitives.iter().filter(|p| p.node == 2).collect();
        assert_eq!(skinned.len(), 1);
        assert!(skinned[0].skin.is_some() && skinned[0].instance.is_none());
    }
}

#[test]
fn broken_instancing_is_a_clear_error() {
    let doc = |attributes: Value| {
        let doc = json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["KHR_mesh_gpu_instancing"],
            "nodes": [{"mesh": 0, "extensions": {"KHR_mesh_gpu_instancing": {"attributes": attributes}}}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
                {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"},
                {"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR"}
            ]
        });
        embedded(doc, &[f32s(&[0.0; 9])])
    };
    let err = |attributes: Value| match rigscope::load_bytes(&doc(attributes), "bad.gltf", None) {
        Ok(_) => panic!("loads"),
        Err(e) => e.to_string(),
    };
    assert!(err(json!({"TRANSLATION": 9})).contains("KHR_mesh_gpu_instancing.attributes.TRANSLATION"));
    assert!(err(json!({"TRANSLATION": 2})).contains("VEC3"));
    assert!(err(json!({"TRANSLATION": "x"})).contains("not an accessor index"));
    let counts = err(json!({"TRANSLATION": 0, "SCALE": 1}));
    assert!(counts.contains("same count") && counts.contains("3, -, 2"), "{counts}");
    // The KHR name reads with the same schema.
    let rig = rigscope::load_bytes(&doc(json!({"SCALE": 1})), "ok.gltf", None).expect("loads");
    assert_eq!(rig.nodes[0].instances.len(), 2);
}
