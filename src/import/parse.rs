//! JSON text -> the file's one document, in a single pass over the text: gltf-json's `Root`
//! and, beside it, what the file holds that `Root` cannot: the document's own `extensions`
//! (kept as their JSON text until a reader asks, then read once), animation channels without
//! a target node (`KHR_animation_pointer`), the extension objects of channels, targets and
//! animation samplers, and attributes whose names gltf-json does not know. Every extension
//! reader reads from here; nothing reads the text again.
//!
//! gltf-json's own types are used for every object whose extensions its `extensions`
//! feature keeps; the few objects above are read by local copies of gltf-json's definitions,
//! named as gltf-json names them so that a malformed file gets the same message.

use super::Fault;
use super::pointer::{self, PointerChannel};
use gltf::json;
use json::validation::Checked;
use json::{Index, accessor::Accessor};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

/// The file's JSON, read once.
pub(crate) struct Document {
    pub root: json::Root,
    pub beside: Beside,
}

/// What the file holds that gltf-json's `Root` does not.
#[derive(Debug, Default)]
pub(crate) struct Beside {
    /// The document's own `extensions` object.
    pub extensions: Extensions,
    /// Whether the file has an `extensionsUsed` array at all (an empty one declares nothing;
    /// a missing one leaves readers that follow three-vrm free to read every extension).
    pub extensions_used_listed: bool,
    /// Channels without a target node or with a pointer, taken out of `root` (see `pointer`).
    pub pointers: pointer::Split,
    /// Per animation, per channel of the file: the channel's and its target's extensions.
    pub channel_extensions: Vec<Vec<(Extensions, Extensions)>>,
    /// Per animation, per sampler: the sampler's extensions.
    pub sampler_extensions: Vec<Vec<Extensions>>,
    /// `(mesh, primitive, name, accessor)` of every attribute gltf-json cannot name (an
    /// application-specific `_BATCHID`, say): `Root` keeps at most one of them per primitive.
    pub custom_attributes: Vec<(usize, usize, String, Index<Accessor>)>,
}

/// An `extensions` object gltf-json does not keep: each extension's name and its JSON text,
/// in file order, each read into a value at most once, when a reader first asks.
#[derive(Debug, Default, Clone)]
pub(crate) struct Extensions(Vec<Entry>);

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    /// Kept as text while the document is read: an extension object may hold what a JSON
    /// value cannot (a number past f64), which gltf-json's own reading skips over.
    text: Box<RawValue>,
    value: OnceCell<Option<Value>>,
}

impl Extensions {
    fn entry(&self, name: &str) -> Option<&Entry> {
        // The last one when the file names an extension twice, as a JSON object keeps it.
        self.0.iter().rev().find(|e| e.name == name)
    }

    /// The JSON text of extension `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&RawValue> {
        self.entry(name).map(|e| &*e.text)
    }

    /// Extension `name` as a JSON value; `None` when absent or when a value cannot hold it
    /// (a number past f64), which readers then treat as absent.
    pub(crate) fn value(&self, name: &str) -> Option<&Value> {
        self.entry(name)?.value()
    }

    /// The whole object as one JSON value, each name once; `None` when one of the
    /// extensions cannot be held by a value.
    pub(crate) fn to_value(&self) -> Option<Value> {
        let mut map = serde_json::Map::new();
        for name in self.names() {
            map.insert(name.to_string(), self.value(name)?.clone());
        }
        Some(Value::Object(map))
    }

    /// The names, sorted, each once.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.0.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

impl Entry {
    fn value(&self) -> Option<&Value> {
        self.value.get_or_init(|| serde_json::from_str(self.text.get()).ok()).as_ref()
    }
}

/// Reads the JSON text into the document: the one parse of a load.
pub(crate) fn read(text: &[u8]) -> Result<Document, Fault> {
    let file: file::Root = match parse_text(text) {
        Ok(file) => file,
        // A number past f32 where gltf-json reads an f32 is refused by the parse above but
        // read as an infinity (reported by `nodes` and the like) through a JSON value: such a
        // file is read that way, and any other fault is reported as the first parse saw it.
        Err(first) => match parse_text::<Value>(text) {
            Ok(value) => file::Root::deserialize(&value).map_err(|_| describe(first))?,
            Err(_) => return Err(describe(first)),
        },
    };
    file.into_document()
}

/// Every parse of a document's text goes through here, so that tests can count them.
fn parse_text<'de, T: Deserialize<'de>>(text: &'de [u8]) -> serde_json::Result<T> {
    #[cfg(test)]
    PARSES.with(|n| n.set(n.get() + 1));
    serde_json::from_slice(text)
}

fn describe(e: serde_json::Error) -> Fault {
    match e.classify() {
        serde_json::error::Category::Data => Fault::new("", format!("not a valid glTF document: {e}")),
        _ => Fault::new("", format!("invalid JSON: {e}")),
    }
}

#[cfg(test)]
thread_local! {
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has parsed a document's JSON text (a file that needs the
/// second reading in `read` counts two).
#[cfg(test)]
pub(crate) fn parses() -> usize {
    PARSES.with(std::cell::Cell::get)
}

/// Names the object kind an `extensions` object belongs to, for messages.
trait Kind {
    const NAME: &'static str;
}

struct OfRoot;
struct OfChannel;
struct OfTarget;
struct OfSampler;

impl Kind for OfRoot {
    const NAME: &'static str = "Root";
}
impl Kind for OfChannel {
    const NAME: &'static str = "Channel";
}
impl Kind for OfTarget {
    const NAME: &'static str = "Target";
}
impl Kind for OfSampler {
    const NAME: &'static str = "Sampler";
}

/// An `extensions` object read as gltf-json reads its (empty) extension structs: an object
/// or an array, with every entry kept instead of ignored.
struct ExtensionsOf<K>(Extensions, PhantomData<K>);

impl<'de, K: Kind> Deserialize<'de> for ExtensionsOf<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<K>(PhantomData<K>);
        impl<'de, K: Kind> Visitor<'de> for Entries<K> {
            type Value = ExtensionsOf<K>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "struct {}", K::NAME)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some((name, text)) = map.next_entry::<String, Box<RawValue>>()? {
                    entries.push(Entry { name, text, value: OnceCell::new() });
                }
                Ok(ExtensionsOf(Extensions(entries), PhantomData))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
                Ok(ExtensionsOf(Extensions::default(), PhantomData))
            }
        }
        deserializer.deserialize_struct(K::NAME, &[], Entries(PhantomData))
    }
}

fn take<K>(extensions: Option<ExtensionsOf<K>>) -> Extensions {
    extensions.map(|e| e.0).unwrap_or_default()
}

/// A primitive's attributes as gltf-json reads them, with the names it cannot hold kept.
struct Attributes {
    map: BTreeMap<Checked<json::mesh::Semantic>, Index<Accessor>>,
    custom: Vec<(String, Index<Accessor>)>,
}

impl<'de> Deserialize<'de> for Attributes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Attributes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Attributes, A::Error> {
                let mut out = Attributes { map: BTreeMap::new(), custom: Vec::new() };
                while let Some((semantic, name)) = map.next_key_seed(Name)? {
                    let accessor: Index<Accessor> = map.next_value()?;
                    if let Some(name) = name {
                        out.custom.push((name, accessor));
                    }
                    out.map.insert(semantic, accessor);
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// An attribute's name: its semantic, and the name itself when gltf-json cannot name it.
struct Name;

impl<'de> de::DeserializeSeed<'de> for Name {
    type Value = (Checked<json::mesh::Semantic>, Option<String>);
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = (Checked<json::mesh::Semantic>, Option<String>);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("semantic name")
    }
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        let semantic =
            Checked::<json::mesh::Semantic>::deserialize(de::value::StrDeserializer::<E>::new(name))?;
        let custom = matches!(semantic, Checked::Invalid).then(|| name.to_string());
        Ok((semantic, custom))
    }
}

/// A channel target's `path`: what gltf-json reads, and whether it is `pointer`.
struct PathName {
    property: Checked<json::animation::Property>,
    pointer: bool,
}

impl<'de> Deserialize<'de> for PathName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Path;
        impl<'de> Visitor<'de> for Path {
            type Value = PathName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "any of: {:?}", json::animation::VALID_PROPERTIES)
            }
            fn visit_str<E: de::Error>(self, path: &str) -> Result<PathName, E> {
                let property = Checked::<json::animation::Property>::deserialize(
                    de::value::StrDeserializer::<E>::new(path),
                )?;
                Ok(PathName { property, pointer: path == "pointer" })
            }
        }
        deserializer.deserialize_str(Path)
    }
}

fn listed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    Vec::deserialize(deserializer).map(Some)
}

/// Local copies of gltf-json's definitions (with its serde attributes) for the objects whose
/// data `Root` cannot hold.
mod file {
    use super::*;

    #[derive(Deserialize)]
    pub(super) struct Root {
        #[serde(default)]
        accessors: Vec<json::Accessor>,
        #[serde(default)]
        animations: Vec<Animation>,
        asset: json::Asset,
        #[serde(default)]
        buffers: Vec<json::Buffer>,
        #[serde(default, rename = "bufferViews")]
        buffer_views: Vec<json::buffer::View>,
        scene: Option<Index<json::Scene>>,
        #[serde(default)]
        extensions: Option<ExtensionsOf<OfRoot>>,
        #[serde(default)]
        extras: json::Extras,
        #[serde(default, rename = "extensionsUsed", deserialize_with = "listed")]
        extensions_used: Option<Vec<String>>,
        #[serde(default, rename = "extensionsRequired")]
        extensions_required: Vec<String>,
        #[serde(default)]
        cameras: Vec<json::Camera>,
        #[serde(default)]
        images: Vec<json::Image>,
        #[serde(default)]
        materials: Vec<json::Material>,
        #[serde(default)]
        meshes: Vec<Mesh>,
        #[serde(default)]
        nodes: Vec<json::Node>,
        #[serde(default)]
        samplers: Vec<json::texture::Sampler>,
        #[serde(default)]
        scenes: Vec<json::Scene>,
        #[serde(default)]
        skins: Vec<json::Skin>,
        #[serde(default)]
        textures: Vec<json::Texture>,
    }

    #[derive(Deserialize)]
    struct Animation {
        #[serde(default)]
        extensions: Option<json::extensions::animation::Animation>,
        #[serde(default)]
        extras: json::Extras,
        channels: Vec<Channel>,
        name: Option<String>,
        samplers: Vec<Sampler>,
    }

    /// gltf-json's channel, with `sampler` optional where gltf-json does not read the
    /// channel (see `Target`), so that its absence is named by the channel's place.
    struct Channel {
        sampler: Option<Index<json::animation::Sampler>>,
        target: Option<Target>,
        extensions: Option<ExtensionsOf<OfChannel>>,
        extras: json::Extras,
    }

    #[derive(Deserialize)]
    struct ChannelFields {
        sampler: Option<Index<json::animation::Sampler>>,
        /// Missing, the channel is ignored (as one without a node is).
        #[serde(default)]
        target: Option<Target>,
        #[serde(default)]
        extensions: Option<ExtensionsOf<OfChannel>>,
        #[serde(default)]
        extras: json::Extras,
    }

    impl<'de> Deserialize<'de> for Channel {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let check = |c: ChannelFields| {
                if c.sampler.is_none() && c.target.as_ref().is_some_and(Target::is_core) {
                    return Err("sampler");
                }
                let ChannelFields { sampler, target, extensions, extras } = c;
                Ok(Channel { sampler, target, extensions, extras })
            };
            deserializer.deserialize_struct("Channel", &[], Checking("Channel", check, PhantomData))
        }
    }

    /// gltf-json's target, with `node` optional: glTF allows a channel without one (it is
    /// ignored), and `KHR_animation_pointer` channels have none.
    struct Target {
        extensions: Option<ExtensionsOf<OfTarget>>,
        extras: json::Extras,
        node: Option<Index<json::Node>>,
        path: Option<PathName>,
    }

    #[derive(Deserialize)]
    struct TargetFields {
        #[serde(default)]
        extensions: Option<ExtensionsOf<OfTarget>>,
        #[serde(default)]
        extras: json::Extras,
        /// Absent, the channel is ignored; present, it must be an index (even `null` is not).
        #[serde(default, deserialize_with = "present")]
        node: Option<Index<json::Node>>,
        path: Option<PathName>,
    }

    impl Target {
        /// Whether gltf-json reads the channel: it has a node and is not a pointer.
        fn is_core(&self) -> bool {
            self.node.is_some() && !self.path.as_ref().is_some_and(|p| p.pointer)
        }
    }

    impl<'de> Deserialize<'de> for Target {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(AnyTarget)
        }
    }

    /// A target that is not an object names no node: its channel is ignored.
    struct AnyTarget;

    impl AnyTarget {
        fn none<E>(self) -> Result<Target, E> {
            Ok(Target { extensions: None, extras: Default::default(), node: None, path: None })
        }
    }

    impl<'de> Visitor<'de> for AnyTarget {
        type Value = Target;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("struct Target")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Target, A::Error> {
            let TargetFields { extensions, extras, node, path } =
                TargetFields::deserialize(de::value::MapAccessDeserializer::new(map))?;
            // Where gltf-json reads the channel, `path` is required; the error, raised
            // inside the object's visitor, is placed where gltf-json places it.
            if node.is_some() && path.is_none() {
                return Err(de::Error::missing_field("path"));
            }
            Ok(Target { extensions, extras, node, path })
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Target, A::Error> {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            self.none()
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Target, E> {
            self.none()
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Target, E> {
            self.none()
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Target, E> {
            self.none()
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Target, E> {
            self.none()
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Target, E> {
            self.none()
        }
        fn visit_unit<E: de::Error>(self) -> Result<Target, E> {
            self.none()
        }
    }

    fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Index<json::Node>>, D::Error> {
        Index::deserialize(deserializer).map(Some)
    }

    /// Reads `F` from inside the object's own visitor and checks it, so that a field the
    /// check finds missing is reported where gltf-json reports one: at the object's end.
    struct Checking<F, C>(&'static str, C, PhantomData<F>);

    impl<'de, F: Deserialize<'de>, T, C: FnOnce(F) -> Result<T, &'static str>> Visitor<'de> for Checking<F, C> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "struct {}", self.0)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            let fields = F::deserialize(de::value::MapAccessDeserializer::new(map))?;
            (self.1)(fields).map_err(de::Error::missing_field)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
            Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
        }
    }

    #[derive(Deserialize)]
    struct Sampler {
        #[serde(default)]
        extensions: Option<ExtensionsOf<OfSampler>>,
        #[serde(default)]
        extras: json::Extras,
        input: Index<Accessor>,
        #[serde(default)]
        interpolation: Checked<json::animation::Interpolation>,
        output: Index<Accessor>,
    }

    #[derive(Deserialize)]
    struct Mesh {
        #[serde(default)]
        extensions: Option<json::extensions::mesh::Mesh>,
        #[serde(default)]
        extras: json::Extras,
        name: Option<String>,
        primitives: Vec<Primitive>,
        weights: Option<Vec<f32>>,
    }

    #[derive(Deserialize)]
    struct Primitive {
        attributes: Attributes,
        #[serde(default)]
        extensions: Option<json::extensions::mesh::Primitive>,
        #[serde(default)]
        extras: json::Extras,
        indices: Option<Index<Accessor>>,
        material: Option<Index<json::Material>>,
        #[serde(default)]
        mode: Checked<json::mesh::Mode>,
        targets: Option<Vec<json::mesh::MorphTarget>>,
    }

    impl Root {
        pub(super) fn into_document(self) -> Result<Document, Fault> {
            let mut beside = Beside {
                extensions: take(self.extensions),
                extensions_used_listed: self.extensions_used.is_some(),
                ..Beside::default()
            };
            let animations = self
                .animations
                .into_iter()
                .enumerate()
                .map(|(a, animation)| animation.into_json(a, &mut beside))
                .collect::<Result<_, _>>()?;
            let meshes = self
                .meshes
                .into_iter()
                .enumerate()
                .map(|(m, mesh)| json::Mesh {
                    extensions: mesh.extensions,
                    extras: mesh.extras,
                    name: mesh.name,
                    primitives: mesh
                        .primitives
                        .into_iter()
                        .enumerate()
                        .map(|(p, primitive)| {
                            let custom = primitive.attributes.custom;
                            beside.custom_attributes.extend(custom.into_iter().map(|(n, i)| (m, p, n, i)));
                            json::mesh::Primitive {
                                attributes: primitive.attributes.map,
                                extensions: primitive.extensions,
                                extras: primitive.extras,
                                indices: primitive.indices,
                                material: primitive.material,
                                mode: primitive.mode,
                                targets: primitive.targets,
                            }
                        })
                        .collect(),
                    weights: mesh.weights,
                })
                .collect();
            let root = json::Root {
                accessors: self.accessors,
                animations,
                asset: self.asset,
                buffers: self.buffers,
                buffer_views: self.buffer_views,
                scene: self.scene,
                // The document's own extensions are in `beside`.
                extensions: None,
                extras: self.extras,
                extensions_used: self.extensions_used.unwrap_or_default(),
                extensions_required: self.extensions_required,
                cameras: self.cameras,
                images: self.images,
                materials: self.materials,
                meshes,
                nodes: self.nodes,
                samplers: self.samplers,
                scenes: self.scenes,
                skins: self.skins,
                textures: self.textures,
            };
            Ok(Document { root, beside })
        }
    }

    impl Animation {
        /// gltf-json's animation: the channels with a target node that are not pointers;
        /// the rest go to `beside.pointers`.
        fn into_json(self, a: usize, beside: &mut Beside) -> Result<json::Animation, Fault> {
            let mut kept = Vec::with_capacity(self.channels.len());
            let mut channels = Vec::with_capacity(self.channels.len());
            let mut extensions = Vec::with_capacity(self.channels.len());
            for (c, channel) in self.channels.into_iter().enumerate() {
                let (target_extensions, extras, node, path) = match channel.target {
                    Some(t) => (take(t.extensions), t.extras, t.node, t.path),
                    None => (Extensions::default(), Default::default(), None, None),
                };
                match (node, path, channel.sampler) {
                    (Some(node), Some(path), Some(sampler)) if !path.pointer => {
                        kept.push(c);
                        channels.push(json::animation::Channel {
                            sampler,
                            target: json::animation::Target {
                                extensions: None,
                                extras,
                                node,
                                path: path.property,
                            },
                            extensions: None,
                            extras: channel.extras,
                        });
                    }
                    (_, _, sampler) => {
                        let Some(sampler) = sampler else {
                            return Err(Fault::new(
                                format!("animations[{a}].channels[{c}].sampler"),
                                "required property is missing or not an index",
                            ));
                        };
                        let pointer = target_extensions
                            .value(pointer::EXTENSION)
                            .and_then(|p| p.get("pointer")?.as_str().map(str::to_string))
                            .unwrap_or_default();
                        beside.pointers.channels.push(PointerChannel {
                            animation: a,
                            channel: c,
                            sampler: sampler.value(),
                            pointer,
                        });
                    }
                }
                extensions.push((take(channel.extensions), target_extensions));
            }
            beside.pointers.kept.push(kept);
            beside.channel_extensions.push(extensions);
            let mut samplers = Vec::with_capacity(self.samplers.len());
            let mut sampler_extensions = Vec::with_capacity(self.samplers.len());
            for sampler in self.samplers {
                sampler_extensions.push(take(sampler.extensions));
                samplers.push(json::animation::Sampler {
                    extensions: None,
                    extras: sampler.extras,
                    input: sampler.input,
                    interpolation: sampler.interpolation,
                    output: sampler.output,
                });
            }
            beside.sampler_extensions.push(sampler_extensions);
            Ok(json::Animation {
                extensions: self.extensions,
                extras: self.extras,
                channels,
                name: self.name,
                samplers,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(animation: &str) -> String {
        format!(
            r#"{{"asset": {{"version": "2.0"}}, "nodes": [{{}}],
            "animations": [{{"channels": [{animation}], "samplers": [{{"input": 0, "output": 1}}]}}]}}"#
        )
    }

    /// Where gltf-json reads a document, a malformed one gets gltf-json's own words and place.
    #[test]
    fn malformed_documents_are_worded_as_gltf_json_words_them() {
        for channel in [
            r#"{"target": {"node": 0, "path": "rotation"}}"#,
            r#"{"sampler": 0, "target": {"node": 0}}"#,
            r#"{"sampler": "x", "target": {"node": 0, "path": "rotation"}}"#,
            r#"{"sampler": 0, "target": {"node": 0, "path": 3}}"#,
            r#"{"sampler": 0, "target": {"node": 0, "path": "rotation"}, "extensions": 5}"#,
            r#"{"sampler": 0, "target": {"node": 0, "path": "rotation", "extensions": 1}}"#,
        ] {
            let text = doc(channel);
            assert!(read(text.as_bytes()).is_err(), "{channel}");
            let theirs =
                json::deserialize::from_slice::<json::Root>(text.as_bytes()).err().map(|e| e.to_string());
            let ours = read(text.as_bytes()).err().map(|f| f.message());
            let theirs = theirs.map(|e| format!("not a valid glTF document: {e}"));
            assert_eq!(ours, theirs, "{channel}");
        }
        let text = r#"{"asset": {"version": "2.0"},
            "extensions": 7}"#;
        let theirs =
            json::deserialize::from_slice::<json::Root>(text.as_bytes()).err().map(|e| e.to_string());
        assert_eq!(
            read(text.as_bytes()).err().map(|f| f.message()),
            theirs.map(|e| format!("not a valid glTF document: {e}"))
        );
    }

    #[test]
    fn what_root_cannot_hold_is_kept_beside_it() {
        let text = r#"{"asset": {"version": "2.0"}, "nodes": [{}],
            "extensions": {"B": {"n": 1}, "A": 2, "B": {"n": 3}},
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "_BATCHID": 1, "_OTHER": 2}}]}],
            "animations": [{"channels": [
                {"sampler": 0, "target": {"path": "pointer",
                    "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/0/scale"}}}},
                {"sampler": 0, "target": {"node": 0, "path": "rotation"}, "extensions": {"C": {}}}],
                "samplers": [{"input": 0, "output": 1}]}]}"#;
        let Document { root, beside } = read(text.as_bytes()).expect("reads");
        assert_eq!(beside.extensions.names(), ["A", "B"]);
        assert_eq!(beside.extensions.value("B"), Some(&serde_json::json!({"n": 3})));
        assert!(!beside.extensions_used_listed);
        let custom: Vec<&str> = beside.custom_attributes.iter().map(|c| c.2.as_str()).collect();
        assert_eq!(custom, ["_BATCHID", "_OTHER"]);
        assert_eq!(root.animations[0].channels.len(), 1);
        assert_eq!(beside.pointers.channels[0].pointer, "/nodes/0/scale");
        assert_eq!(beside.pointers.file_index(0, 0), 1);
        assert_eq!(beside.channel_extensions[0][1].0.names(), ["C"]);
    }
}
