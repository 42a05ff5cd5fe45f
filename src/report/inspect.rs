//! `rigscope inspect`: the asset at a glance, as a serde document and as text.

use std::io::{self, Write};

use serde::Serialize;

use super::{interpolation_name, topology_name};
use crate::rig::{Compression, ExtensionHandling, Interpolation, Primitive, Rig, Skin};

/// The version of the `inspect --json` document (`InspectDoc`).
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct InspectDoc {
    pub format_version: u32,
    pub file: String,
    pub generator: Option<String>,
    pub default_scene: Option<usize>,
    pub scenes: Vec<SceneDoc>,
    pub nodes: Vec<NodeDoc>,
    pub skins: Vec<SkinDoc>,
    pub meshes: Vec<MeshDoc>,
    pub clips: Vec<ClipDoc>,
    /// Data-level findings recorded at load (see `rigscope check` for the weight rules).
    pub findings: Vec<crate::rig::Finding>,
    /// The file's `extensionsUsed`, as listed.
    pub extensions_used: Vec<String>,
    /// The file's `extensionsRequired`, as listed.
    pub extensions_required: Vec<String>,
    /// Every extension the file names, with what rigscope does with it.
    pub extensions: Vec<ExtensionDoc>,
    /// Bytes per accessor, buffer, mesh, animation and image, counted as glTF Transform's
    /// `inspect` counts them.
    pub sizes: crate::rig::Sizes,
    /// GPU memory once loaded: decoded textures (RGBA8, full mip chain) and geometry.
    pub gpu_estimate: crate::rig::GpuEstimate,
    /// The humanoid mapping and expressions of a VRM avatar; absent for other files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrm: Option<super::vrm::VrmDoc>,
    /// What a VRM animation's (`.vrma`) nodes are; absent for other files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrm_animation: Option<super::vrm::VrmAnimationDoc>,
}

#[derive(Debug, Serialize)]
pub struct ExtensionDoc {
    pub name: String,
    pub required: bool,
    /// `applied` (read at load), `ignored` (materials, textures, lights, metadata, or not
    /// required) or `unsupported` (never in a loaded file: such files are refused).
    pub handling: ExtensionHandling,
}

#[derive(Debug, Serialize)]
pub struct AttributeDoc {
    /// `POSITION`, `JOINTS_0`, ..., and `indices` for the index accessor.
    pub name: String,
    /// Accessor type: `SCALAR`, `VEC2`, `VEC3`, `VEC4`, ...
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Component type as glTF names it: `FLOAT`, `UNSIGNED_BYTE`, `SHORT`, ...
    pub component: &'static str,
    pub normalized: bool,
}

#[derive(Debug, Serialize)]
pub struct SceneDoc {
    pub index: usize,
    pub name: Option<String>,
    pub roots: Vec<usize>,
}

#[derive(Debug, Serialize)]
pub struct NodeDoc {
    pub index: usize,
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    /// True when the file gives a `matrix` instead of TRS.
    pub matrix: bool,
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    /// GPU instances (`EXT_mesh_gpu_instancing`) the node draws its mesh at; only present
    /// on instanced nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<usize>,
    /// The VRM humanoid bone this node is mapped to; only present on mapped nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub humanoid_bone: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SkinDoc {
    pub index: usize,
    pub name: Option<String>,
    pub joint_count: usize,
    /// Node indices, in the skin's order (`JOINTS_n` index into this list).
    pub joints: Vec<usize>,
    pub skeleton: Option<usize>,
    pub has_inverse_bind_matrices: bool,
    /// Levels in the joint tree (a single root joint is depth 1).
    pub depth: usize,
    /// The nodes that use this skin, in node order, each with its mesh: what it deforms.
    pub deforms: Vec<SkinUser>,
}

/// A node whose `skin` is this skin.
#[derive(Debug, Serialize)]
pub struct SkinUser {
    pub node: usize,
    pub mesh: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct MeshDoc {
    pub index: usize,
    pub name: Option<String>,
    pub primitives: Vec<PrimitiveDoc>,
}

#[derive(Debug, Serialize)]
pub struct PrimitiveDoc {
    pub index: usize,
    pub mode: &'static str,
    pub vertices: usize,
    pub triangles: usize,
    /// Number of `JOINTS_n`/`WEIGHTS_n` pairs.
    pub influence_sets: usize,
    /// Most non-zero weights any one vertex has, over all sets.
    pub max_influences: usize,
    /// Has joints/weights and is instanced by a node with a skin.
    pub skinned: bool,
    pub morph_targets: usize,
    /// Every attribute's stored format (then `indices`), before rigscope decoded it.
    pub attributes: Vec<AttributeDoc>,
    /// `meshopt` or `draco` when the primitive's data came compressed, else null.
    pub compression: Option<Compression>,
}

#[derive(Debug, Serialize)]
pub struct ClipDoc {
    pub index: usize,
    pub name: Option<String>,
    pub duration: f32,
    pub channels: usize,
    /// Distinct interpolations used, in the order first met.
    pub interpolations: Vec<&'static str>,
    /// Keys summed over all channels.
    pub keys: usize,
    /// Channels loaded but not played (`KHR_animation_pointer` on materials, cameras,
    /// lights, ...); only present when there are some. Not counted in `channels`/`keys`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_previewed: Vec<NotPreviewedDoc>,
}

#[derive(Debug, Serialize)]
pub struct NotPreviewedDoc {
    /// Index of the channel in the file's animation.
    pub channel: usize,
    pub pointer: String,
    pub interpolation: &'static str,
    pub keys: usize,
    pub reason: String,
}

impl InspectDoc {
    pub fn new(rig: &Rig) -> Self {
        let skinned_meshes = skinned_meshes(rig);
        InspectDoc {
            format_version: FORMAT_VERSION,
            file: rig.source.clone(),
            generator: rig.generator.clone(),
            default_scene: rig.default_scene,
            scenes: rig
                .scenes
                .iter()
                .enumerate()
                .map(|(index, s)| SceneDoc { index, name: s.name.clone(), roots: s.roots.clone() })
                .collect(),
            nodes: rig
                .nodes
                .iter()
                .enumerate()
                .map(|(index, n)| NodeDoc {
                    index,
                    name: n.name.clone(),
                    parent: n.parent,
                    children: n.children.clone(),
                    mesh: n.mesh,
                    skin: n.skin,
                    matrix: n.matrix.is_some(),
                    translation: n.rest.translation.to_array(),
                    rotation: n.rest.rotation.to_array(),
                    scale: n.rest.scale.to_array(),
                    instances: (!n.instances.is_empty()).then_some(n.instances.len()),
                    humanoid_bone: humanoid_bone(rig, index),
                })
                .collect(),
            skins: rig
                .skins
                .iter()
                .enumerate()
                .map(|(index, s)| SkinDoc {
                    index,
                    name: s.name.clone(),
                    joint_count: s.joints.len(),
                    joints: s.joints.clone(),
                    skeleton: s.skeleton,
                    has_inverse_bind_matrices: s.inverse_bind_accessor.is_some(),
                    depth: joint_tree_depth(s),
                    deforms: skin_users(rig, index),
                })
                .collect(),
            meshes: rig
                .meshes
                .iter()
                .enumerate()
                .map(|(index, m)| MeshDoc {
                    index,
                    name: m.name.clone(),
                    primitives: m
                        .primitives
                        .iter()
                        .enumerate()
                        .map(|(pi, p)| PrimitiveDoc {
                            index: pi,
                            mode: topology_name(p.topology),
                            vertices: p.vertex_count(),
                            triangles: p.triangle_count(),
                            influence_sets: p.influences.len(),
                            max_influences: max_influences(p),
                            skinned: p.is_skinned() && skinned_meshes[index],
                            morph_targets: p.morph_targets.len(),
                            attributes: stored(rig, index, pi)
                                .map(|st| {
                                    st.attributes
                                        .iter()
                                        .map(|a| AttributeDoc {
                                            name: a.name.clone(),
                                            kind: a.kind,
                                            component: a.component,
                                            normalized: a.normalized,
                                        })
                                        .collect()
                                })
                                .unwrap_or_default(),
                            compression: stored(rig, index, pi).and_then(|st| st.compression),
                        })
                        .collect(),
                })
                .collect(),
            clips: rig
                .clips
                .iter()
                .enumerate()
                .map(|(index, c)| {
                    let mut kinds: Vec<Interpolation> = Vec::new();
                    for ch in &c.channels {
                        if !kinds.contains(&ch.interpolation) {
                            kinds.push(ch.interpolation);
                        }
                    }
                    ClipDoc {
                        index,
                        name: c.name.clone(),
                        duration: c.duration,
                        channels: c.channels.len(),
                        interpolations: kinds.into_iter().map(interpolation_name).collect(),
                        keys: c.channels.iter().map(|ch| ch.times.len()).sum(),
                        not_previewed: not_previewed(rig, index),
                    }
                })
                .collect(),
            findings: rig.findings.clone(),
            sizes: rig.storage.sizes.clone(),
            gpu_estimate: rig.storage.sizes.gpu_estimate(),
            extensions_used: rig
                .storage
                .extensions
                .iter()
                .filter(|e| e.used)
                .map(|e| e.name.clone())
                .collect(),
            extensions_required: rig
                .storage
                .extensions
                .iter()
                .filter(|e| e.required)
                .map(|e| e.name.clone())
                .collect(),
            extensions: rig
                .storage
                .extensions
                .iter()
                .map(|e| ExtensionDoc { name: e.name.clone(), required: e.required, handling: e.handling })
                .collect(),
            vrm: super::vrm::VrmDoc::new(rig),
            vrm_animation: super::vrm::VrmAnimationDoc::new(rig),
        }
    }
}

/// The VRM humanoid bone name of `node`, when the file maps it.
pub fn humanoid_bone(rig: &Rig, node: usize) -> Option<String> {
    rig.vrm.as_ref().and_then(|v| v.bone_of(node)).map(str::to_string)
}

fn not_previewed(rig: &Rig, clip: usize) -> Vec<NotPreviewedDoc> {
    rig.unpreviewed_channels
        .iter()
        .filter(|u| u.clip == clip)
        .map(|u| NotPreviewedDoc {
            channel: u.channel,
            pointer: u.pointer.clone(),
            interpolation: interpolation_name(u.interpolation),
            keys: u.times.len(),
            reason: u.reason.clone(),
        })
        .collect()
}

fn stored(rig: &Rig, mesh: usize, primitive: usize) -> Option<&crate::rig::PrimitiveStorage> {
    rig.storage.primitives.iter().find(|p| p.mesh == mesh && p.primitive == primitive)
}

fn handling_name(h: ExtensionHandling) -> &'static str {
    match h {
        ExtensionHandling::Applied => "applied",
        ExtensionHandling::Ignored => "ignored",
        ExtensionHandling::Unsupported => "unsupported",
    }
}

/// For each mesh: is it instanced by at least one node that has a skin?
fn skinned_meshes(rig: &Rig) -> Vec<bool> {
    let mut flags = vec![false; rig.meshes.len()];
    for node in &rig.nodes {
        if let (Some(m), Some(_)) = (node.mesh, node.skin)
            && let Some(f) = flags.get_mut(m)
        {
            *f = true;
        }
    }
    flags
}

/// The nodes that name skin `skin`, with their meshes.
fn skin_users(rig: &Rig, skin: usize) -> Vec<SkinUser> {
    (rig.nodes.iter().enumerate())
        .filter(|(_, n)| n.skin == Some(skin))
        .map(|(node, n)| SkinUser { node, mesh: n.mesh })
        .collect()
}

/// Characters of the largest of `count` indices, so that `#9` and `#10` line up.
fn index_width(count: usize) -> usize {
    count.saturating_sub(1).to_string().len()
}

/// Most non-zero weights on one vertex, counting every influence set.
pub fn max_influences(p: &Primitive) -> usize {
    let mut most = 0;
    p.for_each_influences(|_, slots| most = most.max(slots.iter().filter(|&&(_, w)| w != 0.0).count()));
    most
}

/// Depth of each joint in the skin's own tree (roots are 1), by position in `joints`.
pub fn joint_depths(skin: &Skin) -> Vec<usize> {
    let mut depth = vec![1usize; skin.joints.len()];
    // joint_order is parents-first, so each parent's depth is final before its children.
    for &j in &skin.joint_order {
        if let Some(Some(p)) = skin.joint_parent.get(j)
            && let Some(&pd) = depth.get(*p)
        {
            depth[j] = pd + 1;
        }
    }
    depth
}

fn joint_tree_depth(skin: &Skin) -> usize {
    joint_depths(skin).into_iter().max().unwrap_or(0)
}

/// Writes the human summary: header, skins, primitives, clips, then each skin's joint tree.
/// "409,076 B (399.5 KiB)": exact bytes, and a reading in binary units past a KiB.
pub fn bytes(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let units = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match units.iter().find(|(_, u)| n >= *u) {
        Some((name, u)) => format!("{grouped} B ({:.1} {name})", n as f64 / *u as f64),
        None => format!("{grouped} B"),
    }
}

/// How many of the largest items of each kind the glance names.
const LARGEST: usize = 3;

/// How much of the sizes the text shows: a glance (totals per kind, the largest items), or
/// every buffer, accessor, mesh, animation and texture (`inspect --sizes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SizeDetail {
    #[default]
    Glance,
    Every,
}

fn write_sizes(
    s: &crate::rig::Sizes,
    gpu: &crate::rig::GpuEstimate,
    detail: SizeDetail,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "\nsizes")?;
    if detail == SizeDetail::Glance {
        let textures: Vec<u64> = s.textures.iter().map(|t| t.bytes).collect();
        let kinds: [(&str, &str, &[u64]); 5] = [
            ("buffers", "buffer", &s.buffers),
            ("accessors", "accessor", &s.accessors),
            ("meshes", "mesh", &s.meshes),
            ("animations", "animation", &s.animations),
            ("textures", "texture", &textures),
        ];
        let mut hidden = false;
        for (kind, one, sizes) in kinds.into_iter().filter(|(_, _, v)| !v.is_empty()) {
            writeln!(out, "  {}", glance_line(kind, one, sizes))?;
            hidden |= sizes.len() > LARGEST;
        }
        write_gpu(gpu, out)?;
        if hidden {
            writeln!(out, "  (every buffer, accessor, mesh, animation and texture: inspect --sizes)")?;
        }
        return Ok(());
    }
    let total = |v: &[u64]| v.iter().copied().fold(0u64, u64::saturating_add);
    writeln!(out, "  buffers    {} in {}", bytes(total(&s.buffers)), plural_n(s.buffers.len(), "buffer"))?;
    for (i, b) in s.buffers.iter().enumerate() {
        writeln!(out, "    buffer #{i}      {}", bytes(*b))?;
    }
    writeln!(
        out,
        "  accessors  {} in {}",
        bytes(total(&s.accessors)),
        plural_n(s.accessors.len(), "accessor")
    )?;
    for (i, a) in s.accessors.iter().enumerate() {
        writeln!(out, "    accessor #{i:<4} {}", bytes(*a))?;
    }
    for (i, m) in s.meshes.iter().enumerate() {
        writeln!(out, "  mesh #{i}    {}", bytes(*m))?;
    }
    for (i, a) in s.animations.iter().enumerate() {
        writeln!(out, "  animation #{i} {}", bytes(*a))?;
    }
    for (i, t) in s.textures.iter().enumerate() {
        let res = t.resolution.map_or("size unknown".to_string(), |[w, h]| format!("{w}x{h}"));
        let gpu = t.gpu_bytes.map_or(String::new(), |g| format!(", GPU {}", bytes(g)));
        let mime = if t.mime_type.is_empty() { "unknown type" } else { t.mime_type.as_str() };
        writeln!(out, "  texture #{i} {} {mime} {res}{gpu}", bytes(t.bytes))?;
    }
    write_gpu(gpu, out)
}

/// `accessors  1,234 B in 40 accessors; largest #3 400 B, #0 300 B, #9 200 B`: the total of
/// one kind and its largest items (ties in file order).
fn glance_line(kind: &str, one: &str, sizes: &[u64]) -> String {
    let total = sizes.iter().copied().fold(0u64, u64::saturating_add);
    let line = format!("{kind:<10} {} in {}", bytes(total), plural_n(sizes.len(), one));
    if sizes.len() < 2 {
        return line;
    }
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let largest: Vec<String> =
        order.iter().take(LARGEST).map(|&i| format!("#{i} {}", short_bytes(sizes[i]))).collect();
    format!("{line}; largest {}", largest.join(", "))
}

/// `114.3 KiB`, `512 B`: `bytes`'s reading alone, for lists.
fn short_bytes(n: u64) -> String {
    let full = bytes(n);
    match full.split_once(" (") {
        Some((_, reading)) => reading.trim_end_matches(')').to_string(),
        None => full,
    }
}

fn write_gpu(gpu: &crate::rig::GpuEstimate, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "  GPU memory estimate {}: textures {} (RGBA8, full mip chain) + geometry {}",
        bytes(gpu.total),
        bytes(gpu.textures),
        bytes(gpu.geometry)
    )
}

/// "1 clip", "48 clips".
pub fn plural_n(n: usize, one: &str) -> String {
    format!("{n} {}", plural(n, one))
}

pub fn write_text(rig: &Rig, detail: SizeDetail, out: &mut dyn Write) -> io::Result<()> {
    let doc = InspectDoc::new(rig);
    writeln!(out, "{}", doc.file)?;
    writeln!(out, "  generator  {}", doc.generator.as_deref().unwrap_or("(not given)"))?;
    let scene = match rig.scene() {
        Some(s) => format!(
            "{} (showing #{}{})",
            rig.scenes.len(),
            rig.default_scene.unwrap_or(0),
            s.name.as_deref().map(|n| format!(" \"{n}\"")).unwrap_or_default()
        ),
        None => "none (all nodes shown)".to_string(),
    };
    writeln!(out, "  scenes     {scene}")?;
    writeln!(out, "  nodes      {}", doc.nodes.len())?;
    for n in doc.nodes.iter().filter(|n| n.instances.is_some()) {
        let count = n.instances.unwrap_or_default();
        writeln!(
            out,
            "  instanced  {} (node {}): {count} {}",
            rig.node_label(n.index),
            n.index,
            plural(count, "instance")
        )?;
    }
    if !doc.extensions.is_empty() {
        let list: Vec<String> = doc
            .extensions
            .iter()
            .map(|e| {
                let required = if e.required { "required, " } else { "" };
                format!("{} ({required}{})", e.name, handling_name(e.handling))
            })
            .collect();
        writeln!(out, "  extensions {}", list.join(", "))?;
    }

    writeln!(out, "\nskins ({})", doc.skins.len())?;
    let index_w = index_width(doc.skins.len());
    for s in &doc.skins {
        let root = s
            .skeleton
            .map(|n| format!("{} (node {n})", rig.node_label(n)))
            .unwrap_or_else(|| "(not given)".into());
        writeln!(
            out,
            "  #{:<index_w$} {:<20} {:>4} joints  depth {:>2}  IBMs {}  skeleton {}",
            s.index,
            quoted(&s.name),
            s.joint_count,
            s.depth,
            if s.has_inverse_bind_matrices { "yes" } else { "no (identity)" },
            root
        )?;
        writeln!(out, "   {:<index_w$} deforms {}", "", skin_users_text(rig, &s.deforms))?;
    }

    writeln!(out, "\nmeshes ({})", doc.meshes.len())?;
    let label_w = (doc.meshes.iter())
        .flat_map(|m| m.primitives.iter().map(move |p| format!("{}.{}", m.index, p.index).len()))
        .max()
        .unwrap_or(0);
    for m in &doc.meshes {
        for p in &m.primitives {
            writeln!(
                out,
                "  #{:<label_w$} {:<20} {:>7} vertices {:>7} triangles  {:<14} {} influence set{}, max {} influences, {}{}",
                format!("{}.{}", m.index, p.index),
                quoted(&m.name),
                p.vertices,
                p.triangles,
                p.mode,
                p.influence_sets,
                if p.influence_sets == 1 { "" } else { "s" },
                p.max_influences,
                if p.skinned { "skinned" } else { "rigid" },
                if p.morph_targets > 0 {
                    format!(", {} morph targets", p.morph_targets)
                } else {
                    String::new()
                },
            )?;
            let formats: Vec<String> = p
                .attributes
                .iter()
                .map(|a| {
                    let norm = if a.normalized { " normalized" } else { "" };
                    format!("{} {} {}{norm}", a.name, a.kind, a.component)
                })
                .collect();
            let compression = match p.compression {
                Some(Compression::Meshopt) => " (meshopt-compressed)",
                Some(Compression::Draco) => " (Draco-compressed)",
                None => "",
            };
            writeln!(out, "      stored{compression}: {}", formats.join(", "))?;
        }
    }

    writeln!(out, "\nclips ({})", doc.clips.len())?;
    let name_w = doc
        .clips
        .iter()
        .map(|c| quoted(&c.name.clone().filter(|n| !n.is_empty())).chars().count())
        .max()
        .unwrap_or(0);
    let index_w = index_width(doc.clips.len());
    for c in &doc.clips {
        writeln!(
            out,
            "  #{:<index_w$} {:<name_w$} {:>8.4} s {:>4} {:<8} {:>6} {:<4}  {}",
            c.index,
            quoted(&c.name.clone().filter(|n| !n.is_empty())),
            c.duration,
            c.channels,
            plural(c.channels, "channel"),
            c.keys,
            plural(c.keys, "key"),
            c.interpolations.join(", ")
        )?;
        for u in &c.not_previewed {
            let target = if u.pointer.is_empty() { "(no target)" } else { u.pointer.as_str() };
            writeln!(
                out,
                "      not previewed: channel {} {target} ({}, {} {}): {}",
                u.channel,
                u.interpolation,
                u.keys,
                plural(u.keys, "key"),
                u.reason
            )?;
        }
    }

    write_sizes(&doc.sizes, &doc.gpu_estimate, detail, out)?;
    super::vrm::write_text(rig, out)?;

    if !doc.findings.is_empty() {
        writeln!(out, "\nfindings at load ({})", doc.findings.len())?;
        for f in &doc.findings {
            writeln!(out, "  {:?} {} {}: {}", f.severity, f.code, f.pointer, f.message)?;
        }
    }

    for (si, skin) in rig.skins.iter().enumerate() {
        writeln!(out, "\njoint tree of skin #{si} {}", quoted(&skin.name))?;
        write_joint_tree(rig, skin, out)?;
    }
    Ok(())
}

/// Depth-first listing with children in file order; iterative so deep chains cannot overflow.
fn write_joint_tree(rig: &Rig, skin: &Skin, out: &mut dyn Write) -> io::Result<()> {
    let n = skin.joints.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for j in 0..n {
        match skin.joint_parent.get(j).copied().flatten() {
            Some(p) if p < n => children[p].push(j),
            _ => roots.push(j),
        }
    }
    let mut stack: Vec<(usize, usize)> = roots.into_iter().rev().map(|r| (r, 0)).collect();
    while let Some((j, level)) = stack.pop() {
        let node = skin.joints[j];
        // Deep chains keep a bounded indent so the listing stays linear in size.
        let indent = "  ".repeat(level.min(MAX_INDENT));
        let deeper = if level > MAX_INDENT { format!("[depth {}] ", level + 1) } else { String::new() };
        let bone = humanoid_bone(rig, node).map(|b| format!(" [{b}]")).unwrap_or_default();
        writeln!(out, "  {indent}{deeper}{} (node {node}, joint {j}){bone}", rig.node_label(node))?;
        stack.extend(children[j].iter().rev().map(|&c| (c, level + 1)));
    }
    Ok(())
}

const MAX_INDENT: usize = 32;

/// "channel" or "channels" for a count.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 { word.to_string() } else { format!("{word}s") }
}

/// `node 10 "body" (mesh #0 "body")`, joined by commas; or why the skin deforms nothing.
fn skin_users_text(rig: &Rig, users: &[SkinUser]) -> String {
    if users.is_empty() {
        return "nothing: no node uses this skin".to_string();
    }
    let named = |name: Option<&str>| name.map(|n| format!(" \"{n}\"")).unwrap_or_default();
    (users.iter())
        .map(|u| {
            let node = named(rig.nodes.get(u.node).and_then(|n| n.name.as_deref()));
            let mesh = match u.mesh {
                Some(m) => format!("mesh #{m}{}", named(rig.meshes.get(m).and_then(|m| m.name.as_deref()))),
                None => "no mesh".to_string(),
            };
            format!("{mesh} on node {}{node}", u.node)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn quoted(name: &Option<String>) -> String {
    match name {
        Some(n) => format!("\"{n}\""),
        None => "(unnamed)".into(),
    }
}
