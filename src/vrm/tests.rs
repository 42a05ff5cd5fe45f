use super::*;
use crate::anim::Workspace;

fn fixture(name: &str) -> Rig {
    let path = format!("{}/tests/fixtures/vrm/{name}", env!("CARGO_MANIFEST_DIR"));
    crate::import::load(std::path::Path::new(&path)).expect("fixture")
}

/// Stepping on frame by frame lands where a fresh simulation of as many steps does, and a
/// step back starts again from the initial state.
#[test]
fn a_stepper_equals_a_fresh_simulation_and_resets_when_time_goes_back() {
    let rig = fixture("walker-springs-vrm1.vrm");
    let dt = DEFAULT_DT;
    let mut stepper = Stepper::new(dt);
    let mut played = Workspace::new(&rig);
    let mut fresh = Workspace::new(&rig);
    for steps in [3usize, 10, 40, 5, 5] {
        let t = steps as f64 * dt;
        assert_eq!(stepper.advance_to(&rig, None, t, &mut played), steps);
        simulate(&rig, None, steps, dt, &mut fresh);
        played.update_matrices(&rig);
        fresh.update_matrices(&rig);
        assert_eq!(played.globals, fresh.globals, "after {steps} steps");
    }
    assert_eq!(stepper.steps(), 5);
    // The comparison is of moved poses: 5 steps in, the hair's end (node 24) has left its rest.
    let rest = Workspace::new(&rig);
    assert!(rest.globals[24].w_axis.distance(fresh.globals[24].w_axis) > 1e-3);
}

/// Without `dt` steps nothing moves: zero steps is the rest pose, and `step_count` rounds to
/// the nearest whole step.
#[test]
fn zero_steps_is_the_rest_pose_and_step_counts_round() {
    let rig = fixture("walker-springs-vrm0.vrm");
    let mut ws = Workspace::new(&rig);
    let rest = ws.globals.clone();
    evaluate(&rig, None, 0.0, DEFAULT_DT, &mut ws);
    assert_eq!(ws.globals, rest);
    assert_eq!(step_count(1.0, 1.0 / 60.0), 60);
    assert_eq!(step_count(0.0251, 0.01), 3);
    assert_eq!(step_count(-1.0, 0.01), 0);
    assert_eq!(step_count(f64::NAN, 0.01), 0);
}

/// The fast and the general paths agree on an avatar whose node constraints move nodes at
/// rest: both run the one constraint stage after sampling.
#[test]
fn the_fast_and_general_paths_agree_under_node_constraints() {
    let rig = fixture("walker-constraints-vrm1.vrm");
    let anim = fixture("walker-walk.vrma");
    let bound = crate::vrma::bind(&rig, &anim, 0).expect("bind");
    for t in [f32::NAN, 0.0, 0.25, 1e30] {
        crate::anim::crosscheck(&rig, None, t).expect("rest pose");
        crate::anim::crosscheck(&rig, Some(&bound.clip), t).expect("the walk");
    }
}
