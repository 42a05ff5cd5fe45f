//! Which glTF extensions rigscope applies, which it can safely ignore, and which it cannot
//! do without. rigscope draws no materials, textures or lights, so an extension that only
//! changes those is ignored even when the file requires it; one that changes geometry or
//! motion must be applied, or the file is refused (naming every such extension at once).

use crate::rig::ExtensionHandling;

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
}
