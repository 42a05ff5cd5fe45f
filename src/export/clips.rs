//! Appending clips to a file as new glTF animations: each channel's sampler either copies
//! another file's sampler accessors as stored (`stored`), or writes keys computed here as
//! FLOAT accessors. Key-time accessors are shared between channels with equal times and
//! between copies of one library accessor, and channels with the same keys share a sampler,
//! so a library's layout costs no more in the copy than in the library.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::merge::align4;
use super::stored::From;
use super::{ExportError, push};
use crate::import::RawAsset;
use crate::report::{interpolation_name, property_name};
use crate::rig::{Interpolation, Property};

/// A clip to append.
#[derive(Debug, Clone)]
pub struct NewClip {
    pub name: String,
    /// The source animation's `extras`, carried over.
    pub extras: Option<Value>,
    pub channels: Vec<NewChannel>,
}

/// One channel of a `NewClip`, on a node of the file being written.
#[derive(Debug, Clone)]
pub struct NewChannel {
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    pub keys: NewKeys,
}

/// Where a channel's keys come from.
#[derive(Debug, Clone)]
pub enum NewKeys {
    /// Sampler accessors `input` and `output` of library `library`, copied as stored.
    Stored { library: usize, input: usize, output: usize },
    /// Keys made by the caller: times, and values flattened as `rig::Channel` holds them.
    Computed { times: Arc<[f32]>, values: Arc<[f32]> },
}

/// Appends `clips` to `json` and `merged`, reading stored keys from `libraries`.
pub(super) fn append(
    json: &mut Value,
    merged: &mut Vec<u8>,
    libraries: &[&RawAsset],
    clips: &[NewClip],
) -> Result<(), ExportError> {
    let mut writer = Writer { libraries, copied: HashMap::new(), times: HashMap::new() };
    for clip in clips {
        let mut samplers: Vec<Value> = Vec::new();
        let mut sampler_of: HashMap<(usize, usize, &str), usize> = HashMap::new();
        let mut channels = Vec::with_capacity(clip.channels.len());
        for channel in &clip.channels {
            let (input, output) = match &channel.keys {
                NewKeys::Stored { library, input, output } => (
                    writer.copy(*library, *input, json, merged)?,
                    writer.copy(*library, *output, json, merged)?,
                ),
                NewKeys::Computed { times, values } => (
                    writer.times(times, json, merged)?,
                    write_values(values, channel.property, json, merged)?,
                ),
            };
            let interpolation = interpolation_name(channel.interpolation);
            let sampler = *sampler_of.entry((input, output, interpolation)).or_insert_with(|| {
                samplers.push(json!({ "input": input, "output": output, "interpolation": interpolation }));
                samplers.len() - 1
            });
            channels.push(json!({
                "sampler": sampler,
                "target": { "node": channel.node, "path": property_name(channel.property) },
            }));
        }
        let mut animation = Map::new();
        animation.insert("name".into(), json!(clip.name));
        animation.insert("channels".into(), Value::Array(channels));
        animation.insert("samplers".into(), Value::Array(samplers));
        if let Some(extras) = &clip.extras {
            animation.insert("extras".into(), extras.clone());
        }
        push(json, "animations", Value::Object(animation))?;
    }
    Ok(())
}

struct Writer<'a> {
    libraries: &'a [&'a RawAsset],
    /// (library, its accessor) -> the copy's accessor.
    copied: HashMap<(usize, usize), usize>,
    /// Computed key times (as bits) -> their accessor.
    times: HashMap<Vec<u32>, usize>,
}

impl Writer<'_> {
    fn copy(
        &mut self,
        library: usize,
        accessor: usize,
        json: &mut Value,
        merged: &mut Vec<u8>,
    ) -> Result<usize, ExportError> {
        if let Some(&done) = self.copied.get(&(library, accessor)) {
            return Ok(done);
        }
        let raw = self
            .libraries
            .get(library)
            .ok_or_else(|| ExportError::at("", format!("library {library} was not given")))?;
        let from = From { json: &raw.json, buffers: &raw.buffers };
        let copy = from.copy_accessor(accessor, json, merged)?;
        self.copied.insert((library, accessor), copy);
        Ok(copy)
    }

    fn times(&mut self, times: &[f32], json: &mut Value, merged: &mut Vec<u8>) -> Result<usize, ExportError> {
        let bits: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(&done) = self.times.get(&bits) {
            return Ok(done);
        }
        let finite = times.iter().copied().filter(|t| t.is_finite());
        let min = finite.clone().fold(f32::INFINITY, f32::min);
        let max = finite.fold(f32::NEG_INFINITY, f32::max);
        let view = floats(times, json, merged)?;
        let mut accessor = accessor(view, times.len(), "SCALAR");
        // glTF asks for the bounds of every sampler input.
        if min <= max {
            accessor.insert("min".into(), json!([f64::from(min)]));
            accessor.insert("max".into(), json!([f64::from(max)]));
        }
        let index = push(json, "accessors", Value::Object(accessor))?;
        self.times.insert(bits, index);
        Ok(index)
    }
}

/// A FLOAT output accessor: VEC3 for translation and scale, VEC4 for rotation, SCALAR for
/// morph weights (one element per target per key, as glTF lays them out).
fn write_values(
    values: &[f32],
    property: Property,
    json: &mut Value,
    merged: &mut Vec<u8>,
) -> Result<usize, ExportError> {
    let (ty, components) = match property {
        Property::Translation | Property::Scale => ("VEC3", 3),
        Property::Rotation => ("VEC4", 4),
        Property::Weights => ("SCALAR", 1),
    };
    if !values.len().is_multiple_of(components) {
        return Err(ExportError::at(
            "animations",
            format!("{} values do not make {ty} elements", values.len()),
        ));
    }
    let view = floats(values, json, merged)?;
    push(json, "accessors", Value::Object(accessor(view, values.len() / components, ty)))
}

fn accessor(view: usize, count: usize, ty: &str) -> Map<String, Value> {
    let mut accessor = Map::new();
    accessor.insert("bufferView".into(), json!(view));
    accessor.insert("componentType".into(), json!(FLOAT));
    accessor.insert("count".into(), json!(count));
    accessor.insert("type".into(), json!(ty));
    accessor
}

const FLOAT: u64 = 5126;

/// Appends little-endian f32s as a new buffer view; returns its index.
fn floats(values: &[f32], json: &mut Value, merged: &mut Vec<u8>) -> Result<usize, ExportError> {
    if values.is_empty() {
        return Err(ExportError::at("animations", "a channel without keys cannot be written"));
    }
    align4(merged);
    let offset = merged.len();
    merged.reserve(values.len() * 4);
    for v in values {
        merged.extend_from_slice(&v.to_le_bytes());
    }
    push(json, "bufferViews", json!({ "buffer": 0, "byteOffset": offset, "byteLength": values.len() * 4 }))
}
