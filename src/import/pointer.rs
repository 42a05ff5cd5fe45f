//! `KHR_animation_pointer`: animation channels whose target is a JSON pointer instead of a
//! node and path. gltf-json requires `target.node`, which such channels must not have, so
//! `parse` takes them out of the document as it reads it; `clips` then plays
//! the ones that point at what a core channel could animate (`resolve`) and lists the rest
//! (materials, cameras, lights, extensions) as not previewed. Nothing a pointer names is a
//! load error.

use super::accessors::{Format, Normalized};
use super::findings::Findings;
use crate::rig::{Mesh, Node, Property, Severity};
use gltf::json::accessor::{ComponentType as C, ComponentType, Type};

/// What a channel animates, however the file names it (a core target or a pointer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target {
    pub node: usize,
    pub property: Property,
}

pub(crate) const EXTENSION: &str = "KHR_animation_pointer";

/// One channel taken out of the document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PointerChannel {
    pub animation: usize,
    /// Its index in the file's `channels`.
    pub channel: usize,
    pub sampler: usize,
    /// The JSON pointer; empty for a channel without `node` and without a pointer (which
    /// the base spec says to ignore).
    pub pointer: String,
}

/// The channels without a target node or with a pointer (every one, whatever the file
/// declares), and where the remaining ones sat in the file.
#[derive(Debug, Default)]
pub(crate) struct Split {
    pub channels: Vec<PointerChannel>,
    /// Per animation, the file index of each channel gltf-json kept.
    pub kept: Vec<Vec<usize>>,
}

impl Split {
    /// The file's index of the `k`th channel gltf-json kept in animation `a`.
    pub(crate) fn file_index(&self, a: usize, k: usize) -> usize {
        self.kept.get(a).and_then(|kept| kept.get(k)).copied().unwrap_or(k)
    }
}

/// What a pointer channel animates when rigscope can play it: one node property, or, for a
/// mesh's weights, the weights of every node that shows that mesh's weights (a node with
/// its own `weights` overrides them). `Err` says why it is not previewed.
pub(crate) fn resolve(
    channel: &PointerChannel,
    nodes: &[Node],
    meshes: &[Mesh],
    findings: &mut Findings,
) -> Result<Vec<Target>, String> {
    if channel.pointer.is_empty() {
        return Err("no target node and no pointer (ignored, as glTF says)".to_string());
    }
    let parts: Vec<String> = channel.pointer.split('/').skip(1).map(unescape).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let index = |s: &str| s.parse::<usize>().ok();
    let mut invalid = |what: String| {
        findings.push(
            "RIG_ANIMATION_POINTER_INVALID",
            Severity::Warning,
            format!("/animations/{}/channels/{}", channel.animation, channel.channel),
            format!("{}: {what}", channel.pointer),
        );
        Err(format!("{what}; not previewed"))
    };
    match parts.as_slice() {
        ["nodes", n, property] => {
            let property = match *property {
                "translation" => Property::Translation,
                "rotation" => Property::Rotation,
                "scale" => Property::Scale,
                "weights" => Property::Weights,
                _ => return Err("not a node transform or morph weights".to_string()),
            };
            match index(n).filter(|&n| n < nodes.len()) {
                Some(node) => Ok(vec![Target { node, property }]),
                None => invalid(format!("node {n} does not exist")),
            }
        }
        ["meshes", m, "weights"] => {
            let Some(mesh) = index(m).filter(|&m| m < meshes.len()) else {
                return invalid(format!("mesh {m} does not exist"));
            };
            let targets: Vec<Target> = nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.mesh == Some(mesh) && n.weights.is_none())
                .map(|(node, _)| Target { node, property: Property::Weights })
                .collect();
            if targets.is_empty() {
                return Err("no node shows this mesh's own weights".to_string());
            }
            Ok(targets)
        }
        ["nodes", ..] | ["meshes", ..] => Err("not a node transform or morph weights".to_string()),
        [kind, ..] => Err(format!("targets {kind}, which rigscope does not animate")),
        [] => Err("targets the whole document".to_string()),
    }
}

/// What a pointer channel's output may be: `ty` of FLOAT or of any 8/16-bit integer, as the
/// accessor's `normalized` says (the pointer spec converts plain integers to equal floats).
pub(crate) fn output_format(ty: Type, normalized: bool) -> Format {
    let allowed: &'static [(Type, ComponentType)] = match ty {
        Type::Vec3 => &[
            (Type::Vec3, C::F32),
            (Type::Vec3, C::I8),
            (Type::Vec3, C::U8),
            (Type::Vec3, C::I16),
            (Type::Vec3, C::U16),
        ],
        Type::Vec4 => &[
            (Type::Vec4, C::F32),
            (Type::Vec4, C::I8),
            (Type::Vec4, C::U8),
            (Type::Vec4, C::I16),
            (Type::Vec4, C::U16),
        ],
        _ => &[
            (Type::Scalar, C::F32),
            (Type::Scalar, C::I8),
            (Type::Scalar, C::U8),
            (Type::Scalar, C::I16),
            (Type::Scalar, C::U16),
        ],
    };
    let need = match ty {
        Type::Vec3 => "VEC3 of FLOAT, BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
        Type::Vec4 => "VEC4 of FLOAT, BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
        _ => "SCALAR of FLOAT, BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
    };
    Format {
        role: "a pointer channel's output",
        need,
        allowed,
        normalized: if normalized { Normalized::Ints } else { Normalized::Never },
    }
}

/// RFC 6901: `~1` is `/` and `~0` is `~`, in that order.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(pointer: &str) -> PointerChannel {
        PointerChannel { animation: 0, channel: 3, sampler: 0, pointer: pointer.to_string() }
    }

    #[test]
    fn pointers_resolve_to_node_properties_or_are_explained() {
        let nodes = vec![
            Node { mesh: Some(0), ..Node::default() },
            Node { mesh: Some(0), weights: Some(vec![0.5]), ..Node::default() },
            Node { mesh: Some(0), ..Node::default() },
        ];
        let meshes = vec![Mesh { default_weights: vec![0.0], ..Mesh::default() }, Mesh::default()];
        let mut findings = Findings::default();
        let mut go = |p: &str| resolve(&channel(p), &nodes, &meshes, &mut findings);
        let t = |node, property| Target { node, property };
        assert_eq!(go("/nodes/2/rotation"), Ok(vec![t(2, Property::Rotation)]));
        assert_eq!(go("/nodes/0/translation"), Ok(vec![t(0, Property::Translation)]));
        assert_eq!(go("/nodes/1/scale"), Ok(vec![t(1, Property::Scale)]));
        assert_eq!(go("/nodes/1/weights"), Ok(vec![t(1, Property::Weights)]));
        // Node 1 overrides the mesh's weights with its own: only 0 and 2 follow the mesh.
        assert_eq!(go("/meshes/0/weights"), Ok(vec![t(0, Property::Weights), t(2, Property::Weights)]));
        assert!(go("/meshes/1/weights").is_err());
        assert!(
            go("/materials/0/pbrMetallicRoughness/baseColorFactor").is_err_and(|r| r.contains("materials"))
        );
        assert!(go("/nodes/0/weights/0").is_err());
        assert!(go("/nodes/0/extensions/KHR_lights_punctual/light").is_err());
        assert!(go("/cameras/0/perspective/yfov").is_err());
        assert!(go("").is_err());
        assert!(go("/nodes/9/rotation").is_err());
        assert!(go("/meshes/x/weights").is_err());
        let findings = findings.into_vec();
        assert_eq!(findings.len(), 1, "one finding per channel: {findings:?}");
        assert_eq!(findings[0].code, "RIG_ANIMATION_POINTER_INVALID");
    }

    #[test]
    fn escaped_tokens_are_unescaped() {
        assert_eq!(unescape("a~1b~0c"), "a/b~c");
        assert_eq!(unescape("~01"), "~1");
    }

    #[test]
    fn pointer_channels_are_taken_out_and_the_rest_keep_their_file_index() {
        let text = br#"{"asset":{"version":"2.0"},"nodes":[{}],"animations":[{"channels":[
            {"sampler":0,"target":{"path":"pointer","extensions":{"KHR_animation_pointer":{"pointer":"/nodes/0/rotation"}}}},
            {"sampler":1,"target":{"node":0,"path":"translation"}}],"samplers":[]}]}"#;
        let document = super::super::parse::read(text).expect("parses");
        let (root, split) = (document.root, document.beside.pointers);
        assert_eq!(root.animations[0].channels.len(), 1);
        assert_eq!(split.file_index(0, 0), 1);
        assert_eq!(
            split.channels,
            vec![PointerChannel {
                animation: 0,
                channel: 0,
                sampler: 0,
                pointer: "/nodes/0/rotation".to_string()
            }]
        );
    }
}
