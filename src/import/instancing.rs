//! GPU instancing (`EXT_mesh_gpu_instancing`, and `KHR_mesh_gpu_instancing` read as the same
//! schema): each instanced node's per-instance `TRANSLATION`/`ROTATION`/`SCALE` become one
//! matrix per instance in `Node::instances`, `T * R * S` as the extension defines it. The
//! world transform of an instance is then `node world * instance` (applied by `anim`).
//!
//! The extension objects are those gltf-json keeps on each node, read only when
//! `extensionsUsed` names the extension.

use super::accessors::{self, CheckedAccessor, Format, Normalized, Source, snorm8, snorm16, unorm8, unorm16};
use super::{Fault, findings::Findings};
use crate::rig::{Node, Severity};
use glam::{Mat4, Quat, Vec3};
use gltf::accessor::util::Item;
use gltf::json::accessor::{ComponentType as C, Type as T};
use serde_json::Value;

/// The extension names, in the order they are looked for on a node.
pub(crate) const EXTENSIONS: [&str; 2] = ["EXT_mesh_gpu_instancing", "KHR_mesh_gpu_instancing"];

/// Component types a translation or scale may use: FLOAT, or integers under
/// `KHR_mesh_quantization` (normalized or not).
const VEC3_KINDS: &[(T, C)] =
    &[(T::Vec3, C::F32), (T::Vec3, C::I8), (T::Vec3, C::U8), (T::Vec3, C::I16), (T::Vec3, C::U16)];
const VEC4_KINDS: &[(T, C)] =
    &[(T::Vec4, C::F32), (T::Vec4, C::I8), (T::Vec4, C::U8), (T::Vec4, C::I16), (T::Vec4, C::U16)];

const VEC3_NEED: &str = "VEC3 of FLOAT, or of BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT";
const VEC4_NEED: &str = "VEC4 of FLOAT, or of BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT";

/// Fills `Node::instances` for every node that carries an instancing extension.
pub(crate) fn build(src: &Source<'_>, nodes: &mut [Node], findings: &mut Findings) -> Result<(), Fault> {
    // Files must list the extensions they use.
    if !src.json().extensions_used.iter().any(|e| EXTENSIONS.contains(&e.as_str())) {
        return Ok(());
    }
    for (i, node) in src.json().nodes.iter().enumerate() {
        let Some(map) = node.extensions.as_ref().map(|e| &e.others) else { continue };
        let Some((name, object)) = EXTENSIONS.iter().find_map(|&n| Some((n, map.get(n)?))) else {
            continue;
        };
        let Some(node) = nodes.get_mut(i) else { continue };
        let at = format!("nodes[{i}].extensions.{name}");
        let pointer = format!("/nodes/{i}/extensions/{name}");
        if node.mesh.is_none() {
            findings.push(
                "RIG_INSTANCING_IGNORED",
                Severity::Warning,
                pointer,
                "the node has no mesh: its instancing extension means nothing and is ignored",
            );
            continue;
        }
        // Each instance draws the whole mesh: refuse counts past the drawn-vertex budget
        // before any instance attribute is read.
        let vertices = node.mesh.map_or(1, |m| mesh_vertices(src.json(), m)).max(1);
        let max_instances = src.budget().drawn_vertices() / vertices;
        let instances = read_instances(src, object, &at, max_instances, findings)?;
        if instances.is_empty() {
            findings.push(
                "RIG_INSTANCING_IGNORED",
                Severity::Warning,
                pointer,
                "no TRANSLATION, ROTATION or SCALE attribute: the mesh is drawn once",
            );
            continue;
        }
        if node.skin.is_some() {
            // Skinning places vertices by joints alone (the node's transform is ignored),
            // so an instance transform has nothing to apply to; the mesh is drawn once.
            findings.push(
                "RIG_INSTANCING_IGNORED",
                Severity::Warning,
                pointer,
                "a skinned mesh cannot be instanced: it is drawn once, skinned",
            );
            continue;
        }
        report_non_finite(findings, &instances, i);
        node.instances = instances;
    }
    Ok(())
}

/// The vertices mesh `mesh` declares (its primitives' POSITION counts), from the JSON.
fn mesh_vertices(root: &gltf::json::Root, mesh: usize) -> u64 {
    let Some(mesh) = root.meshes.get(mesh) else { return 0 };
    mesh.primitives
        .iter()
        .filter_map(|p| p.attributes.get(&gltf::json::validation::Checked::Valid(gltf::Semantic::Positions)))
        .filter_map(|a| root.accessors.get(a.value()))
        .fold(0u64, |n, a| n.saturating_add(a.count.0))
}

/// One `T * R * S` matrix per instance; empty without any of the three attributes.
fn read_instances(
    src: &Source<'_>,
    object: &Value,
    at: &str,
    max_instances: u64,
    findings: &mut Findings,
) -> Result<Vec<Mat4>, Fault> {
    let attributes = match object.get("attributes") {
        Some(Value::Object(a)) => a,
        Some(_) => return Err(Fault::new(format!("{at}.attributes"), "is not an object")),
        None => return Err(Fault::new(at, "attributes: required property is missing")),
    };
    let index = |name: &str| -> Result<Option<usize>, Fault> {
        match attributes.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .map(Some)
                .ok_or_else(|| Fault::new(format!("{at}.attributes.{name}"), "is not an accessor index")),
        }
    };
    let read3 = |name: &str, findings: &mut Findings| -> Result<Option<Vec<[f32; 3]>>, Fault> {
        index(name)?
            .map(|a| {
                read::<3>(src, a, VEC3_KINDS, &format!("{at}.attributes.{name}"), max_instances, findings)
            })
            .transpose()
    };
    let translations = read3("TRANSLATION", findings)?;
    let scales = read3("SCALE", findings)?;
    let rotations = index("ROTATION")?
        .map(|a| read::<4>(src, a, VEC4_KINDS, &format!("{at}.attributes.ROTATION"), max_instances, findings))
        .transpose()?;
    let counts = [
        translations.as_ref().map(Vec::len),
        rotations.as_ref().map(Vec::len),
        scales.as_ref().map(Vec::len),
    ];
    let mut present = counts.iter().flatten();
    let Some(&count) = present.next() else { return Ok(Vec::new()) };
    if present.any(|&c| c != count) {
        let [t, r, s] = counts.map(|c| c.map_or("-".to_string(), |c| c.to_string()));
        return Err(Fault::new(
            format!("{at}.attributes"),
            format!("TRANSLATION, ROTATION and SCALE must have the same count (they have {t}, {r}, {s})"),
        ));
    }
    Ok((0..count)
        .map(|k| {
            let t = translations.as_ref().map_or(Vec3::ZERO, |v| Vec3::from_array(v[k]));
            let r = rotations.as_ref().map_or(Quat::IDENTITY, |v| Quat::from_array(v[k]));
            let s = scales.as_ref().map_or(Vec3::ONE, |v| Vec3::from_array(v[k]));
            Mat4::from_scale_rotation_translation(s, r, t)
        })
        .collect())
}

/// Reads accessor `index` as `N` floats per element: FLOAT as is, integers by the spec's
/// normalisation when the accessor says `normalized`, else as their plain values.
fn read<const N: usize>(
    src: &Source<'_>,
    index: usize,
    kinds: &'static [(T, C)],
    at: &str,
    max_instances: u64,
    findings: &mut Findings,
) -> Result<Vec<[f32; N]>, Fault>
where
    [f32; N]: Item,
    [i8; N]: Item,
    [u8; N]: Item,
    [i16; N]: Item,
    [u16; N]: Item,
{
    let normalized = src.json().accessors.get(index).is_some_and(|a| a.normalized);
    // Either storage is allowed, so the accessor's own flag decides how it is decoded.
    let format = Format {
        role: "an instance attribute",
        need: if N == 3 { VEC3_NEED } else { VEC4_NEED },
        allowed: kinds,
        normalized: if normalized { Normalized::Ints } else { Normalized::Never },
    };
    let acc = src.check(index, &format, at, findings)?;
    src.charge_copy(&acc, at)?;
    if acc.count as u64 > max_instances {
        return Err(Fault::new(
            at,
            format!(
                "accessors[{index}] claims {} instances of the node's mesh, more than the {max_instances} whose vertices rigscope draws for a {}-byte input",
                acc.count,
                src.budget().input_bytes
            ),
        ));
    }
    fn decoded<I: Item + Copy, const N: usize>(
        src: &Source<'_>,
        acc: &CheckedAccessor,
        at: &str,
        f: fn(I) -> f32,
    ) -> Result<Vec<[f32; N]>, Fault>
    where
        [I; N]: Item,
    {
        let iter = accessors::items::<[I; N]>(src, acc.index).map(|i| i.map(|v| v.map(f)));
        accessors::collect(acc, iter, [0.0; N], at)
    }
    match (acc.component, normalized) {
        (C::I8, true) => decoded(src, &acc, at, snorm8),
        (C::U8, true) => decoded(src, &acc, at, unorm8),
        (C::I16, true) => decoded(src, &acc, at, snorm16),
        (C::U16, true) => decoded(src, &acc, at, unorm16),
        (C::I8, false) => decoded::<i8, N>(src, &acc, at, f32::from),
        (C::U8, false) => decoded::<u8, N>(src, &acc, at, f32::from),
        (C::I16, false) => decoded::<i16, N>(src, &acc, at, f32::from),
        (C::U16, false) => decoded::<u16, N>(src, &acc, at, f32::from),
        _ => decoded::<f32, N>(src, &acc, at, std::convert::identity),
    }
}

fn report_non_finite(findings: &mut Findings, instances: &[Mat4], node: usize) {
    if let Some(k) = instances.iter().position(|m| !m.is_finite()) {
        findings.push(
            "RIG_NODE_TRANSFORM_NOT_FINITE",
            Severity::Error,
            format!("/nodes/{node}"),
            format!(
                "instance {k}'s transform holds a value that is NaN or infinite; that instance is meaningless"
            ),
        );
    }
}
