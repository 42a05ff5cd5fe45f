//! `rigscope pose`: world matrices and deformed positions at chosen times.

use std::io::{self, Write};

use serde::Serialize;

use crate::anim::{Engine, Workspace};
use crate::rig::{Clip, Rig};

/// The version of the `pose --json` document (`PoseDoc`).
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct PoseDoc {
    pub format_version: u32,
    pub file: String,
    /// The engine profile whose weights skinned the positions (`stored`: the file's own).
    pub engine: &'static str,
    pub clip: Option<ClipRef>,
    pub frames: Vec<FrameDoc>,
}

#[derive(Debug, Serialize)]
pub struct ClipRef {
    pub name: Option<String>,
    pub index: usize,
    pub duration: f32,
}

#[derive(Debug, Serialize)]
pub struct FrameDoc {
    /// The time asked for, as given (the pose is sampled at its nearest f32).
    pub t: f64,
    /// With spring bones stepped: how many steps of `dt` were taken (the clip is sampled at
    /// `steps * dt`, the nearest whole number of steps to `t`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spring_steps: Option<usize>,
    /// With `--look-at`: where the VRM avatar's gaze was aimed and what lookAt made of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub look_at: Option<LookDoc>,
    pub nodes: Vec<NodeWorld>,
    pub meshes: Vec<MeshPositions>,
}

/// The gaze of one frame, as three-vrm's `VRMLookAt` holds it.
#[derive(Debug, Serialize)]
pub struct LookDoc {
    /// The point aimed at, in world space (`camera`: the render camera's eye).
    pub target: [f64; 3],
    /// Degrees about y, positive towards the face's left; absent when no `vrm.update` has
    /// run (`--springs` at step 0, the loaded state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub yaw: Option<f64>,
    /// Degrees about x, positive looks down; absent with `yaw`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pitch: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct NodeWorld {
    pub node: usize,
    pub name: Option<String>,
    pub joint: bool,
    /// The VRM humanoid bone this node is mapped to; only present on mapped nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub humanoid_bone: Option<String>,
    /// Column-major, as glTF stores matrices.
    pub world: [f32; 16],
    /// The node's local transform at this time, when asked for (`--local`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalTrs>,
}

/// A node's local translation, rotation (x, y, z, w) and scale: the sampled values, or the
/// rest values for what the clip does not animate (decomposed from a node's `matrix`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LocalTrs {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

/// What a pose document holds besides the world matrices.
#[derive(Debug, Clone, Default)]
pub struct PoseOptions {
    /// Only these nodes (and the primitives of their meshes); `None`: every node of the scene.
    pub nodes: Option<Vec<usize>>,
    /// Add each node's local TRS.
    pub local: bool,
    /// Leave the deformed positions out (and skip skinning).
    pub no_positions: bool,
    /// Whose weights skin the positions.
    pub engine: Engine,
    /// Step the VRM spring bones from the clip's start in steps of this many seconds.
    pub spring_dt: Option<f64>,
    /// Aim the VRM avatar's gaze here (`Camera`: the eye of the camera `render` frames the
    /// frame with by default).
    pub look_at: Option<crate::vrm::Aim>,
}

#[derive(Debug, Serialize)]
pub struct MeshPositions {
    pub node: usize,
    pub primitive: usize,
    pub skinned: bool,
    /// Only on GPU-instanced nodes (`EXT_mesh_gpu_instancing`): which instance this entry
    /// is (each instance of each primitive is one entry)...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<usize>,
    /// ...and its world matrix, `node world * instance transform`, column-major.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_world: Option<[f32; 16]>,
    pub positions: Vec<[f32; 3]>,
}

/// The text for a vertex with no finite position.
const VANISHES: &str = "vanishes (the engine gives it no position)";

/// Evaluates `clip` (or the rest pose) at each time, keeping the scene's nodes and meshes
/// (or the nodes `options` names).
pub fn evaluate(rig: &Rig, clip: Option<usize>, times: &[f64], options: &PoseOptions) -> PoseDoc {
    let shown_nodes = match &options.nodes {
        Some(nodes) => {
            let mut nodes: Vec<usize> = nodes.iter().copied().filter(|&n| n < rig.nodes.len()).collect();
            nodes.sort_unstable();
            nodes.dedup();
            nodes
        }
        None => rig.scene_nodes(),
    };
    let mut shown = vec![false; rig.nodes.len()];
    for &n in &shown_nodes {
        shown[n] = true;
    }
    let joints = rig.joint_flags();
    let mut ws = Workspace::new(rig);
    if !options.no_positions {
        ws.set_engine(rig, options.engine);
    }
    let clip_data = clip.and_then(|c| rig.clips.get(c));
    let frames = times
        .iter()
        .map(|&t| {
            let spring_steps = options.spring_dt.map(|dt| crate::vrm::step_count(t, dt));
            let look_at = match options.look_at {
                Some(aim) => look_at_frame(rig, clip_data, t, aim, options.spring_dt, &mut ws),
                None => {
                    pose_frame(rig, clip_data, t, options.spring_dt, &mut ws);
                    None
                }
            };
            ws.update_matrices(rig);
            if !options.no_positions {
                ws.skin(rig);
            }
            FrameDoc {
                t,
                spring_steps,
                look_at,
                nodes: shown_nodes
                    .iter()
                    .map(|&n| NodeWorld {
                        node: n,
                        name: rig.nodes[n].name.clone(),
                        joint: joints[n],
                        humanoid_bone: super::inspect::humanoid_bone(rig, n),
                        world: ws.globals[n].to_cols_array(),
                        local: options.local.then(|| local_trs(&ws, n)),
                    })
                    .collect(),
                meshes: if options.no_positions {
                    Vec::new()
                } else {
                    ws.primitives
                        .iter()
                        .filter(|p| shown.get(p.node).copied().unwrap_or(false))
                        .map(|p| MeshPositions {
                            node: p.node,
                            primitive: p.primitive,
                            skinned: p.skin.is_some(),
                            instance: p.instance,
                            instance_world: p.instance.and_then(|k| {
                                let instance = rig.nodes.get(p.node)?.instances.get(k)?;
                                Some((*ws.globals.get(p.node)? * *instance).to_cols_array())
                            }),
                            positions: p.positions.iter().map(|v| v.to_array()).collect(),
                        })
                        .collect()
                },
            }
        })
        .collect();
    PoseDoc {
        format_version: FORMAT_VERSION,
        file: rig.source.clone(),
        engine: options.engine.name(),
        clip: clip.and_then(|c| {
            rig.clips.get(c).map(|data| ClipRef {
                name: data.name.clone(),
                index: c,
                duration: data.duration,
            })
        }),
        frames,
    }
}

/// Leaves the frame at `t` in `ws`'s pose: sampled, or with `dt` the spring bones stepped
/// from the clip's start to the whole number of steps nearest `t`.
fn pose_frame(rig: &Rig, clip: Option<&Clip>, t: f64, dt: Option<f64>, ws: &mut Workspace) {
    match dt {
        Some(dt) => {
            crate::vrm::simulate(rig, clip, crate::vrm::step_count(t, dt), dt, ws);
        }
        // Clips hold f32 key times: sampling is in f32, the document echoes `t`.
        None => ws.sample_pose(rig, clip, t as f32),
    }
}

/// `pose_frame` with the gaze aimed at `aim`. `camera` is the eye of `render`'s default
/// camera, framed on the frame before the gaze moves (as `render` frames it).
fn look_at_frame(
    rig: &Rig,
    clip: Option<&Clip>,
    t: f64,
    aim: crate::vrm::Aim,
    dt: Option<f64>,
    ws: &mut Workspace,
) -> Option<LookDoc> {
    let mut eye = glam::Vec3::ZERO;
    if aim == crate::vrm::Aim::Camera {
        pose_frame(rig, clip, t, dt, ws);
        ws.update_matrices(rig);
        ws.skin(rig);
        let yaw = crate::render::OPENING_YAW_DEGREES.to_radians();
        let pitch = crate::render::OPENING_PITCH_DEGREES.to_radians();
        eye = crate::render::framed_camera(ws, yaw, pitch, 1.0).eye();
    }
    let target = crate::vrm::LookAtTarget::new(rig, aim.point(eye)).ok()?;
    let look = crate::vrm::sample_aimed(rig, clip, t, dt, &target, ws);
    Some(LookDoc { target: target.point.to_array(), yaw: look.map(|l| l.yaw), pitch: look.map(|l| l.pitch) })
}

/// The sampled local transform of `node` (the pose keeps TRS even for a node whose file
/// `matrix` still applies: its decomposition, as `inspect` reports it).
fn local_trs(ws: &Workspace, node: usize) -> LocalTrs {
    let t = ws.pose.locals.get(node).copied().unwrap_or_default();
    LocalTrs {
        translation: t.translation.to_array(),
        rotation: t.rotation.to_array(),
        scale: t.scale.to_array(),
    }
}

/// The same content as the JSON, one block per time: node world matrices (rows), then positions.
pub fn write_text(rig: &Rig, doc: &PoseDoc, out: &mut dyn Write) -> io::Result<()> {
    let clip = match &doc.clip {
        Some(c) => {
            match rig.clips.get(c.index).and_then(|clip| clip.name.as_deref()).filter(|n| !n.is_empty()) {
                Some(name) => format!("clip #{} {name} ({:.4} s)", c.index, c.duration),
                None => format!("clip #{} ({:.4} s)", c.index, c.duration),
            }
        }
        None => "rest pose (no clip)".to_string(),
    };
    let engine = match crate::anim::Engine::from_name(doc.engine) {
        Some(e) if e != crate::anim::Engine::Stored => format!("  skinned as {} draws it", e.label()),
        _ => String::new(),
    };
    writeln!(out, "{}  {clip}{engine}", doc.file)?;
    // Names longer than the usual column widen it for the whole output, so rows stay aligned.
    let labels = doc.frames.iter().flat_map(|f| &f.nodes).map(|n| rig.node_label(n.node).chars().count());
    let name_w = labels.max().unwrap_or(0).max(24);
    for frame in &doc.frames {
        writeln!(out, "\nt = {}", frame.t)?;
        writeln!(out, "  node world matrices (rows):")?;
        for n in &frame.nodes {
            let m = &n.world;
            writeln!(
                out,
                "  {:>5} {:<name_w$}{} [{} {} {} {} | {} {} {} {} | {} {} {} {}]",
                n.node,
                rig.node_label(n.node),
                if n.joint { " joint" } else { "      " },
                m[0],
                m[4],
                m[8],
                m[12],
                m[1],
                m[5],
                m[9],
                m[13],
                m[2],
                m[6],
                m[10],
                m[14],
            )?;
            if let Some(l) = &n.local {
                let [tx, ty, tz] = l.translation;
                let [rx, ry, rz, rw] = l.rotation;
                let [sx, sy, sz] = l.scale;
                writeln!(
                    out,
                    "  {:>5} local T [{tx} {ty} {tz}] R (x,y,z,w) [{rx} {ry} {rz} {rw}] S [{sx} {sy} {sz}]",
                    ""
                )?;
            }
        }
        for mesh in &frame.meshes {
            let instance = mesh.instance.map_or(String::new(), |k| format!(" instance {k}"));
            writeln!(
                out,
                "  node {} primitive {}{instance} ({}), {} world positions:",
                mesh.node,
                mesh.primitive,
                if mesh.skinned { "skinned" } else { "rigid" },
                mesh.positions.len()
            )?;
            for (i, p) in mesh.positions.iter().enumerate() {
                // A vertex the engine cannot place is said as `check` says it, as JSON writes it null.
                if p.iter().all(|x| x.is_finite()) {
                    writeln!(out, "    {i:>6}  {} {} {}", p[0], p[1], p[2])?;
                } else {
                    writeln!(out, "    {i:>6}  {VANISHES}")?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertex_without_a_finite_position_vanishes_in_text() {
        let rig = crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap();
        let mut doc = evaluate(&rig, None, &[0.0], &PoseOptions::default());
        let positions = &mut doc.frames[0].meshes[0].positions;
        positions[0] = [f32::NAN, f32::INFINITY, 0.0];
        positions[1] = [0.5, f32::NEG_INFINITY, 0.25];
        let mut text = Vec::new();
        write_text(&rig, &doc, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let line = |i: usize| text.lines().find(|l| l.trim_start().starts_with(&format!("{i}  "))).unwrap();
        assert_eq!(line(0).trim(), format!("0  {VANISHES}"));
        assert_eq!(line(1).trim(), format!("1  {VANISHES}"));
        assert!(!line(2).contains("vanishes"));
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }
}
