//! Images named by a relative file URI. A copy written to another folder would not find
//! them, so their bytes go into the copy as buffer views with a `mimeType` (allowed in a
//! .gltf as in a .glb): the copy is one self-contained file, like everything export writes.
//! Data-URI and buffer-view images are already inside the file and stay as they are.

use super::merge::align4;
use crate::import::ExternalImage;
use serde_json::{Value, json};

/// An image left pointing at its file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageLeft {
    pub index: usize,
    pub uri: String,
    pub why: String,
}

/// Moves every readable external image into `merged`. Returns the number embedded and the
/// ones left as they were.
pub(super) fn embed(
    json: &mut Value,
    merged: &mut Vec<u8>,
    images: &[ExternalImage],
) -> (usize, Vec<ImageLeft>) {
    let mut embedded = 0;
    let mut left = Vec::new();
    for image in images {
        let declared = json
            .pointer(&format!("/images/{}/mimeType", image.index))
            .and_then(Value::as_str)
            .map(str::to_string);
        let bytes = match &image.bytes {
            Ok(bytes) => bytes,
            Err(why) => {
                left.push(ImageLeft { index: image.index, uri: image.uri.clone(), why: why.clone() });
                continue;
            }
        };
        let Some(mime) = declared.or_else(|| sniff(bytes).map(str::to_string)) else {
            let why = "its format is not one glTF names (PNG, JPEG, WebP, KTX2, AVIF, DDS)".to_string();
            left.push(ImageLeft { index: image.index, uri: image.uri.clone(), why });
            continue;
        };
        align4(merged);
        let view = json!({ "buffer": 0, "byteOffset": merged.len(), "byteLength": bytes.len() });
        merged.extend_from_slice(bytes);
        let Some(views) =
            json.as_object_mut().map(|root| root.entry("bufferViews").or_insert_with(|| json!([])))
        else {
            continue;
        };
        let Some(views) = views.as_array_mut() else { continue };
        views.push(view);
        let view_index = views.len() - 1;
        if let Some(entry) =
            json.pointer_mut(&format!("/images/{}", image.index)).and_then(Value::as_object_mut)
        {
            entry.remove("uri");
            entry.insert("bufferView".into(), json!(view_index));
            entry.insert("mimeType".into(), json!(mime));
            embedded += 1;
        }
    }
    (embedded, left)
}

/// The media type of image bytes, from their signature.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let at = |offset: usize, magic: &[u8]| bytes.get(offset..offset + magic.len()) == Some(magic);
    if at(0, b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if at(0, b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if at(0, b"RIFF") && at(8, b"WEBP") {
        Some("image/webp")
    } else if at(0, b"\xabKTX 20\xbb\r\n\x1a\n") {
        Some("image/ktx2")
    } else if at(4, b"ftypavif") || at(4, b"ftypavis") {
        Some("image/avif")
    } else if at(0, b"DDS ") {
        Some("image/vnd-ms.dds")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(index: usize, bytes: Result<Vec<u8>, String>) -> ExternalImage {
        ExternalImage { index, uri: format!("img{index}"), bytes }
    }

    #[test]
    fn readable_images_move_into_the_buffer_and_the_rest_are_listed() {
        let png = b"\x89PNG\r\n\x1a\nrest".to_vec();
        let mut doc = json!({
            "bufferViews": [{"buffer": 0, "byteLength": 3}],
            "images": [{"uri": "a.png"}, {"uri": "gone.png"}, {"uri": "x.bin"}, {"uri": "t.jpg", "mimeType": "image/jpeg"}]
        });
        let mut merged = vec![7, 7, 7];
        let images = [
            image(0, Ok(png.clone())),
            image(1, Err("missing".into())),
            image(2, Ok(vec![1, 2, 3])),
            image(3, Ok(vec![9])),
        ];
        let (embedded, left) = embed(&mut doc, &mut merged, &images);
        assert_eq!(embedded, 2);
        assert_eq!(left.iter().map(|l| l.index).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(doc["images"][0], json!({"bufferView": 1, "mimeType": "image/png"}));
        assert_eq!(doc["bufferViews"][1], json!({"buffer": 0, "byteOffset": 4, "byteLength": 12}));
        // The declared type wins over sniffing.
        assert_eq!(doc["images"][3], json!({"bufferView": 2, "mimeType": "image/jpeg"}));
        assert_eq!(doc["images"][1], json!({"uri": "gone.png"}));
        assert_eq!(&merged[4..16], &png[..]);
        assert_eq!(merged[16], 9);
    }

    #[test]
    fn signatures() {
        assert_eq!(sniff(b"\xff\xd8\xff\xe0"), Some("image/jpeg"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"\xabKTX 20\xbb\r\n\x1a\n"), Some("image/ktx2"));
        assert_eq!(sniff(b"\0\0\0\x1cftypavif"), Some("image/avif"));
        assert_eq!(sniff(b"GIF89a"), None);
    }
}
