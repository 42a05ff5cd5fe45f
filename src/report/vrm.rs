//! The VRM part of `inspect`: the humanoid mapping and the expressions with their binds, as a
//! serde document and as text. Only present for VRM avatars.

use std::io::{self, Write};

use serde::Serialize;

use crate::rig::{Expression, LookAt, LookAtKind, RangeMap, Rig, VrmVersion};
use crate::vrm::{ConstraintKind, Meta, NodeConstraints, SpringBones};

#[derive(Debug, Serialize)]
pub struct VrmDoc {
    /// `0.x` (`extensions.VRM`) or `1.0` (`extensions.VRMC_vrm`).
    pub version: VrmVersion,
    /// Every mapping entry in file order, with the bone name as the file spells it.
    pub humanoid: Vec<HumanBoneDoc>,
    /// Expressions (VRM 1.0 presets then custom ones) or blend shape groups (VRM 0.x).
    pub expressions: Vec<Expression>,
    /// Title, version, authors and the licence fields, as the file states them.
    pub meta: Meta,
    /// The gaze set-up; absent when the avatar has none.
    pub look_at: Option<LookAtDoc>,
    /// The spring bones as three-vrm builds them (joints, colliders, collider groups, chains).
    pub springs: SpringBones,
    /// The node constraints as three-vrm builds them, in file order, with the update order.
    pub constraints: NodeConstraints,
}

/// `lookAt` (VRM 0.x `firstPerson`) as three-vrm reads it.
#[derive(Debug, Serialize)]
pub struct LookAtDoc {
    /// `bone` (the eyes turn) or `expression` (lookUp/Down/Left/Right weights).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Where the gaze starts, in the head's space.
    pub offset: [f32; 3],
    pub horizontal_inner: RangeMapDoc,
    pub horizontal_outer: RangeMapDoc,
    pub vertical_down: RangeMapDoc,
    pub vertical_up: RangeMapDoc,
}

/// Degrees in (up to `input_max`) to degrees or a weight out (up to `output_scale`).
#[derive(Debug, Serialize)]
pub struct RangeMapDoc {
    pub input_max: f32,
    pub output_scale: f32,
}

impl From<RangeMap> for RangeMapDoc {
    fn from(m: RangeMap) -> Self {
        Self { input_max: m.input_max, output_scale: m.output_scale }
    }
}

impl From<&LookAt> for LookAtDoc {
    fn from(l: &LookAt) -> Self {
        Self {
            kind: match l.kind {
                LookAtKind::Bone => "bone",
                LookAtKind::Expression => "expression",
            },
            offset: l.offset,
            horizontal_inner: l.horizontal_inner.into(),
            horizontal_outer: l.horizontal_outer.into(),
            vertical_down: l.vertical_down.into(),
            vertical_up: l.vertical_up.into(),
        }
    }
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
            meta: vrm.meta.clone(),
            look_at: vrm.look_at.as_ref().map(LookAtDoc::from),
            springs: vrm.springs.clone(),
            constraints: vrm.constraints.clone(),
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
    write_meta(&doc.meta, out)?;
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
    if let Some(l) = &doc.look_at {
        let m = |r: &RangeMapDoc| format!("{} -> {}", r.input_max, r.output_scale);
        writeln!(
            out,
            "\nlookAt ({}): from {:?} in the head; horizontal inner {}, outer {}, vertical down {}, up {}",
            l.kind,
            l.offset,
            m(&l.horizontal_inner),
            m(&l.horizontal_outer),
            m(&l.vertical_down),
            m(&l.vertical_up)
        )?;
    }
    write_springs(rig, &doc.springs, out)?;
    write_constraints(rig, &doc.constraints, out)
}

/// The node constraints in update order: destination, kind, axis, source, weight.
fn write_constraints(rig: &Rig, constraints: &NodeConstraints, out: &mut dyn Write) -> io::Result<()> {
    if constraints.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "
node constraints ({}, in update order)",
        constraints.constraints.len()
    )?;
    for c in constraints.order.iter().filter_map(|&i| constraints.constraints.get(i)) {
        let axis = match c.kind {
            ConstraintKind::Roll { axis } | ConstraintKind::Aim { axis } => {
                format!(" {}", axis.name.unwrap_or("(unknown axis: zero)"))
            }
            ConstraintKind::Rotation => String::new(),
        };
        writeln!(
            out,
            "  {} (node {}): {}{axis} from {} (node {}), weight {}",
            rig.node_label(c.destination),
            c.destination,
            c.kind.name(),
            rig.node_label(c.source),
            c.source,
            c.weight
        )?;
    }
    Ok(())
}

fn write_meta(meta: &Meta, out: &mut dyn Write) -> io::Result<()> {
    let title = meta.title.as_deref().unwrap_or("(untitled)");
    let version = meta.version.as_deref().map(|v| format!(" version {v}")).unwrap_or_default();
    let authors =
        if meta.authors.is_empty() { "no author named".to_string() } else { meta.authors.join(", ") };
    writeln!(out, "\nVRM meta: {title}{version}, by {authors}")?;
    if !meta.license.is_empty() {
        let fields: Vec<String> = meta.license.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(out, "  licence: {}", fields.join(", "))?;
    }
    Ok(())
}

/// The spring chains with their joints' settings, then the colliders.
fn write_springs(rig: &Rig, springs: &SpringBones, out: &mut dyn Write) -> io::Result<()> {
    if springs.chains.is_empty() && springs.colliders.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nspring bones ({} chains, {} joints, {} colliders in {} groups; `--springs` simulates them)",
        springs.chains.len(),
        springs.joints.len(),
        springs.colliders.len(),
        springs.groups.len()
    )?;
    for (c, chain) in springs.chains.iter().enumerate() {
        let name = chain.name.as_deref().unwrap_or("(unnamed)");
        let center =
            chain.center.map(|n| format!(", center {} (node {n})", rig.node_label(n))).unwrap_or_default();
        let groups: Vec<String> = chain
            .groups
            .iter()
            .map(|&g| springs.groups[g].name.clone().unwrap_or_else(|| format!("#{g}")))
            .collect();
        let groups = if groups.is_empty() {
            "no colliders".to_string()
        } else {
            format!("colliders {}", groups.join(", "))
        };
        writeln!(out, "  {name}: {groups}{center}")?;
        for joint in springs.joints.iter().filter(|j| j.chain == c) {
            let s = joint.settings;
            let tail = match joint.tail {
                Some(t) => format!("-> {} (node {t})", rig.node_label(t)),
                None => "-> 7 cm tail".to_string(),
            };
            writeln!(
                out,
                "    {} (node {}) {tail}: stiffness {}, drag {}, gravity {} along {:?}, radius {}",
                rig.node_label(joint.node),
                joint.node,
                s.stiffness,
                s.drag_force,
                s.gravity_power,
                s.gravity_dir.to_array(),
                s.hit_radius
            )?;
        }
    }
    for (i, collider) in springs.colliders.iter().enumerate() {
        let radius = collider.shape.radius().map(|r| format!(" radius {r}")).unwrap_or_default();
        writeln!(
            out,
            "  collider {i}: {} on {} (node {}), offset {:?}{radius}",
            collider.shape.kind(),
            rig.node_label(collider.node),
            collider.node,
            collider.shape.offset().to_array()
        )?;
    }
    Ok(())
}
