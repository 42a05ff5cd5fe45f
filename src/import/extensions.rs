//! Which glTF extensions rigscope applies, which it can safely ignore, and which it cannot
//! do without. rigscope draws no materials, textures or lights, so an extension that only
//! changes those is ignored even when the file requires it; one that changes geometry or
//! motion must be applied, or the file is refused (naming every such extension at once).
//! An extension object `extensionsUsed` does not declare is ignored everywhere, with a finding.

use super::findings::Findings;
use super::parse::{Beside, Extensions};
use crate::rig::{ExtensionHandling, Severity};
use gltf::json;
use serde_json::Value;

/// Extensions whose data rigscope reads and applies at load.
const APPLIED: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "KHR_draco_mesh_compression",
    "EXT_mesh_gpu_instancing",
    "KHR_mesh_gpu_instancing",
    "KHR_animation_pointer",
    // VRM's humanoid mapping and expressions (see `vrm`).
    "VRM",
    "VRMC_vrm",
    "VRMC_vrm_animation",
    // Spring bones, simulated with `--springs` (see `crate::vrm`).
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
    // Twist and aim bones, applied after sampling (see `crate::vrm::constrain`).
    "VRMC_node_constraint",
];

/// Extensions (by name or prefix) that only change materials, textures, lights or metadata.
const IGNORED_PREFIXES: &[&str] =
    &["KHR_materials_", "KHR_texture_", "EXT_texture_", "MSFT_texture_", "EXT_materials_"];
const IGNORED: &[&str] = &[
    "KHR_lights_punctual",
    "EXT_lights_image_based",
    "EXT_lights_ies",
    "KHR_xmp_json_ld",
    "KHR_xmp",
    "KHR_techniques_webgl",
    "MSFT_lod",
    "MSFT_packing_normalRoughnessMetallic",
    "MSFT_packing_occlusionRoughnessMetallic",
];

/// How rigscope treats extension `name` when the file requires it (`required`) or only
/// uses it. An unknown extension that is only used is ignored, as the spec allows.
pub(crate) fn handling(name: &str, required: bool) -> ExtensionHandling {
    if APPLIED.contains(&name) {
        ExtensionHandling::Applied
    } else if !required || IGNORED.contains(&name) || IGNORED_PREFIXES.iter().any(|p| name.starts_with(p)) {
        ExtensionHandling::Ignored
    } else {
        ExtensionHandling::Unsupported
    }
}

/// Whether the document's `extensionsUsed` lists `name`. An extension object whose name it
/// does not list is ignored by every reader of the file (`load`, and the raw copy `normalize`
/// writes from), as the glTF spec asks every extension in use to be listed and the validator
/// treats an undeclared one (`getExtensions` in KhronosGroup/glTF-Validator `lib/src/utils.dart`):
/// reported, never applied.
pub(crate) fn declared(json: &Value, name: &str) -> bool {
    json.get("extensionsUsed").and_then(Value::as_array).is_some_and(|used| used.iter().any(|e| e == name))
}

/// Every extension object of the document whose name `extensionsUsed` does not list, as
/// `(JSON pointer, name)` in the order of the document's keys: the validator's
/// UNDECLARED_EXTENSION. Extension objects are looked for on every object gltf-json reads
/// (and in declared extension objects); extras are data, not glTF objects, and undeclared
/// extension objects are not looked into.
pub(crate) fn undeclared(root: &json::Root, beside: &Beside) -> Vec<(String, String)> {
    let used: Vec<&str> = root.extensions_used.iter().map(String::as_str).collect();
    let mut found = Found { used: &used, out: Vec::new() };
    for (i, a) in root.accessors.iter().enumerate() {
        found.kept(|| format!("/accessors/{i}"), a.extensions.as_ref().map(|e| &e.others));
    }
    for (a, animation) in root.animations.iter().enumerate() {
        let at = || format!("/animations/{a}");
        for (c, (channel, target)) in beside.channel_extensions.get(a).into_iter().flatten().enumerate() {
            found.own(|| format!("{}/channels/{c}", at()), channel);
            found.own(|| format!("{}/channels/{c}/target", at()), target);
        }
        found.kept(at, animation.extensions.as_ref().map(|e| &e.others));
        for (s, sampler) in beside.sampler_extensions.get(a).into_iter().flatten().enumerate() {
            found.own(|| format!("{}/samplers/{s}", at()), sampler);
        }
    }
    for (i, v) in root.buffer_views.iter().enumerate() {
        found.kept(|| format!("/bufferViews/{i}"), v.extensions.as_ref().map(|e| &e.others));
    }
    for (i, b) in root.buffers.iter().enumerate() {
        found.kept(|| format!("/buffers/{i}"), b.extensions.as_ref().map(|e| &e.others));
    }
    for (i, camera) in root.cameras.iter().enumerate() {
        found.kept(|| format!("/cameras/{i}"), camera.extensions.as_ref().map(|e| &e.others));
        let orthographic = camera.orthographic.as_ref().and_then(|o| o.extensions.as_ref());
        found.kept(|| format!("/cameras/{i}/orthographic"), orthographic.map(|e| &e.others));
        let perspective = camera.perspective.as_ref().and_then(|p| p.extensions.as_ref());
        found.kept(|| format!("/cameras/{i}/perspective"), perspective.map(|e| &e.others));
    }
    found.own(String::new, &beside.extensions);
    for (i, image) in root.images.iter().enumerate() {
        found.kept(|| format!("/images/{i}"), image.extensions.as_ref().map(|e| &e.others));
    }
    for (i, m) in root.materials.iter().enumerate() {
        let at = || format!("/materials/{i}");
        found.kept(|| format!("{}/emissiveTexture", at()), info(&m.emissive_texture));
        found.kept(at, m.extensions.as_ref().map(|e| &e.others));
        let normal = m.normal_texture.as_ref().and_then(|t| t.extensions.as_ref());
        found.kept(|| format!("{}/normalTexture", at()), normal.map(|e| &e.others));
        let occlusion = m.occlusion_texture.as_ref().and_then(|t| t.extensions.as_ref());
        found.kept(|| format!("{}/occlusionTexture", at()), occlusion.map(|e| &e.others));
        let pbr = &m.pbr_metallic_roughness;
        found.kept(
            || format!("{}/pbrMetallicRoughness/baseColorTexture", at()),
            info(&pbr.base_color_texture),
        );
        found.kept(|| format!("{}/pbrMetallicRoughness", at()), pbr.extensions.as_ref().map(|e| &e.others));
        let metallic = info(&pbr.metallic_roughness_texture);
        found.kept(|| format!("{}/pbrMetallicRoughness/metallicRoughnessTexture", at()), metallic);
    }
    for (m, mesh) in root.meshes.iter().enumerate() {
        found.kept(|| format!("/meshes/{m}"), mesh.extensions.as_ref().map(|e| &e.others));
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let at = || format!("/meshes/{m}/primitives/{p}");
            found.kept(at, primitive.extensions.as_ref().map(|e| &e.others));
        }
    }
    for (i, n) in root.nodes.iter().enumerate() {
        found.kept(|| format!("/nodes/{i}"), n.extensions.as_ref().map(|e| &e.others));
    }
    for (i, s) in root.samplers.iter().enumerate() {
        found.kept(|| format!("/samplers/{i}"), s.extensions.as_ref().map(|e| &e.others));
    }
    for (i, s) in root.scenes.iter().enumerate() {
        found.kept(|| format!("/scenes/{i}"), s.extensions.as_ref().map(|e| &e.others));
    }
    for (i, s) in root.skins.iter().enumerate() {
        found.kept(|| format!("/skins/{i}"), s.extensions.as_ref().map(|e| &e.others));
    }
    for (i, t) in root.textures.iter().enumerate() {
        found.kept(|| format!("/textures/{i}"), t.extensions.as_ref().map(|e| &e.others));
    }
    found.out
}

/// The extensions gltf-json keeps on a texture reference.
fn info(texture: &Option<json::texture::Info>) -> Option<&serde_json::Map<String, Value>> {
    texture.as_ref().and_then(|t| t.extensions.as_ref()).map(|e| &e.others)
}

/// The undeclared extension objects found so far.
struct Found<'u> {
    used: &'u [&'u str],
    out: Vec<(String, String)>,
}

impl Found<'_> {
    /// The extensions gltf-json keeps on the object at `at` (whose pointer is made only for
    /// an object with extensions).
    fn kept(&mut self, at: impl Fn() -> String, extensions: Option<&serde_json::Map<String, Value>>) {
        for (name, object) in extensions.into_iter().flatten() {
            self.one(&at(), name, || Some(object));
        }
    }

    /// The extensions `parse` keeps beside gltf-json's document for the object at `at`.
    fn own(&mut self, at: impl Fn() -> String, extensions: &Extensions) {
        for name in extensions.names() {
            self.one(&at(), name, || extensions.value(name));
        }
    }

    /// Extension `name` of the object at `at`: reported when undeclared, looked into otherwise.
    fn one<'v>(&mut self, at: &str, name: &str, object: impl FnOnce() -> Option<&'v Value>) {
        let mut pointer = format!("{at}/extensions/{}", escape(name));
        if self.used.contains(&name) {
            if let Some(object) = object() {
                walk(object, &mut pointer, self.used, &mut self.out);
            }
        } else {
            self.out.push((pointer, name.to_string()));
        }
    }
}

fn walk(value: &Value, at: &mut String, used: &[&str], out: &mut Vec<(String, String)>) {
    let len = at.len();
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if key == "extras" {
                    continue;
                }
                at.push('/');
                at.push_str(&escape(key));
                if key == "extensions"
                    && let Value::Object(extensions) = item
                {
                    for (name, object) in extensions {
                        let inner = at.len();
                        at.push('/');
                        at.push_str(&escape(name));
                        if used.contains(&name.as_str()) {
                            walk(object, at, used, out);
                        } else {
                            out.push((at.clone(), name.clone()));
                        }
                        at.truncate(inner);
                    }
                } else {
                    walk(item, at, used, out);
                }
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push('/');
                at.push_str(&i.to_string());
                walk(item, at, used, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// A JSON pointer token (RFC 6901).
fn escape(key: &str) -> std::borrow::Cow<'_, str> {
    if key.contains(['~', '/']) { key.replace('~', "~0").replace('/', "~1").into() } else { key.into() }
}

/// Records UNDECLARED_EXTENSION (an error, as the validator's LinkError) for every extension
/// object `undeclared` finds.
pub(crate) fn report_undeclared(root: &json::Root, beside: &Beside, findings: &mut Findings) {
    for (pointer, _) in undeclared(root, beside) {
        findings.push(
            "UNDECLARED_EXTENSION",
            Severity::Error,
            pointer,
            "Extension is not declared in extensionsUsed (rigscope ignores it, as the validator does).",
        );
    }
}

/// Why a required extension rigscope does not support matters, for the error message.
pub(crate) fn why_unsupported(name: &str) -> Option<&'static str> {
    name.contains("compression").then_some("compressed geometry needs a decoder rigscope does not have")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExtensionHandling as H;

    #[test]
    fn geometry_extensions_are_applied_and_looks_are_ignored() {
        assert_eq!(handling("KHR_mesh_quantization", true), H::Applied);
        assert_eq!(handling("EXT_meshopt_compression", true), H::Applied);
        assert_eq!(handling("KHR_meshopt_compression", false), H::Applied);
        for looks in [
            "KHR_materials_unlit",
            "KHR_materials_some_future_one",
            "KHR_texture_basisu",
            "EXT_texture_webp",
            "EXT_texture_avif",
            "MSFT_texture_dds",
            "KHR_lights_punctual",
            "EXT_lights_image_based",
            "KHR_xmp_json_ld",
        ] {
            assert_eq!(handling(looks, true), H::Ignored, "{looks}");
        }
        // Anything else that is required changes what rigscope would show.
        assert_eq!(handling("ACME_warp_vertices", true), H::Unsupported);
        assert_eq!(handling("ACME_warp_vertices", false), H::Ignored);
    }

    #[test]
    fn undeclared_extension_objects_are_found_outside_extras() {
        let doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["KHR_materials_unlit"],
            "extensions": {"ACME/root": {}},
            "meshes": [{"primitives": [
                {"attributes": {}, "extensions": {"KHR_draco_mesh_compression": {"extensions": {"ACME_inner": {}}}}},
                {"attributes": {}, "extensions": {"KHR_materials_unlit": {"extensions": {"ACME_inner": {}}}}}
            ]}],
            "materials": [{"extras": {"extensions": {"ACME_in_extras": {}}}}]
        });
        assert!(declared(&doc, "KHR_materials_unlit") && !declared(&doc, "KHR_draco_mesh_compression"));
        let text = doc.to_string();
        let document = super::super::parse::read(text.as_bytes()).expect("parses");
        let found: Vec<(String, String)> = undeclared(&document.root, &document.beside);
        let found: Vec<(&str, &str)> = found.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            found,
            [
                ("/extensions/ACME~1root", "ACME/root"),
                (
                    "/meshes/0/primitives/0/extensions/KHR_draco_mesh_compression",
                    "KHR_draco_mesh_compression"
                ),
                ("/meshes/0/primitives/1/extensions/KHR_materials_unlit/extensions/ACME_inner", "ACME_inner"),
            ]
        );
    }
}
