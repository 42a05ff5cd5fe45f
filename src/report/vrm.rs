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

/// The VRM section of `inspect`'s text, or nothing for a file that is not a VRM avatar.
pub fn write_text(rig: &Rig, out: &mut dyn Write) -> io::Result<()> {
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
