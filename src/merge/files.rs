//! The merge from files to a file, shared by `rigscope merge` and the viewer's merge key.
//!
//! Order of work: refuse an output that exists (without `force`) or whose extension names no
//! format, read every input once (as a rig to bind and as data to copy from), refuse an
//! output that is any file an input reads (the input itself, its buffers, its images), plan,
//! build the file in memory, load a .glb back to be sure it reads, and only then write, each
//! file atomically (a .gltf's .bin first), so a failure leaves nothing half-written.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Library, LibraryMerge, Options, plan};
use crate::export::{self, Format};
use crate::import::{self, RawAsset};
use crate::output_file;
use crate::rig::Rig;

/// One merge: the files and what to do.
#[derive(Debug, Clone)]
pub struct Request {
    pub character: PathBuf,
    pub libraries: Vec<PathBuf>,
    /// `.glb`, or `.gltf` (then with a `.bin` of the same stem beside it).
    pub output: PathBuf,
    /// Replace an existing output.
    pub force: bool,
    pub options: Options,
    /// Other files the merge reads (the `--map` file): never written over either.
    pub other_inputs: Vec<PathBuf>,
}

/// The `format_version` of `merge --json`'s document.
pub const FORMAT_VERSION: u32 = 1;

/// What was merged and written.
#[derive(Debug, Clone, Serialize)]
pub struct MergeReport {
    pub format_version: u32,
    pub character: String,
    /// The files written: the output, and a .gltf's .bin.
    pub written: Vec<String>,
    pub libraries: Vec<LibraryMerge>,
    /// Clips in the merged file that came from the libraries.
    pub clips_written: usize,
    /// Library tracks not in the merged file (each listed in its clip's `dropped`).
    pub tracks_dropped: usize,
    /// Bytes of the character: its file, external buffers and images.
    pub character_bytes: u64,
    /// Bytes written: the output and its .bin.
    pub output_bytes: u64,
    /// Whether the clips were taken in place (`--in-place`, on a character with hips).
    pub in_place: bool,
    /// About the merge as a whole, and how the character's storage changed (compression
    /// written decoded, images embedded).
    pub notes: Vec<String>,
}

impl MergeReport {
    /// Whether the merge left something out that the user asked for: a dropped track, a
    /// clip not written, a library without clips (exit 1).
    pub fn has_problems(&self) -> bool {
        self.tracks_dropped > 0
            || self.libraries.iter().any(|l| l.clips.iter().any(|c| !c.written) || !l.warnings.is_empty())
    }
}

/// Reads, merges and writes `request`; the error says what is wrong and names the file.
pub fn run(request: &Request) -> Result<MergeReport, String> {
    let output = &request.output;
    let shown = output.display();
    let format = Format::from_path(output)
        .ok_or_else(|| format!("{shown}: the output must end in .glb or .gltf (it sets the format)"))?;
    let bin = (format == Format::Gltf).then(|| output.with_extension("bin"));
    let outputs: Vec<&Path> = std::iter::once(output.as_path()).chain(bin.as_deref()).collect();
    // Before reading: the inputs and their buffers (their images are known once read).
    let mut named: Vec<output_file::ReadFile> =
        request.other_inputs.iter().map(|p| (p.clone(), format!("the input file {}", p.display()))).collect();
    for path in std::iter::once(&request.character).chain(&request.libraries) {
        named.extend(import::files_read(path, &[]));
    }
    for out in &outputs {
        output_file::check_output(out, &named, request.force, "merge")?;
    }

    let (mut character, character_raw) = read(&request.character)?;
    let mut libraries = Vec::with_capacity(request.libraries.len());
    for (path, label) in request.libraries.iter().zip(crate::attach::file_labels(&request.libraries)) {
        let (rig, raw) = read(path)?;
        let stem = path.file_stem().map_or_else(|| label.clone(), |s| s.to_string_lossy().into_owned());
        libraries.push((path, Library { label, stem, rig, raw }));
    }
    let character_reads = import::files_read(&request.character, &character_raw.external_images);
    let character_bytes =
        character_reads.iter().filter_map(|(p, _)| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    let mut read_paths = character_reads;
    for (path, library) in &libraries {
        read_paths.extend(import::files_read(path, &library.raw.external_images));
    }
    read_paths.extend(named);
    for out in &outputs {
        output_file::check_output(out, &read_paths, request.force, "merge")?;
    }

    let libraries: Vec<Library> = libraries.into_iter().map(|(_, l)| l).collect();
    let planned = plan(&mut character, &libraries, &request.options).map_err(|e| e.to_string())?;
    if planned.clips.is_empty() {
        return Err(nothing_to_write(&planned.libraries));
    }

    let raws: Vec<&RawAsset> = libraries.iter().map(|l| &l.raw).collect();
    let bin_uri = bin.as_deref().map(bin_uri);
    let written = export::write_with_clips(&character_raw, &raws, &planned.clips, format, bin_uri.as_deref())
        .map_err(|e| format!("{}: cannot write the merged file: {e}", character.source))?;
    if format == Format::Glb {
        import::load_bytes(&written.bytes, &shown.to_string(), None)
            .map_err(|e| format!("the merged file does not load back: {e}"))?;
    }
    let mut files: Vec<(&Path, &[u8])> = Vec::new();
    if let (Some(path), Some(bytes)) = (bin.as_deref(), written.bin.as_deref()) {
        files.push((path, bytes));
    }
    files.push((output, &written.bytes));
    output_file::write_all_atomically(&files).map_err(|e| format!("{shown}: cannot write: {e}"))?;

    let mut notes = planned.notes.clone();
    if export::uses_meshopt(&character_raw.json) {
        notes.push(
            "the character's meshopt-compressed buffer views are written uncompressed: re-run your compressor on the output"
                .to_string(),
        );
    }
    if written.images_embedded > 0 {
        notes.push(format!("{} external image(s) of the character are embedded", written.images_embedded));
    }
    for left in &written.images_left {
        notes.push(format!("image {} is still named '{}': {}", left.index, left.uri, left.why));
    }
    let dropped = planned.libraries.iter().flat_map(|l| &l.clips).map(|c| c.dropped.len()).sum();
    Ok(MergeReport {
        format_version: FORMAT_VERSION,
        character: request.character.display().to_string(),
        written: files.iter().map(|(p, _)| p.display().to_string()).collect(),
        clips_written: planned.clips.len(),
        tracks_dropped: dropped,
        libraries: planned.libraries,
        character_bytes,
        output_bytes: files.iter().map(|(_, b)| b.len() as u64).sum(),
        in_place: planned.in_place,
        notes,
    })
}

/// One read of a file for both of its views: the rig to bind, and the data to copy from.
fn read(path: &Path) -> Result<(Rig, RawAsset), String> {
    let (bytes, name, base) = import::read_file(path).map_err(|e| e.to_string())?;
    let rig = import::load_bytes(&bytes, &name, Some(base)).map_err(|e| e.to_string())?;
    let raw = import::load_raw_bytes_keeping_draco(&bytes, &name, Some(base)).map_err(|e| e.to_string())?;
    Ok((rig, raw))
}

/// The .bin's URI as the .gltf names it: its file name, percent-encoded where a URI must be.
fn bin_uri(bin: &Path) -> String {
    const KEEP: &percent_encoding::AsciiSet =
        &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
    let name = bin.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    percent_encoding::utf8_percent_encode(&name, KEEP).to_string()
}

/// Why no clip is written, per library.
fn nothing_to_write(libraries: &[LibraryMerge]) -> String {
    let mut why = Vec::new();
    for l in libraries {
        if l.clips.is_empty() && l.not_chosen.is_empty() {
            why.push(crate::attach::no_clips(&l.file));
        } else if l.clips.is_empty() {
            why.push(format!("--clip chose none of {}'s clips", l.file));
        } else {
            why.push(format!("no track of {}'s clips binds to the character", l.file));
        }
    }
    let hint = if libraries.iter().any(|l| !l.clips.is_empty()) {
        " (`rigscope fit CHARACTER LIB` says why; --bind loose or --map may bind them)"
    } else {
        ""
    };
    format!("nothing to write: {}{hint}", why.join("; "))
}
