//! The bytes each accessor, buffer, mesh, animation and image takes (`rig::Sizes`), read from
//! the JSON and, for images, their bytes' headers. Counted as glTF Transform's `inspect`
//! counts them (see `rig::sizes`). Never fails: what cannot be read counts as 0 or unknown,
//! since the sizes only describe a file the load has already accepted.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;

use base64::Engine as _;
use gltf::json;
use gltf::json::validation::Checked;

use crate::rig::{Sizes, TextureSize, mip_chain_bytes};

pub(crate) fn measure(root: &json::Root, data: &[Cow<[u8]>], base_dir: Option<&Path>) -> Sizes {
    let accessors: Vec<u64> = root.accessors.iter().map(accessor_bytes).collect();
    let sum = |set: BTreeSet<usize>| {
        set.into_iter().filter_map(|a| accessors.get(a)).fold(0u64, |t, b| t.saturating_add(*b))
    };
    let meshes = root
        .meshes
        .iter()
        .map(|m| {
            let mut used = BTreeSet::new();
            for p in &m.primitives {
                used.extend(p.attributes.values().map(|a| a.value()));
                used.extend(p.indices.map(|a| a.value()));
                for t in p.targets.iter().flatten() {
                    used.extend(
                        [&t.positions, &t.normals, &t.tangents].into_iter().flatten().map(|a| a.value()),
                    );
                }
            }
            sum(used)
        })
        .collect();
    let animations = root
        .animations
        .iter()
        .map(|a| sum(a.samplers.iter().flat_map(|s| [s.input.value(), s.output.value()]).collect()))
        .collect();
    Sizes {
        buffers: root.buffers.iter().map(|b| b.byte_length.0).collect(),
        meshes,
        animations,
        textures: root.images.iter().map(|i| texture(root, i, data, base_dir)).collect(),
        accessors,
    }
}

fn accessor_bytes(a: &json::Accessor) -> u64 {
    let (Checked::Valid(ty), Checked::Valid(component)) = (&a.type_, &a.component_type) else { return 0 };
    // Saturating: the count is the file's word, and a hostile one must not overflow.
    a.count.0.saturating_mul((ty.multiplicity() * component.0.size()) as u64)
}

fn texture(
    root: &json::Root,
    image: &json::Image,
    data: &[Cow<[u8]>],
    base_dir: Option<&Path>,
) -> TextureSize {
    let bytes: Option<Cow<[u8]>> = match (&image.buffer_view, &image.uri) {
        (Some(view), _) => root.buffer_views.get(view.value()).and_then(|v| {
            let start = usize::try_from(v.byte_offset.map_or(0, |o| o.0)).ok()?;
            let len = usize::try_from(v.byte_length.0).ok()?;
            data.get(v.buffer.value())?.get(start..start.checked_add(len)?).map(Cow::Borrowed)
        }),
        (None, Some(uri)) if uri.starts_with("data:") => uri
            .split_once(";base64,")
            .and_then(|(_, b64)| base64::engine::general_purpose::STANDARD.decode(b64).ok())
            .map(Cow::Owned),
        (None, Some(uri)) => base_dir
            .and_then(|dir| super::buffers::contained_path(uri, dir).ok())
            .and_then(|path| super::file::read_regular(&path, u64::MAX).ok())
            .map(Cow::Owned),
        (None, None) => None,
    };
    let Some(bytes) = bytes else { return TextureSize::default() };
    let (mime_type, resolution) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        ("image/png", png_size(&bytes))
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ("image/jpeg", jpeg_size(&bytes))
    } else {
        (image.mime_type.as_ref().map_or("", |m| m.0.as_str()), None)
    };
    TextureSize {
        mime_type: mime_type.to_string(),
        bytes: bytes.len() as u64,
        resolution,
        gpu_bytes: resolution.map(|[w, h]| mip_chain_bytes(w, h)),
    }
}

/// A PNG's IHDR width and height (big-endian, right after the signature and chunk header).
fn png_size(b: &[u8]) -> Option<[u32; 2]> {
    let be = |at: usize| Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?));
    (b.get(12..16) == Some(b"IHDR")).then_some(())?;
    Some([be(16)?, be(20)?])
}

/// A JPEG's size from its first start-of-frame segment (SOF0, SOF1 or SOF2), walking the
/// segments from the first after the SOI marker, as `JPEGImageUtils.getSize` does.
fn jpeg_size(b: &[u8]) -> Option<[u32; 2]> {
    let be16 = |at: usize| Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?));
    let mut at = 4;
    loop {
        let len = usize::from(be16(at)?);
        let marker = *b.get(at + len + 1)?;
        if matches!(marker, 0xC0..=0xC2) {
            let h = be16(at + len + 5)?;
            let w = be16(at + len + 7)?;
            return Some([u32::from(w), u32::from(h)]);
        }
        at += len + 2;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn image_headers_give_sizes() {
        // A PNG signature and IHDR chunk for 300 x 20.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend(300u32.to_be_bytes());
        png.extend(20u32.to_be_bytes());
        assert_eq!(super::png_size(&png), Some([300, 20]));
        // SOI, an APP0 segment of 16 bytes, then SOF0: length 17, precision 8, 40 high, 64 wide.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16];
        jpeg.extend([0; 14]);
        jpeg.extend([0xFF, 0xC0, 0, 17, 8, 0, 40, 0, 64]);
        assert_eq!(super::jpeg_size(&jpeg), Some([64, 40]));
        assert_eq!(super::jpeg_size(&jpeg[..10]), None);
    }
}
