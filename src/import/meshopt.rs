//! EXT_meshopt_compression and KHR_meshopt_compression: buffer views whose bytes are stored
//! compressed in another buffer. A view whose own buffer has data (a fallback the writer
//! kept) is read as it is; otherwise the compressed bytes are decoded into that buffer once
//! at load, so every later stage sees plain buffer views.
//!
//! The decoding itself is meshoptimizer's, through the pure-Rust `meshoptimizer-rs` port
//! (the `meshopt` crate compiles meshoptimizer's C++, which breaks cross-checking for
//! macOS). The extension objects are those gltf-json keeps on buffer views and buffers.

use super::Fault;
use super::budget::Budget;
use meshoptimizer_rs::{Limits, Workspace, codec};
use serde::Deserialize;
use std::borrow::Cow;

const EXTENSIONS: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// What the file compresses: per buffer view, its compressed form (if any), and which
/// buffers are fallbacks, to be filled in rather than read.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    views: Vec<Option<Compressed>>,
    fallback: Vec<bool>,
}

/// One compressed buffer view, as the extension object describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compressed {
    /// Which of the two extensions it came from, for messages.
    #[serde(skip)]
    extension: &'static str,
    buffer: usize,
    #[serde(default)]
    byte_offset: u64,
    byte_length: u64,
    byte_stride: u64,
    count: u64,
    mode: String,
    #[serde(default)]
    filter: Option<String>,
}

impl Plan {
    /// Reads the compressed views and fallback buffers; an empty plan when the file uses
    /// neither extension.
    pub(crate) fn read(root: &gltf::json::Root) -> Result<Self, Fault> {
        // Only the names the file declares: an undeclared extension object is ignored, as
        // the validator does (see `extensions::undeclared`).
        let declared: Vec<&str> =
            EXTENSIONS.iter().copied().filter(|n| root.extensions_used.iter().any(|e| e == n)).collect();
        if declared.is_empty() {
            return Ok(Self::default());
        }
        let mut views = Vec::with_capacity(root.buffer_views.len());
        for (i, view) in root.buffer_views.iter().enumerate() {
            let mut found = None;
            for &name in &declared {
                let Some(value) = view.extensions.as_ref().and_then(|e| e.others.get(name)) else { continue };
                let mut c = Compressed::deserialize(value)
                    .map_err(|e| Fault::new(format!("bufferViews[{i}].extensions.{name}"), e.to_string()))?;
                c.extension = name;
                // A file may carry both; KHR (listed second) is the ratified one.
                found = Some(c);
            }
            views.push(found);
        }
        let fallback = root
            .buffers
            .iter()
            .map(|b| {
                declared.iter().any(|name| {
                    b.extensions.as_ref().and_then(|e| e.others.get(*name)).and_then(|x| x.get("fallback"))
                        == Some(&serde_json::Value::Bool(true))
                })
            })
            .collect();
        Ok(Self { views, fallback })
    }

    /// Whether buffer `index` is a fallback (it may have no data of its own).
    pub(crate) fn is_fallback(&self, index: usize) -> bool {
        self.fallback.get(index).copied().unwrap_or(false)
    }

    /// Whether buffer view `index` is stored compressed (decoded or read from its fallback).
    pub(crate) fn is_compressed(&self, index: usize) -> bool {
        self.views.get(index).is_some_and(Option::is_some)
    }

    /// Decodes every compressed view whose own buffer has no data into that buffer.
    /// `buffers` holds every buffer's bytes, fallbacks without data as empty slices.
    /// A fallback buffer is allocated at its declared size, so the declared sizes together
    /// must fit `budget.decoded()` (a one-line JSON could otherwise ask for gigabytes
    /// before a single byte is decoded).
    pub(crate) fn decode(
        &self,
        root: &gltf::json::Root,
        buffers: &mut [Cow<'_, [u8]>],
        budget: &Budget,
    ) -> Result<(), Fault> {
        let mut allocated = 0u64;
        let mut workspace = Workspace::new(Limits::default());
        // Fallbacks that arrived with data are used as they are.
        let had_data: Vec<bool> = buffers.iter().map(|b| !b.is_empty()).collect();
        for (i, compressed) in self.views.iter().enumerate() {
            let (Some(c), Some(view)) = (compressed, root.buffer_views.get(i)) else { continue };
            let at = format!("bufferViews[{i}].extensions.{}", c.extension);
            let target = view.buffer.value();
            if target == c.buffer {
                return Err(Fault::new(at, "the compressed data is in the view's own buffer"));
            }
            let declared = root.buffers.get(target).map(|b| b.byte_length.0);
            let Some(declared) = declared else {
                return Err(Fault::new(
                    format!("bufferViews[{i}].buffer"),
                    format!("buffer {target} does not exist"),
                ));
            };
            if had_data.get(target).copied().unwrap_or(true) {
                continue;
            }
            let fresh = buffers.get(target).is_some_and(|b| b.is_empty());
            if fresh {
                allocated = allocated.saturating_add(declared);
                if allocated > budget.decoded() {
                    return Err(Fault::new(
                        format!("buffers[{target}].byteLength"),
                        format!(
                            "claims {declared} bytes of decoded data ({allocated} for every decoded buffer), more than rigscope allocates for a {}-byte input ({})",
                            budget.input_bytes,
                            budget.decoded()
                        ),
                    ));
                }
            }
            let start = view.byte_offset.unwrap_or_default().0;
            let len = c.count.saturating_mul(c.byte_stride);
            if len != view.byte_length.0 {
                return Err(Fault::new(
                    at,
                    format!(
                        "count {} x byteStride {} is not the view's byteLength {}",
                        c.count, c.byte_stride, view.byte_length.0
                    ),
                ));
            }
            // The target is taken out while the source (another buffer) is read in place.
            let Some(slot) = buffers.get_mut(target) else { continue };
            let mut decoded = std::mem::take(slot).into_owned();
            if decoded.is_empty() {
                decoded = vec![0; declared as usize];
            }
            let result = match slice(buffers, c.buffer, c.byte_offset, c.byte_length) {
                None => {
                    Err(format!("bytes {}+{} are not in buffers[{}]", c.byte_offset, c.byte_length, c.buffer))
                }
                Some(source) => usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(len).ok())
                    .and_then(|(s, n)| decoded.get_mut(s..s.checked_add(n)?))
                    .ok_or_else(|| format!("the decoded view does not fit buffers[{target}]"))
                    .and_then(|out| decode_view(c, source, out, &mut workspace)),
            };
            if let Some(slot) = buffers.get_mut(target) {
                *slot = Cow::Owned(decoded);
            }
            result.map_err(|what| Fault::new(at, what))?;
        }
        Ok(())
    }
}

fn slice<'b>(buffers: &'b [Cow<'_, [u8]>], buffer: usize, offset: u64, len: u64) -> Option<&'b [u8]> {
    let data = buffers.get(buffer)?;
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    data.get(start..end)
}

/// Decodes one view's `source` bytes into `out` (exactly `count * byteStride` bytes).
fn decode_view(c: &Compressed, source: &[u8], out: &mut [u8], ws: &mut Workspace) -> Result<(), String> {
    let count = usize::try_from(c.count).map_err(|_| "count too large".to_string())?;
    let stride = usize::try_from(c.byte_stride).map_err(|_| "byteStride too large".to_string())?;
    let khr = c.extension.starts_with("KHR");
    let filter = c.filter.as_deref().unwrap_or("NONE");
    let failed = |what: &str, e: meshoptimizer_rs::Error| format!("{what} cannot be decoded: {e}");
    match c.mode.as_str() {
        "ATTRIBUTES" => {
            codec::decode_vertex_buffer_into(out, count, stride, source, ws)
                .map_err(|e| failed("ATTRIBUTES data", e))?;
            let filtered = match filter {
                "NONE" => Ok(()),
                "OCTAHEDRAL" => codec::decode_filter_oct(out, count, stride, ws),
                "QUATERNION" => codec::decode_filter_quat(out, count, stride, ws),
                "EXPONENTIAL" => codec::decode_filter_exp(out, count, stride, ws),
                "COLOR" if khr => codec::decode_filter_color(out, count, stride, ws),
                other => return Err(format!("filter '{other}' is not one the extension defines")),
            };
            filtered.map_err(|e| failed(&format!("the {filter} filter"), e))
        }
        "TRIANGLES" | "INDICES" if filter != "NONE" => {
            Err(format!("filter '{filter}' is only allowed with mode ATTRIBUTES"))
        }
        "TRIANGLES" => codec::decode_index_buffer_into(out, count, stride, source, ws)
            .map_err(|e| failed("TRIANGLES data", e)),
        "INDICES" => codec::decode_index_sequence_into(out, count, stride, source, ws)
            .map_err(|e| failed("INDICES data", e)),
        other => Err(format!("mode '{other}' is not ATTRIBUTES, TRIANGLES or INDICES")),
    }
}

#[cfg(test)]
mod tests {
    use crate::import::load_bytes;

    /// gltfpack -cz -ce khr output of seed-arm (see tests/fixtures/pipeline/make.sh): every
    /// mode but TRIANGLES and the COLOR, EXPONENTIAL and QUATERNION filters, 5.9 KB.
    const KHR: &[u8] = include_bytes!("../../tests/fixtures/pipeline/seed-arm.gltfpack-khr.glb");

    fn parts(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
        let word = |at: usize| u32::from_le_bytes([glb[at], glb[at + 1], glb[at + 2], glb[at + 3]]) as usize;
        let n = word(12);
        let json = serde_json::from_slice(&glb[20..20 + n]).unwrap_or_default();
        (json, glb[28 + n..28 + n + word(20 + n)].to_vec())
    }

    fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
        let mut text = serde_json::to_vec(json).unwrap_or_default();
        text.resize(text.len().next_multiple_of(4), b' ');
        let mut out = b"glTF".to_vec();
        for w in [2, 28 + text.len() + bin.len(), text.len()] {
            out.extend_from_slice(&(w as u32).to_le_bytes());
        }
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&text);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out
    }

    #[test]
    fn no_corrupted_compressed_byte_can_make_the_loader_panic() {
        assert!(load_bytes(KHR, "khr.glb", None).is_ok());
        let (json, bin) = parts(KHR);
        for at in 0..bin.len() {
            for value in [0u8, 0xFF, bin[at].wrapping_add(1)] {
                let mut bad = bin.clone();
                bad[at] = value;
                let _ = load_bytes(&glb(&json, &bad), "khr.glb", None);
            }
        }
    }

    #[test]
    fn bad_extension_fields_are_errors_naming_the_view() {
        let (json, bin) = parts(KHR);
        let ext = "/bufferViews/3/extensions/KHR_meshopt_compression";
        for (field, value, says) in [
            ("mode", serde_json::json!("STRIPS"), "mode 'STRIPS'"),
            ("filter", serde_json::json!("SEPIA"), "filter 'SEPIA'"),
            ("count", serde_json::json!(4_000_000_000u64), "byteLength"),
            ("byteStride", serde_json::json!(3), "byteLength"),
            ("byteLength", serde_json::json!(1_000_000), "are not in buffers[0]"),
            ("buffer", serde_json::json!(1), "own buffer"),
            ("buffer", serde_json::json!(9), "are not in buffers[9]"),
        ] {
            let mut doc = json.clone();
            if let Some(v) = doc.pointer_mut(&format!("{ext}/{field}")) {
                *v = value;
            }
            let err = load_bytes(&glb(&doc, &bin), "khr.glb", None)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                err.contains("bufferViews[3].extensions.KHR_meshopt_compression") && err.contains(says),
                "{field}: {err}"
            );
        }
        // A required extension's fallback buffer whose declared size is absurd is refused
        // before anything is allocated.
        let mut doc = json.clone();
        doc["buffers"][1]["byteLength"] = serde_json::json!(1u64 << 40);
        let err =
            load_bytes(&glb(&doc, &bin), "khr.glb", None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("buffers[1].byteLength: claims 1099511627776 bytes of decoded data"), "{err}");
    }
}
