//! The files a glTF file's buffers live in, for the viewer's live reload: a re-export that
//! rewrites only the `.bin` beside a `.gltf` changes the rig as much as one that rewrites the
//! `.gltf` itself. Only the JSON part is read; a file that cannot be read or parsed names no
//! files (the loader reports what is wrong with it).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{buffers, glb};

#[derive(serde::Deserialize)]
struct Buffers {
    #[serde(default)]
    buffers: Vec<Buffer>,
}

#[derive(serde::Deserialize)]
struct Buffer {
    uri: Option<String>,
}

/// The canonical paths of the external buffer files `path` refers to (none for data URIs,
/// the .glb BIN chunk, or a URI the loader would refuse), in `buffers` order.
pub fn external_files(path: &Path) -> Vec<PathBuf> {
    let Some(json) = json_text(path) else { return Vec::new() };
    let Ok(doc) = serde_json::from_slice::<Buffers>(&json) else { return Vec::new() };
    let base = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut out: Vec<PathBuf> = doc
        .buffers
        .iter()
        .filter_map(|b| b.uri.as_deref())
        .filter(|uri| !uri.starts_with("data:"))
        .filter_map(|uri| buffers::contained_path(uri, base).ok())
        .collect();
    out.dedup();
    out
}

/// Every file loading `path` reads: itself, its external buffers and the external images of
/// `images` (a `RawAsset`'s), each with the words a message names it by. An output that is
/// one of these would destroy what it was made from.
pub fn files_read(path: &Path, images: &[super::ExternalImage]) -> Vec<crate::output_file::ReadFile> {
    let shown = path.display();
    let base = crate::output_file::parent_folder(path);
    let mut out = vec![(path.to_path_buf(), format!("the input file {shown}"))];
    for buffer in external_files(path) {
        out.push((buffer, format!("{shown}'s buffer")));
    }
    for image in images {
        if let Ok(file) = buffers::contained_path(&image.uri, &base) {
            out.push((file, format!("{shown}'s image '{}'", image.uri)));
        }
    }
    out
}

/// The JSON text of a .gltf, or the JSON chunk of a .glb (its 12-byte header, then the
/// chunk's length and type, then the text).
fn json_text(path: &Path) -> Option<Vec<u8>> {
    let mut file = super::file::open_regular(path).ok()?;
    let mut head = [0u8; 20];
    let n = file.read(&mut head).ok()?;
    if n == 20 && head.starts_with(glb::MAGIC) {
        let len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as u64;
        let mut json = Vec::new();
        file.take(len).read_to_end(&mut json).ok()?;
        return Some(json);
    }
    drop(file);
    super::file::read_regular(path, u64::MAX).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed when the guard drops (pass or fail), and its path.
    fn folder(tag: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("rigscope-external-{tag}-"))
            .tempdir()
            .expect("temp folder");
        let path = dir.path().to_path_buf();
        (dir, path)
    }

    #[test]
    fn a_gltf_names_its_bin_files_but_not_data_uris_or_escapes() {
        let (_dir_guard, dir) = folder("gltf");
        std::fs::write(dir.join("a b.bin"), [0u8; 4]).unwrap();
        std::fs::write(
            dir.join("rig.gltf"),
            br#"{"asset":{"version":"2.0"},"buffers":[
            {"byteLength":4,"uri":"a%20b.bin"},
            {"byteLength":4,"uri":"data:application/octet-stream;base64,AAAAAA=="},
            {"byteLength":4,"uri":"../outside.bin"},
            {"byteLength":4,"uri":"missing.bin"}]}"#,
        )
        .unwrap();
        let found = external_files(&dir.join("rig.gltf"));
        assert_eq!(found, vec![dir.join("a b.bin").canonicalize().unwrap()]);
    }

    #[test]
    fn a_glb_with_its_own_bin_chunk_names_nothing_and_junk_names_nothing() {
        let (_dir_guard, dir) = folder("glb");
        std::fs::write(dir.join("walker.glb"), crate::cli::BUNDLED_SAMPLE).unwrap();
        assert!(external_files(&dir.join("walker.glb")).is_empty());
        std::fs::write(dir.join("junk.gltf"), b"{\"buffers\": [").unwrap();
        assert!(external_files(&dir.join("junk.gltf")).is_empty());
        assert!(external_files(&dir.join("absent.gltf")).is_empty());
    }
}
