//! How many bytes the file's parts take, as glTF Transform's `inspect` counts them (its
//! `functions/src/inspect.ts`: `listMeshes`, `listAnimations`, `listTextures`; and
//! `core/src/utils/image-utils.ts`: `ImageUtils.getVRAMByteLength`), so that users comparing
//! the two see the same numbers. Collected at load; nothing downstream depends on it.

use serde::Serialize;

/// Bytes per part of the file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Sizes {
    /// Per accessor: count x components x component size (the data it holds, without the
    /// padding of an interleaved view; a sparse accessor counts as dense, as glTF Transform
    /// reads it).
    pub accessors: Vec<u64>,
    /// Per buffer: its `byteLength`.
    pub buffers: Vec<u64>,
    /// Per mesh: its primitives' accessors (attributes, morph targets, indices), each once.
    pub meshes: Vec<u64>,
    /// Per animation: its samplers' input and output accessors, each once.
    pub animations: Vec<u64>,
    /// Per image (what glTF Transform calls a texture).
    pub textures: Vec<TextureSize>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TextureSize {
    /// `image/png`, `image/jpeg`, ... (from the image's bytes; empty when unknown).
    pub mime_type: String,
    /// The encoded image's bytes (0 when they could not be read).
    pub bytes: u64,
    /// Width and height from the image's header (PNG, JPEG), when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<[u32; 2]>,
    /// GPU memory once decoded: RGBA8 with a full mip chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_bytes: Option<u64>,
}

impl Sizes {
    /// The GPU memory estimate: every texture's decoded size (those whose size is known)
    /// and every mesh's vertex and index data, uploaded once.
    pub fn gpu_estimate(&self) -> GpuEstimate {
        let textures = self.textures.iter().filter_map(|t| t.gpu_bytes).fold(0u64, u64::saturating_add);
        let geometry = self.meshes.iter().copied().fold(0u64, u64::saturating_add);
        GpuEstimate { textures, geometry, total: textures.saturating_add(geometry) }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GpuEstimate {
    pub textures: u64,
    pub geometry: u64,
    pub total: u64,
}

/// RGBA8 bytes of a `w` x `h` image with every mip level down to 1x1 (each level half the
/// last, rounded down, at least 1), as `ImageUtils.getVRAMByteLength` sums them.
pub fn mip_chain_bytes(w: u32, h: u32) -> u64 {
    let (mut w, mut h) = (u64::from(w.max(1)), u64::from(h.max(1)));
    let mut total = 0;
    while w > 1 || h > 1 {
        total = (w * h).saturating_mul(4).saturating_add(total);
        w = (w / 2).max(1);
        h = (h / 2).max(1);
    }
    total.saturating_add(4)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_mip_chain_sums_every_level() {
        // 4x2: 32 + 2x1 (8) + 1x1 (4) bytes.
        assert_eq!(super::mip_chain_bytes(4, 2), 32 + 8 + 4);
        // 1024 square: 4/3 of the base level, less a little: 4 * (4^11 - 1) / 3.
        assert_eq!(super::mip_chain_bytes(1024, 1024), 4 * ((1u64 << 22) - 1) / 3);
        assert_eq!(super::mip_chain_bytes(1, 1), 4);
    }
}
