//! `rigscope pose`: world matrices and deformed positions at chosen times.

use std::io::{self, Write};

use serde::Serialize;

use super::FORMAT_VERSION;
use crate::anim::Workspace;
use crate::rig::Rig;

#[derive(Debug, Serialize)]
pub struct PoseDoc {
    pub format_version: u32,
    pub file: String,
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
    pub t: f32,
    pub nodes: Vec<NodeWorld>,
    pub meshes: Vec<MeshPositions>,
}

#[derive(Debug, Serialize)]
pub struct NodeWorld {
    pub node: usize,
    pub name: Option<String>,
    pub joint: bool,
    /// Column-major, as glTF stores matrices.
    pub world: [f32; 16],
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

/// Evaluates `clip` (or the rest pose) at each time, keeping the scene's nodes and meshes.
pub fn evaluate(rig: &Rig, clip: Option<usize>, times: &[f32]) -> PoseDoc {
    let scene_nodes = rig.scene_nodes();
    let mut in_scene = vec![false; rig.nodes.len()];
    for &n in &scene_nodes {
        in_scene[n] = true;
    }
    let joints = rig.joint_flags();
    let mut ws = Workspace::new(rig);
    let clip_data = clip.and_then(|c| rig.clips.get(c));
    let frames = times
        .iter()
        .map(|&t| {
            ws.evaluate(rig, clip_data, t);
            FrameDoc {
                t,
                nodes: scene_nodes
                    .iter()
                    .map(|&n| NodeWorld {
                        node: n,
                        name: rig.nodes[n].name.clone(),
                        joint: joints[n],
                        world: ws.globals[n].to_cols_array(),
                    })
                    .collect(),
                meshes: ws
                    .primitives
                    .iter()
                    .filter(|p| in_scene.get(p.node).copied().unwrap_or(false))
                    .map(|p| MeshPositions {
                        node: p.node,
                        primitive: p.primitive,
                        skinned: p.skin.is_some(),
                        instance: p.instance,
                        instance_world: p.instance.and_then(|k| {
                            let instance = rig.nodes.get(p.node)?.instances.get(k)?;
                            Some((ws.globals[p.node] * *instance).to_cols_array())
                        }),
                        positions: p.positions.iter().map(|v| v.to_array()).collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    PoseDoc {
        format_version: FORMAT_VERSION,
        file: rig.source.clone(),
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

/// The same content as the JSON, one block per time: node world matrices (rows), then positions.
pub fn write_text(rig: &Rig, doc: &PoseDoc, out: &mut dyn Write) -> io::Result<()> {
    let clip = match &doc.clip {
        Some(c) => format!("clip #{} {} ({:.4} s)", c.index, rig.clip_label(c.index), c.duration),
        None => "rest pose (no clip)".to_string(),
    };
    writeln!(out, "{}  {clip}", doc.file)?;
    for frame in &doc.frames {
        writeln!(out, "\nt = {}", frame.t)?;
        writeln!(out, "  node world matrices (rows):")?;
        for n in &frame.nodes {
            let m = &n.world;
            writeln!(
                out,
                "  {:>5} {:<24}{} [{} {} {} {} | {} {} {} {} | {} {} {} {}]",
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
                writeln!(out, "    {i:>6}  {} {} {}", p[0], p[1], p[2])?;
            }
        }
    }
    Ok(())
}
