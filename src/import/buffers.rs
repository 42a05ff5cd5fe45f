//! Where each glTF buffer's bytes come from: a base64 data URI, the .glb BIN chunk, or a
//! relative file inside the asset's own folder. Nothing else: no absolute paths, no `..`,
//! no remote URIs, no file that resolves (through a symlink) outside that folder. Each
//! buffer is cut to its `byteLength`, so later range checks can trust `data.len()`.
//!
//! The BIN chunk is borrowed from the file's bytes, never copied; only decoded data URIs and
//! external files are owned.

use super::Fault;
use base64::Engine as _;
use gltf::json;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

const DATA_URI_TYPES: &[&str] =
    &["data:application/octet-stream;base64,", "data:application/gltf-buffer;base64,"];

/// `fallback(i)` says buffer `i` is a compression extension's fallback, which may come
/// without data (an empty slice here; `meshopt` fills it in).
pub(crate) fn resolve<'a>(
    root: &json::Root,
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    fallback: impl Fn(usize) -> bool,
) -> Result<Vec<Cow<'a, [u8]>>, Fault> {
    let mut out = Vec::with_capacity(root.buffers.len());
    for (i, buffer) in root.buffers.iter().enumerate() {
        let expected = usize::try_from(buffer.byte_length.0)
            .map_err(|_| Fault::new(format!("buffers[{i}].byteLength"), "value too large"))?;
        let data: Cow<'a, [u8]> = match buffer.uri.as_deref() {
            None if fallback(i) && (i != 0 || bin.is_none()) => {
                out.push(Cow::Borrowed(&[][..]));
                continue;
            }
            None if i == 0 => Cow::Borrowed(bin.ok_or_else(|| {
                Fault::new(format!("buffers[{i}]"), "has no uri and the file has no .glb BIN chunk")
            })?),
            None => {
                return Err(Fault::new(
                    format!("buffers[{i}]"),
                    "has no uri (only buffers[0] of a .glb may use the BIN chunk)",
                ));
            }
            Some(uri) if uri.starts_with("data:") => Cow::Owned(
                decode_data_uri(uri).map_err(|what| Fault::new(format!("buffers[{i}].uri"), what))?,
            ),
            Some(uri) => match read_external(uri, base_dir, expected) {
                Ok(data) => Cow::Owned(data),
                // A compressed file's fallback is optional reading: decoding replaces it.
                Err(_) if fallback(i) => {
                    out.push(Cow::Borrowed(&[][..]));
                    continue;
                }
                Err(what) => return Err(Fault::new(format!("buffers[{i}].uri"), what)),
            },
        };
        if data.len() < expected {
            return Err(Fault::new(
                format!("buffers[{i}]"),
                format!("has {} bytes but its byteLength is {expected}", data.len()),
            ));
        }
        out.push(match data {
            Cow::Borrowed(b) => Cow::Borrowed(b.get(..expected).unwrap_or(b)),
            Cow::Owned(mut v) => {
                v.truncate(expected);
                Cow::Owned(v)
            }
        });
    }
    Ok(out)
}

pub(crate) fn decode_data_uri(uri: &str) -> Result<Vec<u8>, String> {
    let Some(payload) = DATA_URI_TYPES.iter().find_map(|p| uri.strip_prefix(p)) else {
        let head: String = uri.chars().take(48).collect();
        return Err(format!(
            "data URI '{head}...' is not a base64 application/octet-stream or application/gltf-buffer"
        ));
    };
    base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT
        .decode(payload.trim_end())
        .map_err(|e| format!("bad base64 in data URI: {e}"))
}

/// Reads at most `limit` bytes of the file `uri` names, after checking that it stays inside
/// `base_dir`. Reading no more than `byteLength` keeps a huge stray file from being loaded.
fn read_external(uri: &str, base_dir: Option<&Path>, limit: usize) -> Result<Vec<u8>, String> {
    let Some(base) = base_dir else {
        return Err(format!(
            "refers to the external file '{uri}', which cannot be read when loading from memory"
        ));
    };
    let path = contained_path(uri, base)?;
    super::file::read_regular(&path, limit as u64)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))
}

/// The canonical path of `uri` inside `base`, or why it is refused.
pub(crate) fn contained_path(uri: &str, base: &Path) -> Result<PathBuf, String> {
    if has_scheme(uri) {
        return Err(format!(
            "'{uri}' is a remote or non-file URI; only relative paths inside the asset's folder are allowed"
        ));
    }
    let decoded = percent_decode(uri)?;
    if decoded.starts_with('/') || decoded.starts_with('\\') {
        return Err(format!(
            "absolute path '{decoded}' is not allowed; only relative paths inside the asset's folder are"
        ));
    }
    if decoded.split(['/', '\\']).any(|part| part == "..") {
        return Err(format!("path '{decoded}' uses '..' to leave the asset's folder, which is not allowed"));
    }
    let joined = base.join(&decoded);
    if !joined.exists() {
        return Err(format!("the file '{decoded}' does not exist (looked for {})", joined.display()));
    }
    let canonical_base = base
        .canonicalize()
        .map_err(|e| format!("cannot resolve the asset's folder {}: {e}", base.display()))?;
    let canonical = joined.canonicalize().map_err(|e| format!("cannot resolve '{decoded}': {e}"))?;
    if !canonical.starts_with(&canonical_base) {
        return Err(format!("'{decoded}' resolves to {}, outside the asset's folder", canonical.display()));
    }
    Ok(canonical)
}

/// RFC 3986 scheme: a letter, then letters, digits, `+`, `-` or `.`, then `:`. Also catches
/// Windows drive paths (`C:\...`), which are absolute and refused all the same.
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

pub(crate) fn percent_decode(uri: &str) -> Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent-encoding in '{uri}'"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{uri}' does not decode to UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed when the guard drops (pass or fail), and its path.
    fn temp_folder(tag: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("rigscope-buffers-{tag}-"))
            .tempdir()
            .expect("temp folder");
        let path = dir.path().to_path_buf();
        (dir, path)
    }

    #[test]
    fn data_uris_of_both_buffer_types_decode() {
        // "AQID" is base64 for the bytes 1, 2, 3.
        assert_eq!(decode_data_uri("data:application/octet-stream;base64,AQID"), Ok(vec![1, 2, 3]));
        assert_eq!(decode_data_uri("data:application/gltf-buffer;base64,AQID"), Ok(vec![1, 2, 3]));
        assert!(decode_data_uri("data:text/plain;base64,AQID").is_err());
        assert!(decode_data_uri("data:application/octet-stream;base64,@@@").is_err());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("my%20file.bin"), Ok("my file.bin".to_string()));
        assert!(percent_decode("bad%2").is_err());
        assert!(percent_decode("bad%zz").is_err());
    }

    #[test]
    fn escaping_and_remote_paths_are_refused() {
        let (_dir_guard, dir) = temp_folder("escape");
        let refused = |uri: &str| contained_path(uri, &dir).err().unwrap_or_default();
        assert!(refused("../x.bin").contains("'..'"));
        assert!(refused("sub/../../x.bin").contains("'..'"));
        // Percent-encoding must not smuggle a `..` past the check.
        assert!(refused("%2e%2e/x.bin").contains("'..'"));
        assert!(refused("/etc/passwd").contains("absolute path"));
        assert!(refused("http://example.com/x.bin").contains("remote"));
        assert!(refused("file:///etc/passwd").contains("remote"));
        assert!(refused("missing.bin").contains("does not exist"));
    }

    #[test]
    fn a_file_inside_the_folder_is_found() {
        let (_dir_guard, dir) = temp_folder("inside");
        std::fs::create_dir_all(dir.join("sub")).ok();
        std::fs::write(dir.join("sub").join("a b.bin"), [7u8; 4]).ok();
        let found = contained_path("sub/a%20b.bin", &dir);
        assert!(found.is_ok_and(|p| p.ends_with("sub/a b.bin")));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_folder_is_refused() {
        let (_dir_guard, dir) = temp_folder("symlink");
        let (_outside_guard, outside) = temp_folder("symlink-target");
        std::fs::write(outside.join("secret.bin"), [1u8; 4]).ok();
        std::os::unix::fs::symlink(outside.join("secret.bin"), dir.join("link.bin")).ok();
        let err = contained_path("link.bin", &dir).err().unwrap_or_default();
        assert!(err.contains("outside the asset's folder"), "{err}");
    }
}
