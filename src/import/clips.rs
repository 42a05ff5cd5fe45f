//! Animations -> `Clip`s: each channel with its sampler's key times and flattened values
//! copied in (normalised-integer rotations and weights decoded per the glTF spec), the
//! output count checked against the key count and interpolation, and the clip's duration
//! as the largest key time. Odd key data (unsorted or negative times, non-unit rotations,
//! NaN) loads and is reported as findings.

use super::accessors::{self, CheckedAccessor, Format, Normalized, Source, snorm8, snorm16, unorm8, unorm16};
use super::nodes::UNIT_TOLERANCE;
use super::{Fault, findings::Findings};
use crate::rig::{Channel, Clip, Interpolation, Mesh, Property, Severity};
use gltf::animation::util::{MorphTargetWeights, ReadOutputs, Rotations};
use gltf::json;
use gltf::json::accessor::{ComponentType as C, Type as T};
use gltf::json::validation::Checked;

const INPUT: Format = Format {
    role: "a sampler input",
    need: "SCALAR of FLOAT",
    allowed: &[(T::Scalar, C::F32)],
    normalized: Normalized::Never,
};
const VEC3_OUTPUT: Format = Format {
    role: "a translation or scale output",
    need: "VEC3 of FLOAT",
    allowed: &[(T::Vec3, C::F32)],
    normalized: Normalized::Never,
};
const ROTATION_OUTPUT: Format = Format {
    role: "a rotation output",
    need: "VEC4 of FLOAT, or of normalized BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
    allowed: &[(T::Vec4, C::F32), (T::Vec4, C::I8), (T::Vec4, C::U8), (T::Vec4, C::I16), (T::Vec4, C::U16)],
    normalized: Normalized::Ints,
};
const WEIGHTS_OUTPUT: Format = Format {
    role: "a weights output",
    need: "SCALAR of FLOAT, or of normalized BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
    allowed: &[
        (T::Scalar, C::F32),
        (T::Scalar, C::I8),
        (T::Scalar, C::U8),
        (T::Scalar, C::I16),
        (T::Scalar, C::U16),
    ],
    normalized: Normalized::Ints,
};

pub(crate) fn build(src: &Source<'_>, meshes: &[Mesh], findings: &mut Findings) -> Result<Vec<Clip>, Fault> {
    let root = src.json();
    let mut clips = Vec::with_capacity(root.animations.len());
    for (a, animation) in src.doc().animations().enumerate() {
        let Some(json) = root.animations.get(a) else {
            return Err(Fault::new(format!("animations[{a}]"), "does not exist"));
        };
        // gltf-json does not validate channel targets, and gltf's `Channel` accessors
        // unwrap them: check every channel before touching the wrappers.
        for (c, channel) in json.channels.iter().enumerate() {
            check_target(root, a, c, channel)?;
        }
        let mut channels = Vec::with_capacity(json.channels.len());
        for (c, channel) in animation.channels().enumerate() {
            channels.push(one_channel(src, meshes, a, c, &channel, findings)?);
        }
        let duration = channels.iter().flat_map(|ch| ch.times.iter().copied()).fold(0.0f32, f32::max);
        clips.push(Clip { name: json.name.clone(), channels, duration });
    }
    Ok(clips)
}

fn check_target(
    root: &json::Root,
    a: usize,
    c: usize,
    channel: &json::animation::Channel,
) -> Result<(), Fault> {
    let at = format!("animations[{a}].channels[{c}]");
    let samplers = root.animations.get(a).map_or(0, |x| x.samplers.len());
    if channel.sampler.value() >= samplers {
        return Err(Fault::new(
            format!("{at}.sampler"),
            format!("sampler {} does not exist", channel.sampler.value()),
        ));
    }
    let node = channel.target.node.value();
    if node >= root.nodes.len() {
        return Err(Fault::new(format!("{at}.target.node"), format!("node {node} does not exist")));
    }
    if let Checked::Invalid = channel.target.path {
        return Err(Fault::new(
            format!("{at}.target.path"),
            "is not translation, rotation, scale or weights",
        ));
    }
    Ok(())
}

fn one_channel(
    src: &Source<'_>,
    meshes: &[Mesh],
    a: usize,
    c: usize,
    channel: &gltf::animation::Channel<'_>,
    findings: &mut Findings,
) -> Result<Channel, Fault> {
    use json::animation::{Interpolation as I, Property as P};
    let root = src.json();
    let at = format!("animations[{a}].channels[{c}]");
    let (Some(json), Some(anim)) =
        (root.animations.get(a).and_then(|x| x.channels.get(c)), root.animations.get(a))
    else {
        return Err(Fault::new(at, "does not exist"));
    };
    let s = json.sampler.value();
    let Some(sampler) = anim.samplers.get(s) else {
        return Err(Fault::new(format!("{at}.sampler"), format!("sampler {s} does not exist")));
    };
    let node = json.target.node.value();
    let (property, format) = match json.target.path {
        Checked::Valid(P::Translation) => (Property::Translation, &VEC3_OUTPUT),
        Checked::Valid(P::Rotation) => (Property::Rotation, &ROTATION_OUTPUT),
        Checked::Valid(P::Scale) => (Property::Scale, &VEC3_OUTPUT),
        Checked::Valid(P::MorphTargetWeights) => (Property::Weights, &WEIGHTS_OUTPUT),
        Checked::Invalid => {
            return Err(Fault::new(format!("{at}.target.path"), "invalid value"));
        }
    };
    let interpolation = match sampler.interpolation {
        Checked::Valid(I::Step) => Interpolation::Step,
        Checked::Valid(I::Linear) => Interpolation::Linear,
        Checked::Valid(I::CubicSpline) => Interpolation::CubicSpline,
        Checked::Invalid => {
            return Err(Fault::new(format!("animations[{a}].samplers[{s}].interpolation"), "invalid value"));
        }
    };
    let components = match property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::Weights => morph_count(root, meshes, node, &at)?,
    };

    let reader = channel.reader(src.data());
    let in_at = format!("animations[{a}].samplers[{s}].input");
    let input = sampler.input.value();
    let in_acc = src.check(input, &INPUT, &in_at, findings)?;
    let times = accessors::collect(&in_acc, reader.read_inputs(), 0.0, &in_at)?;

    let out_at = format!("animations[{a}].samplers[{s}].output");
    let output = sampler.output.value();
    let out_acc = src.check(output, format, &out_at, findings)?;
    let values = read_values(&out_acc, reader.read_outputs(), property, &out_at)?;

    let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    let morphs = if property == Property::Weights { components } else { 1 };
    let keys = times.len();
    let expected = keys * per_key * morphs;
    if out_acc.count != expected {
        let formula = match (per_key, morphs) {
            (1, 1) => format!("{keys}"),
            (1, w) => format!("{keys} * {w} morph targets = {expected}"),
            (_, 1) => format!("3 * {keys} = {expected}"),
            (_, w) => format!("3 * {keys} * {w} morph targets = {expected}"),
        };
        let name = match interpolation {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        };
        return Err(Fault::new(
            out_at,
            format!(
                "accessors[{output}] has {} elements but {name} with {keys} keys needs {formula}",
                out_acc.count
            ),
        ));
    }

    report_times(findings, a, s, input, &times);
    accessors::report_non_finite(findings, output, components, values.iter().copied(), "key");
    if property == Property::Rotation {
        report_non_unit(findings, output, &values, per_key);
    }
    Ok(Channel { node, property, interpolation, times, values, components })
}

fn morph_count(root: &json::Root, meshes: &[Mesh], node: usize, at: &str) -> Result<usize, Fault> {
    let mesh = root.nodes.get(node).and_then(|n| n.mesh).map(|m| m.value());
    let Some(m) = mesh else {
        return Err(Fault::new(
            format!("{at}.target"),
            format!("animates weights but nodes[{node}] has no mesh"),
        ));
    };
    let count = meshes.get(m).map_or(0, |mesh| mesh.default_weights.len());
    if count == 0 {
        return Err(Fault::new(
            format!("{at}.target"),
            format!("animates weights but meshes[{m}] has no morph targets"),
        ));
    }
    Ok(count)
}

/// Output values flattened to f32, integers decoded as the glTF spec's normalisation.
fn read_values(
    acc: &CheckedAccessor,
    read: Option<ReadOutputs<'_>>,
    property: Property,
    at: &str,
) -> Result<Vec<f32>, Fault> {
    let flat = |v: Vec<[f32; 4]>| v.into_iter().flatten().collect::<Vec<f32>>();
    let three = |v: Vec<[f32; 3]>| v.into_iter().flatten().collect::<Vec<f32>>();
    Ok(match read {
        Some(ReadOutputs::Translations(it)) | Some(ReadOutputs::Scales(it)) => {
            three(accessors::collect(acc, Some(it), [0.0; 3], at)?)
        }
        Some(ReadOutputs::Rotations(r)) => flat(match r {
            Rotations::F32(it) => accessors::collect(acc, Some(it), [0.0; 4], at)?,
            Rotations::I8(it) => accessors::collect(acc, Some(it.map(|q| q.map(snorm8))), [0.0; 4], at)?,
            Rotations::U8(it) => accessors::collect(acc, Some(it.map(|q| q.map(unorm8))), [0.0; 4], at)?,
            Rotations::I16(it) => accessors::collect(acc, Some(it.map(|q| q.map(snorm16))), [0.0; 4], at)?,
            Rotations::U16(it) => accessors::collect(acc, Some(it.map(|q| q.map(unorm16))), [0.0; 4], at)?,
        }),
        Some(ReadOutputs::MorphTargetWeights(w)) => match w {
            MorphTargetWeights::F32(it) => accessors::collect(acc, Some(it), 0.0, at)?,
            MorphTargetWeights::I8(it) => accessors::collect(acc, Some(it.map(snorm8)), 0.0, at)?,
            MorphTargetWeights::U8(it) => accessors::collect(acc, Some(it.map(unorm8)), 0.0, at)?,
            MorphTargetWeights::I16(it) => accessors::collect(acc, Some(it.map(snorm16)), 0.0, at)?,
            MorphTargetWeights::U16(it) => accessors::collect(acc, Some(it.map(unorm16)), 0.0, at)?,
        },
        // No data to read: only an accessor without bufferView gets here, and it is zeros.
        None => {
            let width = match property {
                Property::Translation | Property::Scale => 3,
                Property::Rotation => 4,
                Property::Weights => 1,
            };
            let zeros = accessors::collect(acc, None::<std::iter::Empty<f32>>, 0.0, at)?;
            vec![0.0; zeros.len() * width]
        }
    })
}

fn report_times(findings: &mut Findings, a: usize, s: usize, input: usize, times: &[f32]) {
    let pointer = format!("/animations/{a}/samplers/{s}/input");
    accessors::report_non_finite(findings, input, 1, times.iter().copied(), "key time");
    if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
        findings.push(
            "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
            Severity::Error,
            pointer.clone(),
            format!(
                "key times must increase strictly; key {} ({}) does not follow key {k} ({})",
                k + 1,
                times[k + 1],
                times[k]
            ),
        );
    }
    if let Some((k, t)) = times.iter().enumerate().find(|&(_, &t)| t < 0.0) {
        findings.push(
            "ACCESSOR_ANIMATION_INPUT_NEGATIVE",
            Severity::Error,
            pointer,
            format!("key {k} has a negative time ({t} s)"),
        );
    }
}

/// Rotation keys must be unit quaternions; for CUBICSPLINE only the values (the middle of
/// each in-tangent/value/out-tangent triple) are, tangents need not be.
fn report_non_unit(findings: &mut Findings, output: usize, values: &[f32], per_key: usize) {
    let mut bad = 0usize;
    let mut first = None;
    for (e, q) in values.chunks_exact(4).enumerate() {
        if per_key == 3 && e % 3 != 1 {
            continue;
        }
        let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        if len.is_nan() || (len - 1.0).abs() > UNIT_TOLERANCE {
            bad += 1;
            first.get_or_insert((e, len));
        }
    }
    if let Some((e, len)) = first {
        findings.push(
            "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
            Severity::Error,
            format!("/accessors/{output}"),
            format!("{bad} rotation key(s) are not unit quaternions (first: element {e}, length {len})"),
        );
    }
}
