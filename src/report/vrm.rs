//! The VRM part of `inspect`: the humanoid mapping and the expressions with their binds, as a
//! serde document and as text. Only present for VRM avatars.

use std::io::{self, Write};

use serde::Serialize;

use crate::rig::{Expression, Rig, VrmVersion};

#[derive(Debug, Serialize)]
pub struct VrmDoc {
    /// `0.x` (`extensions.VRM`) or `1.0` (`extensions.VRMC_vrm`).
    pub version: VrmVersion,
    /// Every mapping entry in file order, with the bone name as the file spells it.
    pub humanoid: Vec<HumanBoneDoc>,
    /// Expressions (VRM 1.0 presets then custom ones) or blend shape groups (VRM 0.x).
    pub expressions: Vec<Expression>,
}

/// What a `.vrma`'s nodes are (`VRMC_vrm_animation`).
#[derive(Debug, Serialize)]
pub struct VrmAnimationDoc {
    pub humanoid: Vec<HumanBoneDoc>,
    /// Expression tracks: the node whose translation x is the weight.
    pub expressions: Vec<ExpressionNodeDoc>,
    pub look_at: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct ExpressionNodeDoc {
    pub name: String,
    pub preset: bool,
    pub node: usize,
}

impl VrmAnimationDoc {
    pub fn new(rig: &Rig) -> Option<Self> {
        let map = rig.vrma.as_ref()?;
        Some(VrmAnimationDoc {
            humanoid: (map.bones.iter())
                .map(|(bone, node)| HumanBoneDoc { bone: bone.clone(), node: *node })
                .collect(),
            expressions: (map.expressions.iter())
                .map(|(name, preset, node)| ExpressionNodeDoc {
                    name: name.clone(),
                    preset: *preset,
                    node: *node,
                })
                .collect(),
            look_at: map.look_at,
        })
    }
}

#[derive(Debug, Serialize)]
pub struct HumanBoneDoc {
    pub bone: String,
    pub node: usize,
}

impl VrmDoc {
    pub fn new(rig: &Rig) -> Option<Self> {
        let vrm = rig.vrm.as_ref()?;
        Some(VrmDoc {
            version: vrm.version,
            humanoid: (vrm.bones.iter())
                .map(|b| HumanBoneDoc { bone: b.name.clone(), node: b.node })
                .collect(),
            expressions: vrm.expressions.clone(),
        })
    }
}

/// The VRM section of `inspect`'s text, or nothing for a file that is not a VRM avatar or
/// animation.
pub fn write_text(rig: &Rig, out: &mut dyn Write) -> io::Result<()> {
    if let Some(doc) = VrmAnimationDoc::new(rig) {
        writeln!(out, "\nVRM animation: {} humanoid bones", doc.humanoid.len())?;
        for e in &doc.expressions {
            let kind = if e.preset { "preset" } else { "custom" };
            writeln!(out, "  expression {} ({kind}): {} (node {})", e.name, rig.node_label(e.node), e.node)?;
        }
        if let Some(n) = doc.look_at {
            writeln!(out, "  lookAt: {} (node {n})", rig.node_label(n))?;
        }
    }
    let Some(doc) = VrmDoc::new(rig) else {
        return Ok(());
    };
    let version = match doc.version {
        VrmVersion::V0 => "0.x",
        VrmVersion::V1 => "1.0",
    };
    writeln!(out, "\nVRM {version} humanoid ({} bones)", doc.humanoid.len())?;
    let bone_w = doc.humanoid.iter().map(|b| b.bone.len()).max().unwrap_or(0);
    for b in &doc.humanoid {
        writeln!(out, "  {:<bone_w$} {} (node {})", b.bone, rig.node_label(b.node), b.node)?;
    }
    writeln!(out, "\nexpressions ({})", doc.expressions.len())?;
    for e in &doc.expressions {
        let kind = match &e.preset {
            Some(p) if *p == e.name => "preset".to_string(),
            Some(p) => format!("preset {p}"),
            None => "custom".to_string(),
        };
        let binary = if e.is_binary { ", binary" } else { "" };
        let binds: Vec<String> = e
            .binds
            .iter()
            .map(|b| {
                let target = match (b.node, b.mesh) {
                    (Some(n), _) => format!("{} (node {n})", rig.node_label(n)),
                    (None, Some(m)) => format!("mesh #{m}"),
                    (None, None) => "?".to_string(),
                };
                format!("{target} morph {} x {}", b.index, b.weight)
            })
            .collect();
        let binds = if binds.is_empty() { "no morph target binds".to_string() } else { binds.join(", ") };
        writeln!(out, "  {} ({kind}{binary}): {binds}", e.name)?;
    }
    Ok(())
}
