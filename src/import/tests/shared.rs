//! Accessor data is decoded once per load and shared: every user of an accessor holds the
//! same allocation (`Arc::ptr_eq`) with the values the file stores, and changing one user's
//! copy leaves the others as loaded.

use super::*;
use std::sync::Arc;

/// Mesh 0 has two primitives and mesh 1 one, all naming the same POSITION, NORMAL, indices,
/// JOINTS_0 and WEIGHTS_0 accessors, and a morph target whose POSITION is one zero-filled
/// accessor (no bufferView). Nodes 0 and 2 draw mesh 0, node 1 mesh 1. Animation 0 has
/// three translation channels (nodes 0, 1, 2) on sampler 0 and a rotation channel on
/// sampler 1, which shares sampler 0's key times.
fn shared_file() -> Vec<u8> {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let normals = bin.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3", 3);
    let indices = bin.add(&[0, 1, 2, 0], "SCALAR", UNSIGNED_BYTE, 3);
    let joints = bin.add(&[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], "VEC4", UNSIGNED_BYTE, 3);
    let weights = bin.floats(&[0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0], "VEC4", 3);
    let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
    bin.accessors[times]["min"] = json!([0.0]);
    bin.accessors[times]["max"] = json!([1.0]);
    let moves = bin.floats(&[0.0, 0.0, 0.0, 2.0, 4.0, 6.0], "VEC3", 2);
    let turns = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0], "VEC4", 2);
    let zeros = bin.accessors.len();
    bin.accessors.push(
        json!({"componentType": FLOAT, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}),
    );
    let primitive = json!({"attributes": {"POSITION": pos, "NORMAL": normals, "JOINTS_0": joints, "WEIGHTS_0": weights},
        "indices": indices, "targets": [{"POSITION": zeros}]});
    let translation = |node: usize| json!({"sampler": 0, "target": {"node": node, "path": "translation"}});
    bin.finish(json!({
        "scene": 0, "scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": [{"mesh": 0, "skin": 0}, {"mesh": 1, "skin": 0}, {"mesh": 0, "skin": 0}, {}],
        "skins": [{"joints": [3, 2]}],
        "meshes": [{"primitives": [primitive, primitive]}, {"primitives": [primitive]}],
        "animations": [{"channels": [translation(0), translation(1), translation(2),
                {"sampler": 1, "target": {"node": 3, "path": "rotation"}}],
            "samplers": [{"input": times, "output": moves}, {"input": times, "output": turns}]}],
    }))
}

fn same<T: ?Sized>(arcs: &[&Arc<T>]) -> bool {
    arcs.windows(2).all(|w| Arc::ptr_eq(w[0], w[1]))
}

#[test]
fn every_user_of_an_accessor_holds_the_same_data() {
    let rig = load(&shared_file()).unwrap_or_else(|e| panic!("{e}"));
    let prims: Vec<&crate::rig::Primitive> = rig.meshes.iter().flat_map(|m| &m.primitives).collect();
    assert_eq!(prims.len(), 3);
    let first = prims[0];
    // The values the file stores, written out above.
    assert_eq!(&*first.positions, &[Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert_eq!(first.normals.as_deref(), Some(&[Vec3::Z; 3][..]));
    assert_eq!(first.indices.as_deref(), Some(&[0, 1, 2][..]));
    assert_eq!(&*first.influences[0].joints, &[[0, 1, 0, 0], [1, 0, 0, 0], [0; 4]]);
    assert_eq!(
        &*first.influences[0].weights,
        &[[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25, 0.0, 0.0, 0.0]]
    );
    assert_eq!(first.morph_targets[0].positions.as_deref(), Some(&[Vec3::ZERO; 3][..]));
    for p in &prims[1..] {
        assert!(same(&[&first.positions, &p.positions]));
        assert!(same(&[first.normals.as_ref().expect("normals"), p.normals.as_ref().expect("normals")]));
        let (a, b) = (first.indices.as_ref().expect("indices"), p.indices.as_ref().expect("indices"));
        assert!(same(&[a.shared(), b.shared()]));
        assert!(same(&[&first.influences[0].joints, &p.influences[0].joints]));
        assert!(same(&[&first.influences[0].weights, &p.influences[0].weights]));
        let (a, b) = (&first.morph_targets[0].positions, &p.morph_targets[0].positions);
        assert!(same(&[a.as_ref().expect("deltas"), b.as_ref().expect("deltas")]));
    }

    let channels = &rig.clips[0].channels;
    assert_eq!(channels.len(), 4);
    assert_eq!(&*channels[0].times, &[0.0, 1.0]);
    assert_eq!(&*channels[0].values, &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0]);
    assert_eq!(&*channels[3].values, &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
    let times: Vec<&Arc<[f32]>> = channels.iter().map(|c| &c.times).collect();
    assert!(same(&times), "both samplers read one input accessor");
    assert!(same(&[&channels[0].values, &channels[1].values, &channels[2].values]));
    assert!(!Arc::ptr_eq(&channels[0].values, &channels[3].values));
}

#[test]
fn changing_one_users_copy_leaves_the_others_as_loaded() {
    let rig = load(&shared_file()).unwrap_or_else(|e| panic!("{e}"));
    let mut edited = rig.clone();
    let weights = &mut edited.meshes[0].primitives[0].influences[0].weights;
    Arc::make_mut(weights)[2] = [1.0, 0.0, 0.0, 0.0];
    let stored = [0.25, 0.0, 0.0, 0.0];
    assert_eq!(edited.meshes[0].primitives[0].influences[0].weights[2], [1.0, 0.0, 0.0, 0.0]);
    // The other primitive of the same mesh, the other mesh, and the loaded rig keep the file's.
    assert_eq!(edited.meshes[0].primitives[1].influences[0].weights[2], stored);
    assert_eq!(edited.meshes[1].primitives[0].influences[0].weights[2], stored);
    assert_eq!(rig.meshes[0].primitives[0].influences[0].weights[2], stored);
    assert!(Arc::ptr_eq(
        &edited.meshes[0].primitives[1].influences[0].weights,
        &rig.meshes[0].primitives[0].influences[0].weights
    ));
}

#[test]
fn one_accessor_read_in_two_forms_gives_each_its_values() {
    // Accessor 0 is both the mesh's POSITION and sampler 0's translation output; accessor 1
    // both its key times and the output of a morph weights channel.
    let mut bin = Bin::default();
    let pos = bin.positions(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let times = bin.floats(&[0.0, 0.5], "SCALAR", 2);
    bin.accessors[times]["min"] = json!([0.0]);
    bin.accessors[times]["max"] = json!([0.5]);
    let deltas = bin.floats(&[0.0; 6], "VEC3", 2);
    let rig = load(&bin.finish(json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "targets": [{"POSITION": deltas}]}]}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 0, "path": "weights"}}],
            "samplers": [{"input": times, "output": pos}, {"input": times, "output": times}]}],
    })))
    .unwrap_or_else(|e| panic!("{e}"));
    let positions = &rig.meshes[0].primitives[0].positions;
    assert_eq!(&**positions, &[Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0)]);
    let [moves, weights] = [&rig.clips[0].channels[0], &rig.clips[0].channels[1]];
    assert_eq!(&*moves.values, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // Key times and a FLOAT scalar output are one form: the same array.
    assert_eq!(&*weights.values, &[0.0, 0.5]);
    assert!(Arc::ptr_eq(&weights.values, &weights.times) && Arc::ptr_eq(&moves.times, &weights.times));
}
