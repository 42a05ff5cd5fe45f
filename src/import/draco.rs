//! KHR_draco_mesh_compression: a primitive whose attributes and indices are one Draco
//! stream in a buffer view. The stream is decoded once, at load, and the document is
//! rewritten as if the data had been stored plainly: each accessor the stream fills gets a
//! buffer view into one new buffer, the extension leaves the primitive, and leaves
//! `extensionsUsed`/`extensionsRequired` with the last such primitive (in the copy
//! `normalize` writes; the loaded document keeps the file's declarations for reports).
//! Every later stage then sees an ordinary file.
//!
//! Only a file whose `extensionsUsed` declares the extension is decoded: as the validator
//! does, an undeclared extension object is ignored (and reported, see `extensions`), so the
//! primitive reads as its accessors' plain data in every command.
//!
//! Accessors are filled in place, so their indices (named by findings and `inspect`) stay
//! those of the file. Per the extension, the accessors' own `bufferView` is ignored when a
//! primitive is compressed, and attributes the stream does not carry are read as usual.
//! Decoding is draco-core's (pure Rust, checked reads); what it returns is checked here
//! against the accessors before a byte is copied, so a bad stream is a `Fault` naming the
//! primitive, never a panic.

use super::Fault;
use super::budget;
use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointIndex};
use gltf::json::validation::Checked;
use gltf::json::{Index, accessor::Accessor};
use serde_json::{Value, json};
use std::collections::HashSet;

pub(crate) const EXTENSION: &str = "KHR_draco_mesh_compression";

/// glTF componentType codes.
const BYTE: u64 = 5120;
const UNSIGNED_BYTE: u64 = 5121;
const SHORT: u64 = 5122;
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;
const FLOAT: u64 = 5126;
/// bufferView targets.
const ARRAY_BUFFER: u64 = 34962;
const ELEMENT_ARRAY_BUFFER: u64 = 34963;

/// Where a decoded accessor's buffer view goes: the new buffer, as vertex or index data.
#[derive(Clone, Copy)]
struct Target {
    buffer: usize,
    kind: u64,
}

/// What `expand` did.
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    /// `(mesh, primitive)` of every primitive decoded, in file order.
    pub primitives: Vec<(usize, usize)>,
    /// The decoded data: the new last buffer of the document (already listed in its
    /// `buffers` with this length). Empty when nothing was decoded.
    pub buffer: Vec<u8>,
}

/// Whether the document declares the extension (the cheap test before any work).
pub(crate) fn used(extensions_used: &[String]) -> bool {
    extensions_used.iter().any(|e| e == EXTENSION)
}

/// The import's hook: `document` with its Draco primitives decoded (the decoded bytes are
/// pushed onto `buffers`), and the `(mesh, primitive)` of each, which reports show as
/// "came compressed". `custom` are the attributes gltf-json cannot name (see
/// `parse::Beside`), which a stream may fill as well. A file that does not declare the
/// extension is returned as is.
pub(crate) fn decode_document(
    document: gltf::Document,
    custom: &[(usize, usize, String, Index<Accessor>)],
    buffers: &mut Vec<std::borrow::Cow<'_, [u8]>>,
) -> Result<(gltf::Document, Vec<(usize, usize)>), Fault> {
    if !used(&document.as_json().extensions_used) {
        return Ok((document, Vec::new()));
    }
    let mut root = document.into_json();
    let mut parts = compressed_parts(&root, custom)?;
    let mut expanded = expand(&mut parts, buffers)?;
    let bytes = std::mem::take(&mut expanded.buffer);
    if !bytes.is_empty() {
        buffers.push(std::borrow::Cow::Owned(bytes));
    }
    // Reports show the extensions the file declares, Draco included, so the declarations
    // `expand` drops are not taken back.
    take_back(&mut root, parts, &expanded.primitives)
        .map_err(|e| Fault::new("", format!("the document with its Draco data decoded is not valid: {e}")))?;
    Ok((gltf::Document::from_json_without_validation(root), expanded.primitives))
}

/// What `expand` reads and rewrites, as the file's JSON has it: the declarations, the
/// accessors, buffer views and buffers, and each primitive's attributes, indices, mode and
/// extensions.
fn compressed_parts(
    root: &gltf::json::Root,
    custom: &[(usize, usize, String, Index<Accessor>)],
) -> Result<Value, Fault> {
    let meshes: Vec<Value> = root
        .meshes
        .iter()
        .enumerate()
        .map(|(m, mesh)| {
            let primitives: Vec<Value> = mesh
                .primitives
                .iter()
                .enumerate()
                .map(|(p, primitive)| {
                    let mut attributes = serde_json::Map::new();
                    for (semantic, accessor) in &primitive.attributes {
                        if let Checked::Valid(semantic) = semantic {
                            attributes.insert(semantic.to_string(), json!(accessor.value()));
                        }
                    }
                    for (_, _, name, accessor) in custom.iter().filter(|c| (c.0, c.1) == (m, p)) {
                        attributes.insert(name.clone(), json!(accessor.value()));
                    }
                    let mut out = serde_json::Map::new();
                    out.insert("attributes".into(), Value::Object(attributes));
                    if let Some(indices) = primitive.indices {
                        out.insert("indices".into(), json!(indices.value()));
                    }
                    if let Checked::Valid(mode) = primitive.mode {
                        out.insert("mode".into(), json!(mode.as_gl_enum()));
                    }
                    if let Some(extensions) = &primitive.extensions {
                        out.insert("extensions".into(), Value::Object(extensions.others.clone()));
                    }
                    Value::Object(out)
                })
                .collect();
            json!({ "primitives": primitives })
        })
        .collect();
    let value = |part: Result<Value, serde_json::Error>| {
        part.map_err(|e| Fault::new("", format!("the document cannot be prepared for Draco decoding: {e}")))
    };
    Ok(json!({
        "extensionsUsed": root.extensions_used,
        "accessors": value(serde_json::to_value(&root.accessors))?,
        "bufferViews": value(serde_json::to_value(&root.buffer_views))?,
        "buffers": value(serde_json::to_value(&root.buffers))?,
        "meshes": meshes,
    }))
}

/// Puts what `expand` rewrote in `parts` back into `root`: the accessors, buffer views and
/// buffers, and the attributes and indices of the decoded primitives, whose Draco
/// extension object goes.
fn take_back(
    root: &mut gltf::json::Root,
    mut parts: Value,
    decoded: &[(usize, usize)],
) -> serde_json::Result<()> {
    root.accessors = serde_json::from_value(parts["accessors"].take())?;
    root.buffer_views = serde_json::from_value(parts["bufferViews"].take())?;
    root.buffers = serde_json::from_value(parts["buffers"].take())?;
    for &(m, p) in decoded {
        let (Some(part), Some(primitive)) = (
            parts.pointer_mut(&format!("/meshes/{m}/primitives/{p}")),
            root.meshes.get_mut(m).and_then(|mesh| mesh.primitives.get_mut(p)),
        ) else {
            continue;
        };
        primitive.attributes = serde_json::from_value(part["attributes"].take())?;
        primitive.indices = serde_json::from_value(part["indices"].take())?;
        if let Some(extensions) = &mut primitive.extensions {
            extensions.others.remove(EXTENSION);
            if extensions.others.is_empty() {
                primitive.extensions = None;
            }
        }
    }
    Ok(())
}

/// Decodes every Draco primitive of `json`, whose buffers are `buffers`, and rewrites
/// `json` to name the decoded data plainly (see the module comment). The caller appends
/// `Expanded::buffer` to its buffers.
pub(crate) fn expand<B: AsRef<[u8]>>(json: &mut Value, buffers: &[B]) -> Result<Expanded, Fault> {
    let mut out = Expanded::default();
    // Undeclared, the extension is ignored by every reader of the file (`load` and the raw
    // copy `normalize` writes from alike): see `extensions::undeclared`.
    if !super::extensions::declared(json, EXTENSION) {
        return Ok(out);
    }
    let new_buffer = buffers.len();
    let mut filled = HashSet::new();
    let mesh_count = json.get("meshes").and_then(Value::as_array).map_or(0, Vec::len);
    for m in 0..mesh_count {
        let prim_count =
            json.pointer(&format!("/meshes/{m}/primitives")).and_then(Value::as_array).map_or(0, Vec::len);
        for p in 0..prim_count {
            let at = format!("meshes[{m}].primitives[{p}]");
            let Some(ext) =
                json.pointer(&format!("/meshes/{m}/primitives/{p}/extensions/{EXTENSION}")).cloned()
            else {
                continue;
            };
            let stream = Stream::parse(&ext, &format!("{at}.extensions.{EXTENSION}"))?;
            let bytes = view_bytes(json, buffers, stream.buffer_view, &at)?;
            let plan = plan_primitive(json, m, p, &at, &stream)?;
            let mesh = decode(bytes, max_faces(json, &plan)).map_err(|e| {
                Fault::new(
                    format!("{at}.extensions.{EXTENSION}"),
                    format!("the Draco data in bufferViews[{}] cannot be decoded: {e}", stream.buffer_view),
                )
            })?;
            let order = vertex_order(&mesh, plan.indices.is_some());
            for (semantic, accessor, unique_id) in &plan.attributes {
                let a_at = format!("{at}.attributes.{semantic}");
                let attribute = mesh.attribute_by_unique_id(*unique_id).ok_or_else(|| {
                    Fault::new(&a_at, format!("the Draco data has no attribute with id {unique_id}"))
                })?;
                let format = AccessorFormat::of(json, *accessor, &a_at)?;
                let data = attribute_bytes(attribute, &order, &format, &a_at)?;
                let target = Target { buffer: new_buffer, kind: ARRAY_BUFFER };
                let index = fill(json, &mut out.buffer, target, &format, &data, &mut filled)?;
                set(json, &format!("/meshes/{m}/primitives/{p}/attributes/{semantic}"), index);
            }
            if let Some(accessor) = plan.indices {
                let i_at = format!("{at}.indices");
                let format = AccessorFormat::of(json, accessor, &i_at)?;
                let data = index_bytes(&mesh, &format, &i_at)?;
                let target = Target { buffer: new_buffer, kind: ELEMENT_ARRAY_BUFFER };
                let index = fill(json, &mut out.buffer, target, &format, &data, &mut filled)?;
                set(json, &format!("/meshes/{m}/primitives/{p}/indices"), index);
            }
            remove_from_primitive(json, m, p);
            out.primitives.push((m, p));
        }
    }
    if !out.primitives.is_empty() {
        drop_declaration(json);
        if !out.buffer.is_empty() {
            push(json, "buffers", json!({ "byteLength": out.buffer.len() }));
        }
    }
    Ok(out)
}

/// The extension object of one primitive.
struct Stream {
    buffer_view: usize,
    /// Attribute semantic -> the Draco attribute's unique id.
    attributes: Vec<(String, u32)>,
}

impl Stream {
    fn parse(ext: &Value, at: &str) -> Result<Stream, Fault> {
        let buffer_view = ext
            .get("bufferView")
            .and_then(Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| Fault::new(format!("{at}.bufferView"), "is missing or not an index"))?;
        let map = ext
            .get("attributes")
            .and_then(Value::as_object)
            .ok_or_else(|| Fault::new(format!("{at}.attributes"), "is missing or not an object"))?;
        let mut attributes = Vec::with_capacity(map.len());
        for (semantic, id) in map {
            let id = id
                .as_u64()
                .and_then(|id| u32::try_from(id).ok())
                .ok_or_else(|| Fault::new(format!("{at}.attributes.{semantic}"), "is not an attribute id"))?;
            attributes.push((semantic.clone(), id));
        }
        Ok(Stream { buffer_view, attributes })
    }
}

/// Which accessors of the primitive the stream fills.
struct Plan {
    /// (semantic, accessor index, Draco unique id).
    attributes: Vec<(String, usize, u32)>,
    indices: Option<usize>,
}

fn plan_primitive(json: &Value, m: usize, p: usize, at: &str, stream: &Stream) -> Result<Plan, Fault> {
    let prim = json.pointer(&format!("/meshes/{m}/primitives/{p}")).unwrap_or(&Value::Null);
    // Draco streams hold triangles; the extension allows TRIANGLES and TRIANGLE_STRIP.
    let mode = prim.get("mode").and_then(Value::as_u64).unwrap_or(4);
    if mode != 4 && mode != 5 {
        return Err(Fault::new(
            format!("{at}.mode"),
            format!(
                "is {mode}, but a Draco-compressed primitive must be TRIANGLES (4) or TRIANGLE_STRIP (5)"
            ),
        ));
    }
    let mut attributes = Vec::with_capacity(stream.attributes.len());
    for (semantic, id) in &stream.attributes {
        let accessor = prim
            .get("attributes")
            .and_then(|a| a.get(semantic))
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| {
                Fault::new(
                    format!("{at}.extensions.{EXTENSION}.attributes.{semantic}"),
                    "names an attribute the primitive does not have",
                )
            })?;
        attributes.push((semantic.clone(), accessor, *id));
    }
    let indices = match prim.get("indices") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| Fault::new(format!("{at}.indices"), "is not an accessor index"))?,
        ),
    };
    Ok(Plan { attributes, indices })
}

/// The compressed bytes: `bufferViews[view]` of `buffers`, range-checked.
fn view_bytes<'b, B: AsRef<[u8]>>(
    json: &Value,
    buffers: &'b [B],
    view: usize,
    at: &str,
) -> Result<&'b [u8], Fault> {
    let v_at = format!("{at}.extensions.{EXTENSION}.bufferView");
    let v = json
        .pointer(&format!("/bufferViews/{view}"))
        .ok_or_else(|| Fault::new(&v_at, format!("bufferView {view} does not exist")))?;
    let number = |key: &str| v.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
    let buffer = number("buffer")
        .and_then(|b| buffers.get(b))
        .ok_or_else(|| Fault::new(format!("bufferViews[{view}].buffer"), "does not name a loaded buffer"))?;
    let start = number("byteOffset").unwrap_or(0);
    let len = number("byteLength")
        .ok_or_else(|| Fault::new(format!("bufferViews[{view}].byteLength"), "is missing"))?;
    start
        .checked_add(len)
        .and_then(|end| buffer.as_ref().get(start..end))
        .ok_or_else(|| Fault::new(format!("bufferViews[{view}]"), "lies outside its buffer"))
}

/// The most triangles the primitive's accessors can hold: a stream claiming more cannot
/// match them, so the decoder is told to refuse it before allocating for it.
fn max_faces(json: &Value, plan: &Plan) -> u64 {
    let count =
        |i: usize| json.pointer(&format!("/accessors/{i}/count")).and_then(Value::as_u64).unwrap_or(0);
    let corners = plan.attributes.iter().map(|a| count(a.1)).chain(plan.indices.map(count)).max();
    corners.unwrap_or(0) / 3
}

/// The decoder is also held to the load's budget (`budget`), counted against the stream's
/// own bytes: a real stream spends bytes on every point it holds, so it stays inside.
fn decode(bytes: &[u8], max_faces: u64) -> Result<Mesh, String> {
    let stream = bytes.len() as u64;
    let points = budget::DRAWN_VERTICES.saturating_add(stream);
    let limits = DecodeLimits::default()
        .with_max_faces(max_faces.min(points.saturating_mul(2)))
        .with_max_points(points)
        .with_max_decoded_bytes(
            budget::DECODED_BYTES.saturating_add(stream.saturating_mul(budget::DECODED_PER_INPUT_BYTE)),
        );
    let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
    let mut mesh = Mesh::new();
    MeshDecoder::new().decode(&mut buffer, &mut mesh).map_err(|e| e.to_string())?;
    Ok(mesh)
}

/// The Draco points in glTF vertex order: all points for an indexed primitive (the
/// indices are the faces), one point per face corner for a primitive without indices.
fn vertex_order(mesh: &Mesh, indexed: bool) -> Vec<PointIndex> {
    if indexed {
        (0..mesh.num_points()).filter_map(|p| u32::try_from(p).ok()).map(PointIndex).collect()
    } else {
        mesh.faces().iter().flatten().copied().collect()
    }
}

/// An accessor's declared layout, which the decoded data must match.
struct AccessorFormat {
    index: usize,
    component_type: u64,
    components: usize,
    count: usize,
}

impl AccessorFormat {
    fn of(json: &Value, index: usize, at: &str) -> Result<AccessorFormat, Fault> {
        let acc = json
            .pointer(&format!("/accessors/{index}"))
            .ok_or_else(|| Fault::new(at, format!("accessor {index} does not exist")))?;
        let bad = |what: &str| Fault::new(at, format!("accessors[{index}] has {what}"));
        let component_type =
            acc.get("componentType").and_then(Value::as_u64).ok_or_else(|| bad("no componentType"))?;
        let components = match acc.get("type").and_then(Value::as_str) {
            Some("SCALAR") => 1,
            Some("VEC2") => 2,
            Some("VEC3") => 3,
            Some("VEC4") => 4,
            _ => return Err(bad("a type a Draco attribute cannot fill")),
        };
        let count = acc
            .get("count")
            .and_then(Value::as_u64)
            .and_then(|c| usize::try_from(c).ok())
            .ok_or_else(|| bad("no count"))?;
        Ok(AccessorFormat { index, component_type, components, count })
    }

    fn size(&self) -> Option<usize> {
        match self.component_type {
            BYTE | UNSIGNED_BYTE => Some(1),
            SHORT | UNSIGNED_SHORT => Some(2),
            UNSIGNED_INT | FLOAT => Some(4),
            _ => None,
        }
    }
}

/// One attribute's values, per vertex in `order`, in the accessor's component type.
fn attribute_bytes(
    attribute: &PointAttribute,
    order: &[PointIndex],
    format: &AccessorFormat,
    at: &str,
) -> Result<Vec<u8>, Fault> {
    let fault = |what: String| Fault::new(at, what);
    if order.len() != format.count {
        return Err(fault(format!(
            "the Draco data has {} vertices but accessors[{}].count is {}",
            order.len(),
            format.index,
            format.count
        )));
    }
    let components = usize::from(attribute.num_components());
    if components != format.components {
        return Err(fault(format!(
            "the Draco attribute has {components} components but accessors[{}] has {}",
            format.index, format.components
        )));
    }
    let size = format
        .size()
        .ok_or_else(|| fault(format!("accessors[{}] has an unknown componentType", format.index)))?;
    let source = attribute.data_type();
    let width = source.byte_length();
    let stride = usize::try_from(attribute.byte_stride()).unwrap_or(0);
    let data = attribute.buffer().data();
    let mut out = Vec::with_capacity(order.len() * components * size);
    for (vertex, &point) in order.iter().enumerate() {
        // An unmapped point reads as the invalid index, past `size()`.
        let value = attribute.mapped_index(point).0 as usize;
        if value >= attribute.size() {
            return Err(fault(format!("vertex {vertex} has no value in the Draco data")));
        }
        for c in 0..components {
            let start = value
                .checked_mul(stride)
                .and_then(|s| s.checked_add(c * width))
                .ok_or_else(|| fault(format!("vertex {vertex} has no value in the Draco data")))?;
            let bytes = data
                .get(start..start + width)
                .ok_or_else(|| fault(format!("vertex {vertex} has no value in the Draco data")))?;
            convert(bytes, source, format.component_type, &mut out).ok_or_else(|| {
                fault(format!(
                    "vertex {vertex}: the Draco value does not fit accessors[{}]'s component type",
                    format.index
                ))
            })?;
        }
    }
    Ok(out)
}

/// The faces as the indices accessor's data.
fn index_bytes(mesh: &Mesh, format: &AccessorFormat, at: &str) -> Result<Vec<u8>, Fault> {
    let corners = mesh.num_faces().saturating_mul(3);
    if corners != format.count || format.components != 1 {
        return Err(Fault::new(
            at,
            format!(
                "the Draco data has {} triangles ({corners} indices) but accessors[{}] is {} element(s) of {} component(s)",
                mesh.num_faces(),
                format.index,
                format.count,
                format.components
            ),
        ));
    }
    let size = format.size().unwrap_or(0);
    let mut out = Vec::with_capacity(corners * size);
    for (k, point) in mesh.faces().iter().flatten().enumerate() {
        let fits = match format.component_type {
            UNSIGNED_BYTE => u8::try_from(point.0).map(|v| out.push(v)).is_ok(),
            UNSIGNED_SHORT => u16::try_from(point.0).map(|v| out.extend(v.to_le_bytes())).is_ok(),
            UNSIGNED_INT => {
                out.extend(point.0.to_le_bytes());
                true
            }
            _ => false,
        };
        if !fits {
            return Err(Fault::new(
                at,
                format!(
                    "index {} (element {k}) does not fit accessors[{}]'s component type",
                    point.0, format.index
                ),
            ));
        }
    }
    Ok(out)
}

/// Appends one component, read as `source`, to `out` as glTF `target` (little-endian).
/// Equal types copy the bytes; otherwise the value must be representable exactly (integers
/// in range; any number as FLOAT). `None` when it is not.
fn convert(bytes: &[u8], source: DataType, target: u64, out: &mut Vec<u8>) -> Option<()> {
    let same = matches!(
        (source, target),
        (DataType::Int8, BYTE)
            | (DataType::Uint8, UNSIGNED_BYTE)
            | (DataType::Int16, SHORT)
            | (DataType::Uint16, UNSIGNED_SHORT)
            | (DataType::Uint32, UNSIGNED_INT)
            | (DataType::Float32, FLOAT)
    );
    if same {
        out.extend_from_slice(bytes);
        return Some(());
    }
    let value = read_number(bytes, source)?;
    if target == FLOAT {
        out.extend((value as f32).to_le_bytes());
        return Some(());
    }
    if value.fract() != 0.0 {
        return None;
    }
    match target {
        BYTE => out.extend(i8::try_from(value as i64).ok()?.to_le_bytes()),
        UNSIGNED_BYTE => out.push(u8::try_from(value as i64).ok()?),
        SHORT => out.extend(i16::try_from(value as i64).ok()?.to_le_bytes()),
        UNSIGNED_SHORT => out.extend(u16::try_from(value as i64).ok()?.to_le_bytes()),
        UNSIGNED_INT => out.extend(u32::try_from(value as i64).ok()?.to_le_bytes()),
        _ => return None,
    }
    Some(())
}

fn read_number(b: &[u8], source: DataType) -> Option<f64> {
    Some(match source {
        DataType::Int8 => f64::from(i8::from_le_bytes([*b.first()?])),
        DataType::Uint8 | DataType::Bool => f64::from(*b.first()?),
        DataType::Int16 => f64::from(i16::from_le_bytes(*b.first_chunk()?)),
        DataType::Uint16 => f64::from(u16::from_le_bytes(*b.first_chunk()?)),
        DataType::Int32 => f64::from(i32::from_le_bytes(*b.first_chunk()?)),
        DataType::Uint32 => f64::from(u32::from_le_bytes(*b.first_chunk()?)),
        DataType::Float32 => f64::from(f32::from_le_bytes(*b.first_chunk()?)),
        DataType::Float64 => f64::from_le_bytes(*b.first_chunk()?),
        // 64-bit integers beyond 2^53 would round; no glTF component type holds them anyway.
        DataType::Int64 => i64::from_le_bytes(*b.first_chunk()?) as f64,
        DataType::Uint64 => u64::from_le_bytes(*b.first_chunk()?) as f64,
        DataType::Invalid => return None,
    })
}

/// Puts `data` in the new buffer as a buffer view and points accessor `index` at it.
/// An accessor already filled by another Draco primitive is copied first, so neither
/// primitive's data overwrites the other's. Returns the accessor the primitive now uses.
fn fill(
    json: &mut Value,
    buffer: &mut Vec<u8>,
    target: Target,
    format: &AccessorFormat,
    data: &[u8],
    filled: &mut HashSet<usize>,
) -> Result<usize, Fault> {
    let index = format.index;
    buffer.resize(buffer.len().next_multiple_of(4), 0);
    let view = push(
        json,
        "bufferViews",
        json!({
            "buffer": target.buffer,
            "byteOffset": buffer.len(),
            "byteLength": data.len(),
            "target": target.kind,
        }),
    );
    buffer.extend_from_slice(data);
    let mut accessor = json
        .pointer(&format!("/accessors/{index}"))
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| Fault::new(format!("accessors[{index}]"), "does not exist"))?;
    accessor.remove("byteOffset");
    accessor.remove("sparse");
    accessor.insert("bufferView".into(), json!(view));
    // Bounds written by the compressor describe its input, not the quantized values decoded;
    // readers (and the validator) check them against the data, so they are recomputed.
    if (accessor.contains_key("min") || accessor.contains_key("max"))
        && let Some((min, max)) = bounds(data, format)
    {
        accessor.insert("min".into(), min);
        accessor.insert("max".into(), max);
    }
    if filled.insert(index) {
        if let Some(slot) = json.pointer_mut(&format!("/accessors/{index}")) {
            *slot = Value::Object(accessor);
        }
        Ok(index)
    } else {
        Ok(push(json, "accessors", Value::Object(accessor)))
    }
}

/// Per-component minimum and maximum of tightly packed `data` in `format`, as JSON numbers.
fn bounds(data: &[u8], format: &AccessorFormat) -> Option<(Value, Value)> {
    let size = format.size()?;
    let source = match format.component_type {
        BYTE => DataType::Int8,
        UNSIGNED_BYTE => DataType::Uint8,
        SHORT => DataType::Int16,
        UNSIGNED_SHORT => DataType::Uint16,
        UNSIGNED_INT => DataType::Uint32,
        _ => DataType::Float32,
    };
    let n = format.components;
    let mut min = vec![f64::INFINITY; n];
    let mut max = vec![f64::NEG_INFINITY; n];
    for (k, bytes) in data.chunks_exact(size).enumerate() {
        let v = read_number(bytes, source)?;
        let c = k % n;
        min[c] = min[c].min(v);
        max[c] = max[c].max(v);
    }
    let as_json = |values: Vec<f64>| -> Option<Value> {
        values
            .into_iter()
            .map(|v| serde_json::Number::from_f64(v).map(Value::Number))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array)
    };
    Some((as_json(min)?, as_json(max)?))
}

fn set(json: &mut Value, pointer: &str, index: usize) {
    if let Some(slot) = json.pointer_mut(pointer) {
        *slot = json!(index);
    }
}

fn remove_from_primitive(json: &mut Value, m: usize, p: usize) {
    let Some(prim) = json.pointer_mut(&format!("/meshes/{m}/primitives/{p}")).and_then(Value::as_object_mut)
    else {
        return;
    };
    let empty = prim.get_mut("extensions").and_then(Value::as_object_mut).is_some_and(|ext| {
        ext.remove(EXTENSION);
        ext.is_empty()
    });
    if empty {
        prim.remove("extensions");
    }
}

/// Removes the extension from `extensionsUsed` and `extensionsRequired` (and either list
/// when it becomes empty): every primitive that used it has been decoded.
fn drop_declaration(json: &mut Value) {
    let Some(root) = json.as_object_mut() else { return };
    for key in ["extensionsUsed", "extensionsRequired"] {
        let empty = root.get_mut(key).and_then(Value::as_array_mut).is_some_and(|list| {
            list.retain(|e| e.as_str() != Some(EXTENSION));
            list.is_empty()
        });
        if empty {
            root.remove(key);
        }
    }
}

/// Appends `item` to the top-level array `key` (created when absent); returns its index.
fn push(json: &mut Value, key: &str, item: Value) -> usize {
    let Some(root) = json.as_object_mut() else { return 0 };
    let entry = root.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if !entry.is_array() {
        *entry = Value::Array(Vec::new());
    }
    match entry.as_array_mut() {
        Some(array) => {
            array.push(item);
            array.len() - 1
        }
        None => 0,
    }
}
