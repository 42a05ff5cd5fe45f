//! Meshes and primitives: positions, normals, indices (as u32, each checked against the
//! vertex count), every `JOINTS_n`/`WEIGHTS_n` pair as stored (integer weights decoded as
//! c/255 or c/65535, never renormalised), and morph target deltas. All attribute arrays of a
//! primitive must have the vertex count; all primitives of a mesh the same morph target count.

use super::accessors::{self, CheckedAccessor, Form, Format, Normalized, Source, unorm8, unorm16};
use super::{Fault, direct, findings::Findings, quantized};
use crate::rig::{Indices, InfluenceSet, Mesh, MorphTarget, Primitive, Severity, Topology, WeightStorage};
use glam::Vec3;
use gltf::json;
use gltf::json::accessor::{ComponentType as C, Type as T};
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::mesh::util::ReadWeights;
use std::collections::BTreeSet;
use std::sync::Arc;

// Integer forms are KHR_mesh_quantization's; a file that stores them without declaring
// the extension is read all the same.
const POSITION: Format = Format {
    role: "POSITION",
    need: "VEC3 of FLOAT, BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
    allowed: &[(T::Vec3, C::F32), (T::Vec3, C::I8), (T::Vec3, C::U8), (T::Vec3, C::I16), (T::Vec3, C::U16)],
    normalized: Normalized::Either,
};
const NORMAL: Format = Format {
    role: "NORMAL",
    need: "VEC3 of FLOAT, or of normalized BYTE or SHORT",
    allowed: &[(T::Vec3, C::F32), (T::Vec3, C::I8), (T::Vec3, C::I16)],
    normalized: Normalized::Ints,
};
const JOINTS: Format = Format {
    role: "JOINTS_n",
    need: "VEC4 of UNSIGNED_BYTE or UNSIGNED_SHORT",
    allowed: &[(T::Vec4, C::U8), (T::Vec4, C::U16)],
    normalized: Normalized::Never,
};
const WEIGHTS: Format = Format {
    role: "WEIGHTS_n",
    need: "VEC4 of FLOAT, or of normalized UNSIGNED_BYTE or UNSIGNED_SHORT",
    allowed: &[(T::Vec4, C::F32), (T::Vec4, C::U8), (T::Vec4, C::U16)],
    normalized: Normalized::Ints,
};
const INDICES: Format = Format {
    role: "indices",
    need: "SCALAR of UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
    allowed: &[(T::Scalar, C::U8), (T::Scalar, C::U16), (T::Scalar, C::U32)],
    normalized: Normalized::Never,
};
const MORPH_POSITION: Format = Format {
    role: "a morph target POSITION",
    need: "VEC3 of FLOAT, BYTE or SHORT",
    allowed: &[(T::Vec3, C::F32), (T::Vec3, C::I8), (T::Vec3, C::I16)],
    normalized: Normalized::Either,
};
const MORPH_DIRECTION: Format = Format {
    role: "a morph target NORMAL or TANGENT",
    need: "VEC3 of FLOAT, or of normalized BYTE or SHORT",
    allowed: &[(T::Vec3, C::F32), (T::Vec3, C::I8), (T::Vec3, C::I16)],
    normalized: Normalized::Ints,
};

pub(crate) fn build(src: &Source<'_>, findings: &mut Findings) -> Result<Vec<Mesh>, Fault> {
    let mut out = Vec::with_capacity(src.json().meshes.len());
    for (m, mesh) in src.doc().meshes().enumerate() {
        out.push(one_mesh(src, m, &mesh, findings)?);
    }
    Ok(out)
}

fn one_mesh(
    src: &Source<'_>,
    m: usize,
    mesh: &gltf::Mesh<'_>,
    findings: &mut Findings,
) -> Result<Mesh, Fault> {
    let Some(json) = src.json().meshes.get(m) else {
        return Err(Fault::new(format!("meshes[{m}]"), "does not exist"));
    };
    let mut primitives = Vec::with_capacity(json.primitives.len());
    let mut target_count = None;
    for (p, prim) in mesh.primitives().enumerate() {
        let Some(prim_json) = json.primitives.get(p) else {
            return Err(Fault::new(format!("meshes[{m}].primitives[{p}]"), "does not exist"));
        };
        let primitive = one_primitive(src, m, p, &prim, prim_json, findings)?;
        let targets = primitive.morph_targets.len();
        match target_count {
            None => target_count = Some(targets),
            Some(first) if first != targets => {
                return Err(Fault::new(
                    format!("meshes[{m}].primitives[{p}].targets"),
                    format!("has {targets} morph targets but primitives[0] has {first}"),
                ));
            }
            Some(_) => {}
        }
        primitives.push(primitive);
    }
    let targets = target_count.unwrap_or(0);
    let default_weights = match &json.weights {
        Some(w) if w.len() != targets => {
            return Err(Fault::new(
                format!("meshes[{m}].weights"),
                format!("has {} values but the primitives have {targets} morph targets", w.len()),
            ));
        }
        Some(w) => w.clone(),
        None => vec![0.0; targets],
    };
    Ok(Mesh { name: json.name.clone(), primitives, default_weights })
}

fn topology(mode: Checked<json::mesh::Mode>) -> Topology {
    use json::mesh::Mode;
    match mode {
        Checked::Valid(Mode::Points) => Topology::Points,
        Checked::Valid(Mode::Lines) => Topology::Lines,
        Checked::Valid(Mode::LineLoop) => Topology::LineLoop,
        Checked::Valid(Mode::LineStrip) => Topology::LineStrip,
        Checked::Valid(Mode::TriangleStrip) => Topology::TriangleStrip,
        Checked::Valid(Mode::TriangleFan) => Topology::TriangleFan,
        // Invalid modes are refused by validation; Triangles is the spec's default.
        Checked::Valid(Mode::Triangles) | Checked::Invalid => Topology::Triangles,
    }
}

fn one_primitive(
    src: &Source<'_>,
    m: usize,
    p: usize,
    prim: &gltf::Primitive<'_>,
    json: &json::mesh::Primitive,
    findings: &mut Findings,
) -> Result<Primitive, Fault> {
    let at = format!("meshes[{m}].primitives[{p}]");
    let attribute = |s: Semantic| json.attributes.get(&Checked::Valid(s)).map(|i| i.value());
    let target_count = json.targets.as_ref().map_or(0, Vec::len);
    let topology = topology(json.mode);

    let Some(position_index) = attribute(Semantic::Positions) else {
        findings.push(
            "RIG_PRIMITIVE_WITHOUT_POSITION",
            Severity::Info,
            format!("/meshes/{m}/primitives/{p}"),
            "the primitive has no POSITION attribute; it is loaded with 0 vertices and draws nothing",
        );
        return Ok(Primitive {
            topology,
            morph_targets: vec![MorphTarget::default(); target_count],
            ..Primitive::default()
        });
    };
    let reader = prim.reader(src.data());

    let pos_at = format!("{at}.attributes.POSITION");
    let acc = src.check(position_index, &POSITION, &pos_at, findings)?;
    let positions = shared_vec3s(src, &acc, || reader.read_positions(), &pos_at)?;
    report_vec3s(findings, &acc, &positions, "POSITION");
    let count = positions.len();

    let normals = match attribute(Semantic::Normals) {
        None => None,
        Some(index) => {
            let n_at = format!("{at}.attributes.NORMAL");
            let acc = src.check(index, &NORMAL, &n_at, findings)?;
            let normals = shared_vec3s(src, &acc, || reader.read_normals(), &n_at)?;
            same_length(&n_at, normals.len(), count)?;
            report_vec3s(findings, &acc, &normals, "NORMAL");
            Some(normals)
        }
    };

    let influences = influence_sets(src, &at, json, &reader, count, findings)?;

    let indices = match json.indices.map(|i| i.value()) {
        None => None,
        Some(index) => {
            let i_at = format!("{at}.indices");
            let acc = src.check(index, &INDICES, &i_at, findings)?;
            let indices = src.shared(&acc, Form::Indices, &i_at, || {
                let direct: Option<Arc<[u32]>> = src.elements(&acc).and_then(|e| match acc.component {
                    C::U8 => e.decode(direct::u8_index),
                    C::U16 => e.decode(direct::u16_index),
                    _ => e.decode(direct::u32_index),
                });
                Ok(Indices::new(match direct {
                    Some(indices) => indices,
                    None => accessors::collect(&acc, reader.read_indices().map(|r| r.into_u32()), 0, &i_at)?
                        .into(),
                }))
            })?;
            // The maximum (kept with the list) is a branch-free pass; the offending element
            // is looked for only when there is one. Each use checks against its own count.
            if indices.max().is_some_and(|max| max as usize >= count)
                && let Some((k, v)) = indices.iter().enumerate().find(|&(_, &v)| v as usize >= count)
            {
                return Err(Fault::new(
                    i_at,
                    format!("index {v} (element {k}) is out of range for {count} vertices"),
                ));
            }
            Some(indices)
        }
    };

    let mut morph_targets = Vec::with_capacity(target_count);
    for (t, target) in json.targets.iter().flatten().enumerate() {
        let t_at = format!("{at}.targets[{t}]");
        // TANGENT is not used, but checked like the others: a file whose deltas do not fit
        // their buffers is broken whichever of them rigscope reads.
        let mut check = |index: Option<json::Index<json::Accessor>>, name: &str| {
            let d_at = format!("{t_at}.{name}");
            let format = if name == "POSITION" { &MORPH_POSITION } else { &MORPH_DIRECTION };
            index.map(|i| src.check(i.value(), format, &d_at, findings)).transpose().map(|acc| (acc, d_at))
        };
        let positions = check(target.positions, "POSITION")?;
        let normals = check(target.normals, "NORMAL")?;
        check(target.tangents, "TANGENT")?;
        let positions = deltas(src, positions, count, findings)?;
        let normals = deltas(src, normals, count, findings)?;
        morph_targets.push(MorphTarget { positions, normals });
    }

    Ok(Primitive { topology, positions, normals, indices, influences, morph_targets })
}

/// Every `JOINTS_n`/`WEIGHTS_n` pair, in set order. A set with only one half is a fault:
/// joints without weights (or the reverse) cannot be skinned with.
fn influence_sets<'a, 's, F>(
    src: &Source<'_>,
    at: &str,
    json: &json::mesh::Primitive,
    reader: &gltf::mesh::Reader<'a, 's, F>,
    count: usize,
    findings: &mut Findings,
) -> Result<Vec<InfluenceSet>, Fault>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let mut sets = BTreeSet::new();
    for key in json.attributes.keys() {
        if let Checked::Valid(Semantic::Joints(n) | Semantic::Weights(n)) = key {
            sets.insert(*n);
        }
    }
    let mut out = Vec::with_capacity(sets.len());
    for n in sets {
        let get = |s: Semantic| json.attributes.get(&Checked::Valid(s)).map(|i| i.value());
        let j_at = format!("{at}.attributes.JOINTS_{n}");
        let w_at = format!("{at}.attributes.WEIGHTS_{n}");
        let (joints_index, weights_index) = match (get(Semantic::Joints(n)), get(Semantic::Weights(n))) {
            (Some(j), Some(w)) => (j, w),
            (Some(_), None) => {
                return Err(Fault::new(j_at, format!("has no matching WEIGHTS_{n}")));
            }
            (None, _) => return Err(Fault::new(w_at, format!("has no matching JOINTS_{n}"))),
        };
        let j_acc = src.check(joints_index, &JOINTS, &j_at, findings)?;
        let joints: Arc<[[u16; 4]]> = src.shared(&j_acc, Form::Joints, &j_at, || {
            let direct: Option<Arc<[[u16; 4]]>> = src.elements(&j_acc).and_then(|e| match j_acc.component {
                C::U8 => e.decode(|b: &[u8; 4]| direct::u8x4(b).map(u16::from)),
                _ => e.decode(direct::u16x4),
            });
            Ok(match direct {
                Some(joints) => joints,
                None => {
                    accessors::collect(&j_acc, reader.read_joints(n).map(|r| r.into_u16()), [0; 4], &j_at)?
                        .into()
                }
            })
        })?;
        same_length(&j_at, joints.len(), count)?;

        let w_acc = src.check(weights_index, &WEIGHTS, &w_at, findings)?;
        let weights: Arc<[[f32; 4]]> = src.shared(&w_acc, Form::Weights, &w_at, || {
            read_weights(src, &w_acc, || reader.read_weights(n), &w_at)
        })?;
        let weight_storage = match w_acc.component {
            C::U8 => WeightStorage::U8Norm,
            C::U16 => WeightStorage::U16Norm,
            _ => WeightStorage::F32,
        };
        same_length(&w_at, weights.len(), count)?;
        accessors::report_non_finite(findings, w_acc.index, 4, weights.iter().flatten().copied(), "WEIGHTS");
        out.push(InfluenceSet {
            set: n as usize,
            joints,
            weights,
            weight_storage,
            joints_accessor: joints_index,
            weights_accessor: weights_index,
        });
    }
    Ok(out)
}

/// Weights as stored: floats as they are, integers as c/255 or c/65535 (gltf's own
/// `into_f32` multiplies by a rounded reciprocal, which is not always the same float).
fn read_weights<'r>(
    src: &Source<'_>,
    acc: &CheckedAccessor,
    read: impl FnOnce() -> Option<ReadWeights<'r>>,
    at: &str,
) -> Result<Arc<[[f32; 4]]>, Fault> {
    let direct = src.elements(acc).and_then(|e| match acc.component {
        C::U8 => e.decode(|b: &[u8; 4]| direct::u8x4(b).map(unorm8)),
        C::U16 => e.decode(|b: &[u8; 8]| direct::u16x4(b).map(unorm16)),
        _ => e.decode(direct::f32x4),
    });
    if let Some(weights) = direct {
        return Ok(weights);
    }
    let weights = match read() {
        Some(ReadWeights::F32(it)) => accessors::collect(acc, Some(it), [0.0; 4], at)?,
        Some(ReadWeights::U8(it)) => accessors::collect(acc, Some(it.map(|c| c.map(unorm8))), [0.0; 4], at)?,
        Some(ReadWeights::U16(it)) => {
            accessors::collect(acc, Some(it.map(|c| c.map(unorm16))), [0.0; 4], at)?
        }
        None => accessors::collect(acc, None::<std::iter::Empty<[f32; 4]>>, [0.0; 4], at)?,
    };
    Ok(weights.into())
}

/// One morph target attribute's deltas, when the target has it. gltf's morph target reader
/// is not used: it reads every target attribute as floats, whatever its component type.
fn deltas(
    src: &Source<'_>,
    (acc, at): (Option<CheckedAccessor>, String),
    count: usize,
    findings: &mut Findings,
) -> Result<Option<Arc<[Vec3]>>, Fault> {
    let Some(acc) = acc else { return Ok(None) };
    let deltas: Arc<[Vec3]> = src.shared(&acc, Form::Vec3, &at, || quantized::vec3s(src, &acc, &at))?;
    same_length(&at, deltas.len(), count)?;
    report_vec3s(findings, &acc, &deltas, "morph target");
    Ok(Some(deltas))
}

/// `vec3s`, decoded once per load and shared by every use of the accessor.
fn shared_vec3s<I: Iterator<Item = [f32; 3]>>(
    src: &Source<'_>,
    acc: &CheckedAccessor,
    iter: impl FnOnce() -> Option<I>,
    at: &str,
) -> Result<Arc<[Vec3]>, Fault> {
    src.shared(acc, Form::Vec3, at, || vec3s(src, acc, iter, at))
}

/// A VEC3 accessor: floats read in bulk when it is plain, through gltf's reader (`iter`,
/// only made then) otherwise; quantized integers through `quantized`.
fn vec3s<I: Iterator<Item = [f32; 3]>>(
    src: &Source<'_>,
    acc: &CheckedAccessor,
    iter: impl FnOnce() -> Option<I>,
    at: &str,
) -> Result<Arc<[Vec3]>, Fault> {
    if acc.component != C::F32 {
        return quantized::vec3s(src, acc, at);
    }
    if let Some(values) = src.elements(acc).and_then(|e| e.decode(direct::vec3)) {
        return Ok(values);
    }
    Ok(accessors::collect(acc, iter().map(|it| it.map(Vec3::from_array)), Vec3::ZERO, at)?.into())
}

fn report_vec3s(findings: &mut Findings, acc: &CheckedAccessor, values: &[Vec3], what: &str) {
    accessors::report_non_finite(findings, acc.index, 3, values.iter().flat_map(|v| v.to_array()), what);
}

fn same_length(at: &str, len: usize, count: usize) -> Result<(), Fault> {
    if len == count {
        Ok(())
    } else {
        Err(Fault::new(at, format!("has {len} elements but POSITION has {count}")))
    }
}
