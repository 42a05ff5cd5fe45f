//! `GltfBuilder`: a small writer for the glTF 2.0 documents the sample generators produce.
//!
//! It owns one binary buffer, the buffer views and accessors into it (one view per accessor,
//! every view starting on a 4-byte boundary), the node tree, meshes, skins and animations, and
//! serialises them as GLB or as `.gltf` JSON with an embedded data-URI buffer. Skins get their
//! inverse bind matrices computed here from the node tree, so no generator can get them wrong.
//!
//! Output must be byte-identical on every run and machine: JSON objects are serde_json's
//! ordered maps, every float goes through [`num`], and nothing iterates a hash map.

use base64::prelude::{BASE64_STANDARD, Engine};
use glam::{DMat4, DQuat, DVec3, Quat, Vec3};

/// f64 geometry stored as the f32 the file holds.
fn f32x3(v: DVec3) -> [f32; 3] {
    v.as_vec3().to_array()
}

fn f32x4(q: DQuat) -> [f32; 4] {
    q.to_array().map(|x| x as f32)
}
use serde_json::{Map, Value, json};

/// `bufferView.target` for vertex attributes.
pub const ARRAY_BUFFER: u32 = 34962;
/// `bufferView.target` for indices.
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// `primitive.mode` values used by the samples.
pub const MODE_LINE_LOOP: u32 = 2;
pub const MODE_TRIANGLES: u32 = 4;

use super::GENERATOR;

/// A JSON number holding exactly the given f32.
///
/// serde_json widens an f32 to f64 and would print 0.2f32 as 0.20000000298023224; going through
/// the shortest decimal that round-trips the f32 keeps files readable, and a reader that parses
/// the decimal back to f32 gets the identical value.
pub fn num(x: f32) -> Value {
    let widened = x.to_string().parse::<f64>().unwrap_or(f64::from(x));
    json!(widened)
}

/// A scalar type that accessors can store.
pub trait Component: Copy {
    /// glTF `componentType`.
    const COMPONENT_TYPE: u32;
    fn put_le(self, out: &mut Vec<u8>);
    fn to_json(self) -> Value;
    /// Per-component minimum for `accessor.min`; NaN never wins for floats.
    fn min_of(self, other: Self) -> Self;
    fn max_of(self, other: Self) -> Self;
}

impl Component for f32 {
    const COMPONENT_TYPE: u32 = 5126;
    fn put_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn to_json(self) -> Value {
        num(self)
    }
    fn min_of(self, other: Self) -> Self {
        self.min(other)
    }
    fn max_of(self, other: Self) -> Self {
        self.max(other)
    }
}

macro_rules! integer_component {
    ($t:ty, $code:expr) => {
        impl Component for $t {
            const COMPONENT_TYPE: u32 = $code;
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn to_json(self) -> Value {
                json!(self)
            }
            fn min_of(self, other: Self) -> Self {
                Ord::min(self, other)
            }
            fn max_of(self, other: Self) -> Self {
                Ord::max(self, other)
            }
        }
    };
}
integer_component!(u8, 5121);
integer_component!(u16, 5123);
integer_component!(u32, 5125);

/// glTF accessor `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Scalar,
    Vec3,
    Vec4,
    Mat4,
}

impl Kind {
    fn width(self) -> usize {
        match self {
            Kind::Scalar => 1,
            Kind::Vec3 => 3,
            Kind::Vec4 => 4,
            Kind::Mat4 => 16,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Kind::Scalar => "SCALAR",
            Kind::Vec3 => "VEC3",
            Kind::Vec4 => "VEC4",
            Kind::Mat4 => "MAT4",
        }
    }
}

/// How an accessor is used: where its view binds, whether integers are normalised, and
/// whether `min`/`max` are written (required for POSITION and animation inputs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub target: Option<u32>,
    pub normalized: bool,
    pub bounds: bool,
}

impl Usage {
    pub const VERTEX: Usage = Usage { target: Some(ARRAY_BUFFER), normalized: false, bounds: false };
    pub const POSITION: Usage = Usage { target: Some(ARRAY_BUFFER), normalized: false, bounds: true };
    pub const VERTEX_NORMALIZED: Usage =
        Usage { target: Some(ARRAY_BUFFER), normalized: true, bounds: false };
    pub const INDICES: Usage = Usage { target: Some(ELEMENT_ARRAY_BUFFER), normalized: false, bounds: false };
    pub const DATA: Usage = Usage { target: None, normalized: false, bounds: false };
    pub const KEY_TIMES: Usage = Usage { target: None, normalized: false, bounds: true };
}

/// Which node property a channel drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    Translation,
    Rotation,
    Scale,
}

/// Sampler interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
    CubicSpline,
}

/// One animation channel with its own sampler data.
#[derive(Debug, Clone)]
pub struct Track {
    pub node: usize,
    pub path: Path,
    pub interpolation: Interpolation,
    pub times: Vec<f32>,
    /// Flat values; for CUBICSPLINE each key is (in-tangent, value, out-tangent).
    pub values: Vec<f32>,
}

impl Track {
    pub fn translations(node: usize, times: &[f32], values: &[DVec3]) -> Track {
        let values = values.iter().flat_map(|&v| f32x3(v)).collect();
        Track {
            node,
            path: Path::Translation,
            interpolation: Interpolation::Linear,
            times: times.to_vec(),
            values,
        }
    }

    pub fn scales(node: usize, times: &[f32], values: &[DVec3]) -> Track {
        Track { path: Path::Scale, ..Track::translations(node, times, values) }
    }

    pub fn rotations(node: usize, interpolation: Interpolation, times: &[f32], values: &[DQuat]) -> Track {
        let values = values.iter().flat_map(|&q| f32x4(q)).collect();
        Track { node, path: Path::Rotation, interpolation, times: times.to_vec(), values }
    }

    /// CUBICSPLINE rotations: per key (in-tangent, value, out-tangent), tangents being
    /// quaternion derivatives per second stored as 4-vectors.
    pub fn spline_rotations(node: usize, times: &[f32], keys: &[[DQuat; 3]]) -> Track {
        let values = keys.iter().flatten().flat_map(|&q| f32x4(q)).collect();
        Track {
            node,
            path: Path::Rotation,
            interpolation: Interpolation::CubicSpline,
            times: times.to_vec(),
            values,
        }
    }
}

/// A node as the builder keeps it: TRS in f32 exactly as written to the file.
#[derive(Debug, Clone)]
struct Node {
    name: String,
    parent: Option<usize>,
    translation: Vec3,
    rotation: Quat,
    scale: Vec3,
    mesh: Option<usize>,
    skin: Option<usize>,
    /// The node's `extensions` object, when it has one.
    extensions: Option<Map<String, Value>>,
}

/// Collects one glTF asset and writes it out.
#[derive(Debug, Default)]
pub struct GltfBuilder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    nodes: Vec<Node>,
    meshes: Vec<Value>,
    skins: Vec<Value>,
    animations: Vec<Value>,
    /// Key-time accessors already written, by the bit patterns of their times, so clips that
    /// share a timeline share one accessor.
    time_accessors: Vec<(Vec<u32>, usize)>,
    /// Root-level extensions by name (each also listed in `extensionsUsed`).
    extensions: Map<String, Value>,
    /// Extensions used inside objects, listed in `extensionsUsed` after the root-level ones.
    declared: Vec<String>,
}

impl GltfBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node (scale 1) under `parent` and returns its index.
    pub fn node(&mut self, name: &str, parent: Option<usize>, translation: DVec3, rotation: DQuat) -> usize {
        self.nodes.push(Node {
            name: name.to_owned(),
            parent,
            translation: Vec3::from_array(f32x3(translation)),
            rotation: Quat::from_array(f32x4(rotation)),
            scale: Vec3::ONE,
            mesh: None,
            skin: None,
            extensions: None,
        });
        self.nodes.len() - 1
    }

    /// Adds a root node that instantiates `mesh`, skinned by `skin`.
    pub fn mesh_node(&mut self, name: &str, mesh: usize, skin: Option<usize>) -> usize {
        let index = self.node(name, None, DVec3::ZERO, DQuat::IDENTITY);
        if let Some(node) = self.nodes.get_mut(index) {
            node.mesh = Some(mesh);
            node.skin = skin;
        }
        index
    }

    /// The node's global transform in the bind (file) pose, in f64 from the stored f32 TRS.
    pub fn bind_global(&self, node: usize) -> DMat4 {
        let mut global = DMat4::IDENTITY;
        let mut cursor = self.nodes.get(node);
        while let Some(n) = cursor {
            let local = DMat4::from_scale_rotation_translation(
                n.scale.as_dvec3(),
                DQuat::from_array(n.rotation.to_array().map(f64::from)),
                n.translation.as_dvec3(),
            );
            global = local * global;
            cursor = n.parent.and_then(|p| self.nodes.get(p));
        }
        global
    }

    /// Appends `data` as one accessor with its own buffer view and returns the accessor index.
    pub fn accessor<T: Component>(&mut self, data: &[T], kind: Kind, usage: Usage) -> usize {
        let width = kind.width();
        let count = data.len() / width;
        let start = self.bin.len();
        for &x in data {
            x.put_le(&mut self.bin);
        }
        let length = self.bin.len() - start;
        self.pad_bin();

        let mut view = Map::new();
        view.insert("buffer".into(), json!(0));
        view.insert("byteOffset".into(), json!(start));
        view.insert("byteLength".into(), json!(length));
        if let Some(target) = usage.target {
            view.insert("target".into(), json!(target));
        }
        self.views.push(Value::Object(view));

        let mut accessor = Map::new();
        accessor.insert("bufferView".into(), json!(self.views.len() - 1));
        accessor.insert("componentType".into(), json!(T::COMPONENT_TYPE));
        accessor.insert("count".into(), json!(count));
        accessor.insert("type".into(), json!(kind.name()));
        if usage.normalized {
            accessor.insert("normalized".into(), json!(true));
        }
        if usage.bounds && count > 0 {
            let (min, max) = bounds(data, width);
            accessor.insert("min".into(), Value::Array(min.into_iter().map(T::to_json).collect()));
            accessor.insert("max".into(), Value::Array(max.into_iter().map(T::to_json).collect()));
        }
        self.accessors.push(Value::Object(accessor));
        self.accessors.len() - 1
    }

    /// Vec3 positions with the min/max the spec requires.
    pub fn positions(&mut self, data: &[DVec3]) -> usize {
        let flat: Vec<f32> = data.iter().flat_map(|&v| f32x3(v)).collect();
        self.accessor(&flat, Kind::Vec3, Usage::POSITION)
    }

    /// Vec3 vertex attribute without bounds (normals).
    pub fn vec3_attribute(&mut self, data: &[DVec3]) -> usize {
        let flat: Vec<f32> = data.iter().flat_map(|&v| f32x3(v)).collect();
        self.accessor(&flat, Kind::Vec3, Usage::VERTEX)
    }

    /// Triangle or line indices, as u16 when every index fits, else u32.
    pub fn indices(&mut self, data: &[u32]) -> usize {
        let narrow: Option<Vec<u16>> = data.iter().map(|&i| u16::try_from(i).ok()).collect();
        match narrow {
            Some(small) => self.accessor(&small, Kind::Scalar, Usage::INDICES),
            None => self.accessor(data, Kind::Scalar, Usage::INDICES),
        }
    }

    /// Sets the root-level extension `name` (and lists it in `extensionsUsed`).
    pub fn extension(&mut self, name: &str, value: Value) {
        self.extensions.insert(name.into(), value);
    }

    /// Sets extension `name` on `node` (and lists it in `extensionsUsed`).
    pub fn node_extension(&mut self, node: usize, name: &str, value: Value) {
        if let Some(node) = self.nodes.get_mut(node) {
            node.extensions.get_or_insert_with(Map::new).insert(name.into(), value);
        }
        if !self.declared.iter().any(|d| d == name) {
            self.declare(name);
        }
    }

    /// Lists `name`, an extension some object inside carries, in `extensionsUsed`.
    pub fn declare(&mut self, name: &str) {
        self.declared.push(name.into());
    }

    /// Adds a mesh made of already-built primitive objects.
    pub fn mesh(&mut self, name: &str, primitives: Vec<Value>) -> usize {
        self.meshes.push(json!({ "name": name, "primitives": primitives }));
        self.meshes.len() - 1
    }

    /// Adds a skin over `joints` (node indices). Each inverse bind matrix is the exact inverse
    /// of that joint's bind global transform, computed in f64 and stored as f32. Call this
    /// after the joint nodes are final.
    pub fn skin(&mut self, name: &str, joints: &[usize], skeleton: usize) -> usize {
        let matrices: Vec<f32> = joints
            .iter()
            .flat_map(|&j| self.bind_global(j).inverse().to_cols_array().map(|x| x as f32))
            .collect();
        let ibm = self.accessor(&matrices, Kind::Mat4, Usage::DATA);
        self.skins.push(json!({
            "name": name,
            "joints": joints,
            "skeleton": skeleton,
            "inverseBindMatrices": ibm,
        }));
        self.skins.len() - 1
    }

    /// Adds an animation; each track gets its own sampler, identical timelines share an
    /// input accessor.
    pub fn animation(&mut self, name: &str, tracks: &[Track]) {
        let mut samplers = Vec::with_capacity(tracks.len());
        let mut channels = Vec::with_capacity(tracks.len());
        for (index, track) in tracks.iter().enumerate() {
            let input = self.key_times(&track.times);
            let kind = match track.path {
                Path::Rotation => Kind::Vec4,
                Path::Translation | Path::Scale => Kind::Vec3,
            };
            let output = self.accessor(&track.values, kind, Usage::DATA);
            let interpolation = match track.interpolation {
                Interpolation::Linear => "LINEAR",
                Interpolation::Step => "STEP",
                Interpolation::CubicSpline => "CUBICSPLINE",
            };
            let path = match track.path {
                Path::Translation => "translation",
                Path::Rotation => "rotation",
                Path::Scale => "scale",
            };
            samplers.push(json!({ "input": input, "output": output, "interpolation": interpolation }));
            channels.push(json!({ "sampler": index, "target": { "node": track.node, "path": path } }));
        }
        self.animations.push(json!({ "name": name, "channels": channels, "samplers": samplers }));
    }

    fn key_times(&mut self, times: &[f32]) -> usize {
        let bits: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some((_, index)) = self.time_accessors.iter().find(|(b, _)| *b == bits) {
            return *index;
        }
        let index = self.accessor(times, Kind::Scalar, Usage::KEY_TIMES);
        self.time_accessors.push((bits, index));
        index
    }

    fn pad_bin(&mut self) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
    }

    /// The glTF JSON document; `uri` is the buffer's URI (None inside a GLB).
    fn document(&self, uri: Option<String>) -> Value {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        let mut roots = Vec::new();
        for (index, node) in self.nodes.iter().enumerate() {
            match node.parent.and_then(|p| children.get_mut(p)) {
                Some(list) => list.push(index),
                None => roots.push(index),
            }
        }
        let nodes: Vec<Value> =
            self.nodes.iter().zip(&children).map(|(node, kids)| node_json(node, kids)).collect();

        let mut buffer = Map::new();
        buffer.insert("byteLength".into(), json!(self.bin.len()));
        if let Some(uri) = uri {
            buffer.insert("uri".into(), json!(uri));
        }

        let mut root = Map::new();
        root.insert("asset".into(), json!({ "generator": GENERATOR, "version": "2.0" }));
        root.insert("scene".into(), json!(0));
        root.insert("scenes".into(), json!([{ "name": "Scene", "nodes": roots }]));
        // The schema forbids empty top-level arrays, so only present ones are written.
        for (key, list) in [
            ("nodes", nodes),
            ("meshes", self.meshes.clone()),
            ("skins", self.skins.clone()),
            ("animations", self.animations.clone()),
            ("accessors", self.accessors.clone()),
            ("bufferViews", self.views.clone()),
        ] {
            if !list.is_empty() {
                root.insert(key.into(), Value::Array(list));
            }
        }
        if !self.bin.is_empty() {
            root.insert("buffers".into(), json!([Value::Object(buffer)]));
        }
        if !self.extensions.is_empty() {
            let used: Vec<&String> = self.extensions.keys().chain(&self.declared).collect();
            root.insert("extensionsUsed".into(), json!(used));
            root.insert("extensions".into(), Value::Object(self.extensions.clone()));
        }
        Value::Object(root)
    }

    /// A `.gltf` file: pretty JSON whose one buffer is an embedded base64 data URI.
    pub fn to_gltf_embedded(&self) -> Vec<u8> {
        let uri = format!("data:application/octet-stream;base64,{}", BASE64_STANDARD.encode(&self.bin));
        let mut text = format!("{:#}", self.document(Some(uri)));
        text.push('\n');
        text.into_bytes()
    }

    /// A binary `.glb` file: header, JSON chunk padded with spaces, BIN chunk padded with zeros.
    pub fn to_glb(&self) -> Vec<u8> {
        let mut json_chunk = self.document(None).to_string().into_bytes();
        while !json_chunk.len().is_multiple_of(4) {
            json_chunk.push(b' ');
        }
        let bin_chunk = &self.bin;
        let has_bin = !bin_chunk.is_empty();
        let total = 12 + 8 + json_chunk.len() + if has_bin { 8 + bin_chunk.len() } else { 0 };

        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&len_u32(total).to_le_bytes());
        out.extend_from_slice(&len_u32(json_chunk.len()).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json_chunk);
        if has_bin {
            out.extend_from_slice(&len_u32(bin_chunk.len()).to_le_bytes());
            out.extend_from_slice(b"BIN\0");
            out.extend_from_slice(bin_chunk);
        }
        out
    }
}

/// GLB lengths are u32; the samples are tiny, so saturating is only a formality.
fn len_u32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

fn node_json(node: &Node, children: &[usize]) -> Value {
    let mut object = Map::new();
    object.insert("name".into(), json!(node.name));
    if !children.is_empty() {
        object.insert("children".into(), json!(children));
    }
    if node.translation != Vec3::ZERO {
        object.insert("translation".into(), json!(node.translation.to_array().map(num)));
    }
    if node.rotation != Quat::IDENTITY {
        object.insert("rotation".into(), json!(node.rotation.to_array().map(num)));
    }
    if node.scale != Vec3::ONE {
        object.insert("scale".into(), json!(node.scale.to_array().map(num)));
    }
    if let Some(mesh) = node.mesh {
        object.insert("mesh".into(), json!(mesh));
    }
    if let Some(skin) = node.skin {
        object.insert("skin".into(), json!(skin));
    }
    if let Some(extensions) = &node.extensions {
        object.insert("extensions".into(), Value::Object(extensions.clone()));
    }
    Value::Object(object)
}

/// Per-component min and max over `data` laid out `width` components per element.
fn bounds<T: Component>(data: &[T], width: usize) -> (Vec<T>, Vec<T>) {
    let mut min: Vec<T> = data.iter().take(width).copied().collect();
    let mut max = min.clone();
    for element in data.chunks_exact(width) {
        for ((lo, hi), &x) in min.iter_mut().zip(max.iter_mut()).zip(element) {
            *lo = lo.min_of(x);
            *hi = hi.max_of(x);
        }
    }
    (min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num_keeps_the_shortest_decimal_of_an_f32() {
        assert_eq!(num(0.2).to_string(), "0.2");
        assert_eq!(num(-0.1).to_string(), "-0.1");
        assert_eq!(num(1.0).to_string(), "1.0");
        // Reading the decimal back as f32 gives the same bits.
        let third = 1.0f32 / 3.0;
        let back: f32 = num(third).to_string().parse().unwrap_or(f32::NAN);
        assert_eq!(back.to_bits(), third.to_bits());
    }

    #[test]
    fn views_start_on_four_byte_boundaries() {
        let mut b = GltfBuilder::new();
        b.accessor(&[1u8, 2, 3], Kind::Scalar, Usage::DATA);
        b.accessor(&[1u16, 2, 3], Kind::Scalar, Usage::DATA);
        b.accessor(&[1.0f32], Kind::Scalar, Usage::DATA);
        let offsets: Vec<u64> = b.views.iter().filter_map(|v| v["byteOffset"].as_u64()).collect();
        // 3 bytes padded to 4, then 6 bytes padded to 8.
        assert_eq!(offsets, vec![0, 4, 12]);
        assert_eq!(b.bin.len(), 16);
    }

    #[test]
    fn bounds_are_per_component_and_skip_nan() {
        let data = [1.0f32, -2.0, 5.0, f32::NAN, 4.0, 0.5];
        let (min, max) = bounds(&data, 3);
        assert_eq!(min, vec![1.0, -2.0, 0.5]);
        assert_eq!(max, vec![1.0, 4.0, 5.0]);
    }

    #[test]
    fn glb_layout_has_padded_chunks_and_the_right_total() {
        let mut b = GltfBuilder::new();
        b.accessor(&[7u8], Kind::Scalar, Usage::DATA);
        let glb = b.to_glb();
        let word = |at: usize| glb.get(at..at + 4).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        assert_eq!(glb.get(0..4), Some(&b"glTF"[..]));
        assert_eq!(word(8), Some(glb.len() as u32));
        let json_len = word(12).unwrap_or(0) as usize;
        assert_eq!(json_len % 4, 0);
        let bin_at = 20 + json_len;
        assert_eq!(word(bin_at), Some(4));
        assert_eq!(glb.get(bin_at + 4..bin_at + 8), Some(&b"BIN\0"[..]));
        assert_eq!(glb.get(bin_at + 8..), Some(&[7u8, 0, 0, 0][..]));
    }

    #[test]
    fn inverse_bind_times_bind_global_is_identity() {
        let mut b = GltfBuilder::new();
        let root = b.node("root", None, DVec3::new(0.0, 1.0, 0.0), DQuat::from_rotation_z(0.3));
        let child = b.node("child", Some(root), DVec3::new(0.5, 0.0, 0.0), DQuat::from_rotation_x(-0.7));
        // By hand: the child's bind position is root T + Rz(0.3) * (0.5, 0, 0).
        let expected = DVec3::new(0.5 * 0.3f64.cos(), 1.0 + 0.5 * 0.3f64.sin(), 0.0);
        let g = b.bind_global(child);
        assert!((g.w_axis.truncate() - expected).length() < 1e-7);
        assert!((g * g.inverse()).abs_diff_eq(DMat4::IDENTITY, 1e-12));
    }
}
