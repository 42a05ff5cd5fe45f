//! `walker.glb`: a simple humanoid (the default rig the binary embeds). Y up, facing +Z, feet
//! on y = 0, 1.8 tall; the character's left is +X (glTF's convention for a +Z-facing asset).
//!
//! Node layout (joint index == node index for 0..=16; node 17 holds the mesh and the skin):
//!
//! | node | name        | parent      | node | name        | parent      |
//! |------|-------------|-------------|------|-------------|-------------|
//! | 0    | hips        | -           | 9    | forearm.R   | upper_arm.R |
//! | 1    | spine       | hips        | 10   | hand.R      | forearm.R   |
//! | 2    | chest       | spine       | 11   | thigh.L     | hips        |
//! | 3    | neck        | chest       | 12   | shin.L      | thigh.L     |
//! | 4    | head        | neck        | 13   | foot.L      | shin.L      |
//! | 5    | upper_arm.L | chest       | 14   | thigh.R     | hips        |
//! | 6    | forearm.L   | upper_arm.L | 15   | shin.R      | thigh.R     |
//! | 7    | hand.L      | forearm.L   | 16   | foot.R      | shin.R      |
//! | 8    | upper_arm.R | chest       | 17   | walker (mesh 0, skin 0, a separate root) |
//!
//! The upper arms are tilted outwards in the bind pose, so their inverse bind matrices carry
//! rotations. The body is one triangle primitive of lathed parts (torso, neck, head with a
//! nose, arms, hands, legs, feet); arms and legs blend smoothly across elbows and knees, the
//! torso across hips/spine/chest. Clips: `walk` (1 s, in place) and `idle` (4 s).

use glam::{DMat4, DQuat, DVec3};

use super::builder::{GltfBuilder, Interpolation, Track};
use super::cycle::{looping, timeline};
use super::influences::along_chain;
use super::shapes::{SkinnedMesh, Surface, ellipsoid, lathe, resample};
use super::trig::{cos, rot_x, rot_y, rot_z, sin};

const HIPS: usize = 0;
const SPINE: usize = 1;
const CHEST: usize = 2;
const NECK: usize = 3;
const HEAD: usize = 4;

/// Indices of one side's limb joints.
#[derive(Clone, Copy)]
struct Side {
    upper_arm: usize,
    forearm: usize,
    hand: usize,
    thigh: usize,
    shin: usize,
    foot: usize,
    /// +1 for the left side (+X), -1 for the right.
    sign: f64,
}

const LEFT: Side = Side { upper_arm: 5, forearm: 6, hand: 7, thigh: 11, shin: 12, foot: 13, sign: 1.0 };
const RIGHT: Side = Side { upper_arm: 8, forearm: 9, hand: 10, thigh: 14, shin: 15, foot: 16, sign: -1.0 };

/// How far the arms hang away from the body in the bind pose (radians about z).
const ARM_TILT: f64 = 0.1;
const HIPS_HEIGHT: f64 = 0.95;

/// (name, parent, translation); rotations are identity except the upper arms' tilt.
pub(super) const SKELETON: [(&str, Option<usize>, [f64; 3]); 17] = [
    ("hips", None, [0.0, HIPS_HEIGHT, 0.0]),
    ("spine", Some(HIPS), [0.0, 0.12, 0.0]),
    ("chest", Some(SPINE), [0.0, 0.18, 0.0]),
    ("neck", Some(CHEST), [0.0, 0.24, 0.0]),
    ("head", Some(NECK), [0.0, 0.09, 0.0]),
    ("upper_arm.L", Some(CHEST), [0.19, 0.2, 0.0]),
    ("forearm.L", Some(5), [0.0, -0.28, 0.0]),
    ("hand.L", Some(6), [0.0, -0.25, 0.0]),
    ("upper_arm.R", Some(CHEST), [-0.19, 0.2, 0.0]),
    ("forearm.R", Some(8), [0.0, -0.28, 0.0]),
    ("hand.R", Some(9), [0.0, -0.25, 0.0]),
    ("thigh.L", Some(HIPS), [0.1, -0.06, 0.0]),
    ("shin.L", Some(11), [0.0, -0.42, 0.0]),
    ("foot.L", Some(12), [0.0, -0.39, 0.0]),
    ("thigh.R", Some(HIPS), [-0.1, -0.06, 0.0]),
    ("shin.R", Some(14), [0.0, -0.42, 0.0]),
    ("foot.R", Some(15), [0.0, -0.39, 0.0]),
];

pub(super) fn rest_rotation(joint: usize) -> DQuat {
    match joint {
        j if j == LEFT.upper_arm => rot_z(ARM_TILT),
        j if j == RIGHT.upper_arm => rot_z(-ARM_TILT),
        _ => DQuat::IDENTITY,
    }
}

pub fn walker() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let figure = figure(&mut b);
    let mesh = b.mesh("walker", vec![figure.primitive]);
    b.mesh_node("walker", mesh, Some(figure.skin));
    b.animation("walk", &walk());
    b.animation("idle", &idle());
    b.to_glb()
}

/// The walker's skeleton (nodes 0..=16), skin and body primitive, written into `b`; other
/// samples (the VRM avatars) dress it further.
pub(super) struct Figure {
    pub skin: usize,
    pub primitive: serde_json::Value,
    /// Bind-pose positions of the body's vertices.
    pub positions: Vec<DVec3>,
}

pub(super) fn figure(b: &mut GltfBuilder) -> Figure {
    let mut joints = Vec::with_capacity(SKELETON.len());
    for (index, &(name, parent, [x, y, z])) in SKELETON.iter().enumerate() {
        joints.push(b.node(name, parent, DVec3::new(x, y, z), rest_rotation(index)));
    }
    let skin = b.skin("walker", &joints, HIPS);
    let body = body(b);
    let primitive = body.write(b);
    Figure { skin, primitive, positions: body.positions }
}

/// Joint indices are below 17, so they always fit the u8 JOINTS_0.
fn j(joint: usize) -> u8 {
    u8::try_from(joint).unwrap_or(0)
}

/// Every part is built in its joint's frame and placed with that joint's bind transform.
fn body(b: &GltfBuilder) -> SkinnedMesh {
    let mut mesh = SkinnedMesh::default();
    let at = |joint: usize| b.bind_global(joint);

    // Torso in the hips frame, an elliptical lathe from crotch to shoulders.
    let torso = resample(
        &[
            (-0.14, 0.0),
            (-0.13, 0.08),
            (-0.10, 0.14),
            (-0.04, 0.165),
            (0.05, 0.155),
            (0.14, 0.14),
            (0.25, 0.155),
            (0.36, 0.175),
            (0.44, 0.185),
            (0.50, 0.17),
            (0.54, 0.12),
            (0.56, 0.06),
            (0.565, 0.0),
        ],
        56,
    );
    let chain = [j(HIPS), j(SPINE), j(CHEST)];
    mesh.add(&lathe(&torso, 36, 1.0, 0.62), at(HIPS), |p| {
        along_chain(p.y as f32, &chain, &[(0.06, 0.06), (0.26, 0.08)])
    });

    let neck = resample(&[(-0.06, 0.0), (-0.05, 0.05), (0.10, 0.045), (0.11, 0.0)], 12);
    mesh.add(&lathe(&neck, 16, 1.0, 1.0), at(NECK), |p| {
        along_chain(p.y as f32, &[j(NECK), j(HEAD)], &[(0.07, 0.03)])
    });

    let head = lathe(&ellipsoid(0.1, 0.12, 26), 28, 0.085, 0.1);
    mesh.add(&head, at(HEAD), |_| vec![(j(HEAD), 1.0)]);
    let nose = lathe(&ellipsoid(0.0, 0.03, 7), 10, 0.018, 0.02);
    mesh.add(&nose, at(HEAD) * DMat4::from_translation(DVec3::new(0.0, 0.08, 0.095)), |_| {
        vec![(j(HEAD), 1.0)]
    });

    for side in [LEFT, RIGHT] {
        add_limbs(&mut mesh, side, &at);
    }
    mesh
}

fn add_limbs(mesh: &mut SkinnedMesh, side: Side, at: &impl Fn(usize) -> DMat4) {
    // Arm from wrist (bottom) to shoulder cap, in the upper-arm frame; blended at the elbow.
    let arm = resample(
        &[
            (-0.54, 0.0),
            (-0.53, 0.03),
            (-0.50, 0.035),
            (-0.40, 0.042),
            (-0.28, 0.04),
            (-0.15, 0.05),
            (-0.02, 0.055),
            (0.03, 0.04),
            (0.05, 0.0),
        ],
        40,
    );
    let arm_chain = [j(side.upper_arm), j(side.forearm)];
    mesh.add(&lathe(&arm, 18, 1.0, 1.0), at(side.upper_arm), |p| {
        along_chain(-p.y as f32, &arm_chain, &[(0.28, 0.05)])
    });

    // A flat hand, thin across x (palm towards the thigh).
    let hand = lathe(&ellipsoid(-0.08, 0.09, 14), 14, 0.025, 0.045);
    mesh.add(&hand, at(side.hand), |_| vec![(j(side.hand), 1.0)]);

    // Leg from ankle to hip, in the thigh frame; blended at the knee.
    let leg = resample(
        &[
            (-0.84, 0.0),
            (-0.83, 0.035),
            (-0.80, 0.045),
            (-0.70, 0.05),
            (-0.55, 0.06),
            (-0.44, 0.055),
            (-0.30, 0.07),
            (-0.10, 0.085),
            (0.0, 0.085),
            (0.04, 0.06),
            (0.06, 0.0),
        ],
        50,
    );
    let leg_chain = [j(side.thigh), j(side.shin)];
    mesh.add(&lathe(&leg, 22, 1.0, 1.0), at(side.thigh), |p| {
        along_chain(-p.y as f32, &leg_chain, &[(0.42, 0.06)])
    });

    // Foot: a lathe turned to lie along +Z (local +Y -> +Z, local +Z -> -Y), its sole on y = 0.
    // A multiple of 4 segments and an odd ring count put vertices exactly on the sole.
    let foot: Surface = lathe(&ellipsoid(0.0, 0.12, 17), 20, 0.05, 0.04);
    let lay_down = DMat4::from_translation(DVec3::new(0.0, -0.04, 0.05))
        * DMat4::from_quat(rot_x(std::f64::consts::FRAC_PI_2));
    mesh.add(&foot, at(side.foot) * lay_down, |_| vec![(j(side.foot), 1.0)]);
}

/// Walking in place, one full stride per second: legs swing +-0.38 rad with the knee folding
/// during each leg's swing, arms counter-swing, hips bob twice per stride and twist.
pub(super) fn walk() -> Vec<Track> {
    const INTERVALS: usize = 24;
    let times = timeline(1.0, INTERVALS);
    let rotations = |node: usize, f: &dyn Fn(f64) -> DQuat| {
        Track::rotations(node, Interpolation::Linear, &times, &looping(INTERVALS, f))
    };
    let mut tracks = vec![
        Track::translations(
            HIPS,
            &times,
            &looping(INTERVALS, |p| DVec3::new(0.0, HIPS_HEIGHT - 0.015 * (1.0 - cos(2.0 * p)), 0.0)),
        ),
        rotations(HIPS, &|p| rot_y(0.07 * sin(p))),
        rotations(SPINE, &|p| rot_y(-0.04 * sin(p))),
        rotations(CHEST, &|p| rot_x(0.04) * rot_y(-0.06 * sin(p))),
        rotations(HEAD, &|p| rot_y(0.05 * sin(p))),
    ];
    for side in [LEFT, RIGHT] {
        // The left leg is ahead when sin p > 0; a negative angle about x swings a limb forward.
        let s = side.sign;
        let thigh = move |p: f64| -0.38 * s * sin(p);
        let knee = move |p: f64| {
            let folding = (s * cos(p)).max(0.0);
            0.08 + 0.6 * folding * folding
        };
        tracks.push(rotations(side.thigh, &|p| rot_x(thigh(p))));
        tracks.push(rotations(side.shin, &|p| rot_x(knee(p))));
        tracks.push(rotations(side.foot, &|p| rot_x(-0.7 * (thigh(p) + knee(p)))));
        let rest = rest_rotation(side.upper_arm);
        tracks.push(rotations(side.upper_arm, &|p| rest * rot_x(0.32 * s * sin(p))));
        tracks.push(rotations(side.forearm, &|p| rot_x(-(0.3 - 0.15 * s * sin(p)))));
    }
    tracks
}

/// Standing: breathing twice per loop (chest lifts and widens), a slow side-to-side sway of
/// the hips, the head looking around, elbows slightly bent.
fn idle() -> Vec<Track> {
    const INTERVALS: usize = 16;
    let times = timeline(4.0, INTERVALS);
    let rotations = |node: usize, f: &dyn Fn(f64) -> DQuat| {
        Track::rotations(node, Interpolation::Linear, &times, &looping(INTERVALS, f))
    };
    let mut tracks = vec![
        Track::translations(
            HIPS,
            &times,
            &looping(INTERVALS, |p| DVec3::new(0.012 * sin(p), HIPS_HEIGHT, 0.0)),
        ),
        rotations(HIPS, &|p| rot_z(-0.02 * sin(p))),
        rotations(SPINE, &|p| rot_z(0.015 * sin(p)) * rot_x(0.01 * sin(2.0 * p))),
        rotations(CHEST, &|p| rot_x(-0.025 * sin(2.0 * p))),
        Track::scales(
            CHEST,
            &times,
            &looping(INTERVALS, |p| {
                let breath = sin(2.0 * p);
                DVec3::new(1.0 + 0.012 * breath, 1.0 + 0.006 * breath, 1.0 + 0.02 * breath)
            }),
        ),
        rotations(HEAD, &|p| rot_y(0.12 * sin(p)) * rot_x(0.03 * sin(2.0 * p))),
    ];
    for side in [LEFT, RIGHT] {
        let s = side.sign;
        let rest = rest_rotation(side.upper_arm);
        tracks.push(rotations(side.upper_arm, &|p| rest * rot_z(0.02 * s * sin(2.0 * p))));
        tracks.push(rotations(side.forearm, &|p| rot_x(-0.12 - 0.02 * sin(p))));
    }
    tracks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeleton_lists_parents_before_children() {
        for (index, &(_, parent, _)) in SKELETON.iter().enumerate() {
            assert!(parent.is_none_or(|p| p < index), "joint {index}");
        }
        assert_eq!(SKELETON[LEFT.foot].0, "foot.L");
        assert_eq!(SKELETON[RIGHT.hand].0, "hand.R");
    }

    #[test]
    fn body_stands_on_the_floor_and_is_about_one_eighty_tall() {
        let mut b = GltfBuilder::new();
        for (index, &(name, parent, [x, y, z])) in SKELETON.iter().enumerate() {
            b.node(name, parent, DVec3::new(x, y, z), rest_rotation(index));
        }
        let mesh = body(&b);
        let min_y = mesh.positions.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
        let max_y = mesh.positions.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
        // Feet: ankle 0.08, sole 0.04 + 0.04 below it. Head: 1.58 + 0.1 + 0.12.
        assert!(min_y.abs() < 1e-6, "sole at {min_y}");
        assert!((max_y - 1.80).abs() < 1e-6, "top at {max_y}");
        // Facing +Z: the toes and the nose reach further forward than the heels and the back.
        let max_z = mesh.positions.iter().map(|p| p.z).fold(f64::NEG_INFINITY, f64::max);
        let min_z = mesh.positions.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
        assert!(max_z > -min_z);
    }
}
