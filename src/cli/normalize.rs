//! `rigscope normalize FILE -o OUT`: write a copy of FILE whose skin weights pass the
//! validator's rules, and print what changed.
//!
//! Order of work: check the paths (never a file FILE reads: itself, its buffers, its images;
//! never an existing OUT without `--force`), load, repair, build the new file in memory, load
//! that again to measure it (findings before/after, vertex movement), and only then write OUT
//! atomically (a temporary file in OUT's folder renamed over OUT), so a failure leaves nothing
//! half-written.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::Path;

use super::args::NormalizeArgs;
use super::output::{self, Failure};
use crate::diagnose::{self, Report};
use crate::export::{self, Format};
use crate::output_file::parent_folder;
use crate::repair::{self, Movement, Repair, SkipReason};
use crate::report::count;
use crate::rig::Rig;

/// Times sampled over the first clip when measuring movement.
const CLIP_SAMPLES: usize = 31;

pub fn run(args: &NormalizeArgs) -> Result<u8, Failure> {
    let out_name = args.output.display().to_string();
    let format = Format::from_path(&args.output).ok_or_else(|| {
        Failure::input(format!("{out_name}: the output must end in .glb or .gltf (it sets the format)"))
    })?;
    let options =
        repair::Options { max_influences: args.max_influences.map(usize::from), prune_below: args.prune };
    options.validate().map_err(|e| Failure::input(e.to_string()))?;
    check_output(&args.file, &[], &args.output, args.force)?;

    // One read of the file for both of its views (the rig to repair, the raw document to
    // rewrite): they cannot disagree if the file changes in between, and it is mapped once.
    let input = |e: crate::import::ImportError| Failure::input(e.to_string());
    let (bytes, name, base_dir) = crate::import::read_file(&args.file).map_err(input)?;
    let before = crate::import::load_bytes(&bytes, &name, Some(base_dir)).map_err(input)?;
    refuse_undeclared_geometry(&before)?;
    let raw = crate::import::load_raw_bytes(&bytes, &name, Some(base_dir)).map_err(input)?;
    check_output(&args.file, &raw.external_images, &args.output, args.force)?;
    let fixed = repair::repair(&before, &options);
    let written = export::write(&raw, &fixed, format)
        .map_err(|e| Failure::input(format!("{}: cannot write a repaired copy: {e}", before.source)))?;
    let after = crate::import::load_bytes(&written.bytes, &out_name, None)
        .map_err(|e| Failure::input(format!("the repaired copy does not load back: {e}")))?;

    let summary = Summary {
        input: &args.file,
        output: &args.output,
        repair: &fixed,
        rig: &before,
        rest: repair::rest_movement(&before, &after),
        clip: repair::clip_movement(&before, &after, 0, CLIP_SAMPLES),
        findings_before: diagnose::check(&before, &diagnose::Options::default()),
        findings_after: diagnose::check(&after, &diagnose::Options::default()),
        draco_primitives: raw.draco_primitives.len(),
        meshopt: export::uses_meshopt(&raw.json),
        pruned: written.pruned,
        images_embedded: written.images_embedded,
        images_left: written.images_left,
        other_folder: !same_folder(&args.file, &args.output),
        max_influences: options.max_influences,
    };
    write_atomically(&args.output, &written.bytes)?;
    output::with_stdout(|out| summary.write(out))?;
    Ok(0)
}

/// A primitive carrying an extension `extensionsUsed` does not declare (a Draco stream, say)
/// is read, by every command as by the validator, from its accessors' plain data: often
/// zeros. Weights "repaired" from those would destroy what the extension holds, so the file
/// is refused, naming the primitive and the extension.
fn refuse_undeclared_geometry(rig: &Rig) -> Result<(), Failure> {
    let Some(f) =
        rig.findings.iter().find(|f| f.code == "UNDECLARED_EXTENSION" && f.pointer.starts_with("/meshes/"))
    else {
        return Ok(());
    };
    let (at, name) = f.pointer.rsplit_once("/extensions/").unwrap_or((&f.pointer, ""));
    Err(Failure::input(format!(
        "{}: {at} carries extension {name}, which extensionsUsed does not declare; rigscope ignores it \
         (as the glTF validator does) and reads the primitive's plain accessors instead, so normalize \
         will not rewrite weights it may have misread. Declare the extension in extensionsUsed, or \
         remove it, and run normalize again",
        rig.source
    )))
}

/// Refuses an OUT that is any file reading FILE reads (FILE itself, its external buffers,
/// the external `images` once they are known), whatever the path or `--force`, and an
/// existing OUT without `force`.
pub(super) fn check_output(
    input: &Path,
    images: &[crate::import::ExternalImage],
    output: &Path,
    force: bool,
) -> Result<(), Failure> {
    let reads = crate::import::files_read(input, images);
    crate::output_file::check_output(output, &reads, force, "normalize").map_err(Failure::input)
}

/// Writes a temporary file next to `output`, then renames it over `output`.
pub(super) fn write_atomically(output: &Path, bytes: &[u8]) -> Result<(), Failure> {
    crate::output_file::write_atomically(output, bytes)
        .map_err(|e| Failure::input(format!("{}: cannot write: {e}", output.display())))
}

/// Whether FILE and OUT are in the same folder (relative URIs resolve alike).
fn same_folder(input: &Path, output: &Path) -> bool {
    parent_folder(input).canonicalize().ok() == parent_folder(output).canonicalize().ok()
}

struct Summary<'a> {
    input: &'a Path,
    output: &'a Path,
    repair: &'a Repair,
    rig: &'a Rig,
    rest: Movement,
    clip: Option<Movement>,
    findings_before: Report,
    findings_after: Report,
    /// Draco-compressed primitives, written decoded.
    draco_primitives: usize,
    /// Meshopt-compressed buffer views, written uncompressed.
    meshopt: bool,
    pruned: Option<export::Pruned>,
    images_embedded: usize,
    images_left: Vec<export::ImageLeft>,
    other_folder: bool,
    /// `--max-influences`, as given.
    max_influences: Option<usize>,
}

impl Summary<'_> {
    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let r = self.repair;
        writeln!(out, "normalize: {} -> {}", self.input.display(), self.output.display())?;
        writeln!(
            out,
            "  skinned primitives   {} checked, {} rewritten, {} skipped",
            r.primitives.len(),
            r.changed().count(),
            r.skipped.len()
        )?;
        writeln!(out, "  vertices touched     {} of {}", r.touched(), r.vertices())?;
        writeln!(out, "  given to root joint  {}{}", r.rooted(), self.root_names())?;
        writeln!(out, "  max weight change    {}", fmt(r.max_weight_change()))?;
        writeln!(out, "  max movement, rest pose  {}", movement(&self.rest))?;
        match (&self.clip, self.rig.clips.first()) {
            (Some(m), Some(clip)) => writeln!(
                out,
                "  max movement, clip '{}' ({} times over {} s)  {}",
                self.rig.clip_label(0),
                if clip.duration > 0.0 { CLIP_SAMPLES } else { 1 },
                fmt(f64::from(clip.duration)),
                movement(m)
            )?,
            _ => writeln!(out, "  max movement, clip   (the file has no clips)")?,
        }
        writeln!(out, "  findings{:>46}{:>7}", "before", "after")?;
        let codes: BTreeSet<&str> =
            self.findings_before.counts.keys().chain(self.findings_after.counts.keys()).copied().collect();
        if codes.is_empty() {
            writeln!(out, "    (none)")?;
        }
        for code in codes {
            let count = |r: &Report| r.counts.get(code).copied().unwrap_or(0);
            writeln!(
                out,
                "    {code:<46}{:>6}{:>7}",
                count(&self.findings_before),
                count(&self.findings_after)
            )?;
        }
        for s in &r.skipped {
            let why = match s.reason {
                SkipReason::NoSkin => "no node draws its mesh with a skin",
                SkipReason::TooManyJoints => "its skin has more joints than JOINTS_n can name",
            };
            writeln!(out, "  note: mesh {} primitive {} left as is: {why}", s.mesh, s.primitive)?;
        }
        if r.unresolved() > 0 {
            writeln!(
                out,
                "  warning: {} vertices still break the weight rules after repair",
                r.unresolved()
            )?;
        }
        let pruned = self.pruned.is_some_and(|p| p.accessors + p.buffer_views + p.bytes > 0);
        let decoded = self.draco_primitives > 0 || self.meshopt;
        let layout_only = !decoded && self.images_embedded == 0 && !pruned;
        if r.touched() == 0 && layout_only {
            writeln!(
                out,
                "  note: no weight needed a change; OUT differs from FILE only in its buffer layout"
            )?;
        } else if r.touched() == 0 {
            writeln!(out, "  note: no weight needed a change")?;
        }
        if self.draco_primitives > 0 {
            writeln!(
                out,
                "  note: {} written decoded, so OUT is uncompressed: re-run your compressor on it",
                count(
                    self.draco_primitives,
                    "Draco-compressed primitive is",
                    "Draco-compressed primitives are"
                )
            )?;
        }
        if self.meshopt {
            writeln!(
                out,
                "  note: meshopt-compressed buffer views are written uncompressed, so OUT is larger: re-run your compressor on it"
            )?;
        }
        match self.pruned {
            Some(p) if pruned => writeln!(
                out,
                "  note: removed what nothing refers to any more: {}, {}, {}",
                count(p.accessors, "accessor", "accessors"),
                count(p.buffer_views, "buffer view", "buffer views"),
                count(p.bytes, "byte", "bytes")
            )?,
            Some(_) => {}
            None => {
                writeln!(
                    out,
                    "  note: the file uses an extension rigscope does not follow, so unused accessors and buffer views are kept"
                )?;
                // The validator reads every float accessor, used or not.
                let kept = r.changed().flat_map(|p| &p.sets).filter(|s| s.old_non_finite).count();
                if kept > 0 {
                    writeln!(
                        out,
                        "  note: {} with NaN or infinite values {} kept unused, so the glTF validator still reports ACCESSOR_INVALID_FLOAT for {}",
                        count(kept, "old weights accessor", "old weights accessors"),
                        if kept == 1 { "is" } else { "are" },
                        if kept == 1 { "it" } else { "them" }
                    )?;
                }
            }
        }
        if self.images_embedded > 0 {
            writeln!(
                out,
                "  note: {} embedded in OUT, which needs no other file",
                count(self.images_embedded, "external image", "external images")
            )?;
        }
        for left in &self.images_left {
            let where_ = if self.other_folder { ", which does not resolve from OUT's folder" } else { "" };
            writeln!(
                out,
                "  warning: image {} is still named '{}'{where_}: {}",
                left.index, left.uri, left.why
            )?;
        }
        for line in super::normalize_left::closing(&self.findings_after, self.max_influences) {
            writeln!(out, "  {line}")?;
        }
        Ok(())
    }

    /// ` (mesh 0 primitive 1: joint 0 'hips')` for every primitive with rooted vertices.
    fn root_names(&self) -> String {
        let parts: Vec<String> = self
            .repair
            .primitives
            .iter()
            .filter(|p| p.rooted > 0)
            .map(|p| {
                let node = self.rig.skins.get(p.skin).and_then(|s| s.joints.get(p.root_joint)).copied();
                let label = node.map(|n| self.rig.node_label(n)).unwrap_or_default();
                format!("mesh {} primitive {}: joint {} '{label}'", p.mesh, p.primitive, p.root_joint)
            })
            .collect();
        if parts.is_empty() { String::new() } else { format!(" ({})", parts.join("; ")) }
    }
}

fn fmt(x: f64) -> String {
    format!("{x:.6}")
}

fn movement(m: &Movement) -> String {
    let mut text = fmt(f64::from(m.max));
    if let Some(at) = m.at {
        text.push_str(&format!(" at mesh {} primitive {} vertex {}", at.mesh, at.primitive, at.vertex));
        if let Some(t) = m.time {
            text.push_str(&format!(", t = {} s", fmt(f64::from(t))));
        }
    }
    if m.non_finite > 0 {
        text.push_str(&format!(" ({} positions not finite, not compared)", m.non_finite));
    }
    text
}
