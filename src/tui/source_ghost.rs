//! The viewer's ghost of a library clip's own rig (`L`): its skeleton posed by the clip on
//! its own rig at the viewer's time, turned and scaled as retargeting turns and scales the
//! motion, drawn beside the character so that the two motions can be compared by eye.

use glam::{Mat4, Vec3};

use crate::anim::{Pose, compute_globals, sample};
use crate::render::Rgb;
use crate::rig::SourceRig;

/// Cool, so that it reads apart from the bones and the warm `--compare` ghost.
pub const SOURCE_COLOR: Rgb = Rgb::new(90, 170, 230);

/// The source skeleton's bones (from each joint's parent joint) and joints, placed beside
/// the character.
pub fn skeleton(source: &SourceRig, t: f32) -> (Vec<(Vec3, Vec3)>, Vec<Vec3>) {
    let rig = &*source.rig;
    let mut pose = Pose::rest(rig);
    if let Some(clip) = rig.clips.get(source.clip) {
        sample(clip, t, &mut pose);
    }
    let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
    compute_globals(rig, &pose, &mut globals);
    let place = |n: usize| source.beside + source.turn * (globals[n].w_axis.truncate() * source.scale);
    let flags = rig.joint_flags();
    // A file of clips alone has no skin: then every node is drawn.
    let any = flags.iter().any(|f| *f);
    let shown = |n: usize| !any || flags[n];
    let joints: Vec<usize> = (0..rig.nodes.len()).filter(|&n| shown(n)).collect();
    let segments = joints
        .iter()
        .filter_map(|&n| {
            rig.nodes[n].parent.filter(|&p| p < rig.nodes.len() && shown(p)).map(|p| (place(p), place(n)))
        })
        .collect();
    (segments, joints.into_iter().map(place).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn the_ghost_stands_beside_turned_and_scaled() {
        let walker = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        let hips = walker.nodes.iter().position(|n| n.name.as_deref() == Some("hips")).unwrap();
        let source = SourceRig {
            rig: std::sync::Arc::new(walker),
            clip: 0,
            turn: Quat::from_rotation_y(std::f32::consts::PI),
            scale: 2.0,
            beside: Vec3::new(1.0, 0.0, 0.0),
        };
        let (segments, joints) = skeleton(&source, 0.0);
        // 17 joints, 16 bones; the walk starts with the hips at (0, 0.95, 0): turned about Y
        // it stays, doubled it is 1.9 up, and it stands 1 to the side.
        assert_eq!((joints.len(), segments.len()), (17, 16));
        assert!((joints[hips] - Vec3::new(1.0, 1.9, 0.0)).length() < 1e-5, "{:?}", joints[hips]);
    }
}
