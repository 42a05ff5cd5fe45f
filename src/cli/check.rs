//! `rigscope check FILE|DIR... [--format text|json|sarif|junit|github] [--max N]
//! [--ignore CODE,...] [--deny-warnings]`.
//!
//! One file named in text or JSON keeps the single-file output (and exits 2 when it cannot be
//! loaded); anything else is a batch: folders searched for .gltf/.glb/.vrm/.vrma, files checked in
//! parallel, a file that cannot be loaded counted as one error for that file.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::args::{CheckArgs, CheckFormat, Listed};
use super::output::{self, Failure};
use crate::diagnose::batch::{FileCheck, Summary};
use crate::diagnose::{Options, check, render_text, to_json};
use crate::report::checks;

pub fn run(args: &CheckArgs) -> Result<u8, Failure> {
    if let Some(code) = &args.explain {
        return explain(code);
    }
    let format = match (args.json, args.format) {
        (true, Some(f)) if f != CheckFormat::Json => {
            return Err(Failure::input("--json and --format cannot both be given (--json is --format json)"));
        }
        (true, _) => CheckFormat::Json,
        (false, f) => f.unwrap_or(CheckFormat::Text),
    };
    // Codes are upper case; `--ignore rig_joint_unused` means the same.
    let ignore: Vec<String> = args.ignore.iter().map(|c| c.trim().to_ascii_uppercase()).collect();
    // A misspelt code would otherwise ignore nothing without a word.
    for code in ignore.iter().filter(|c| !crate::diagnose::codes::is_known(c)) {
        eprintln!("rigscope: note: --ignore {code}: rigscope reports no such code{}", did_you_mean(code));
    }
    let options = Options { ignore, ..Options::default() };
    // Text is read by a person; the other formats by tools, which get more of each code.
    let listed = args.max.unwrap_or(match format {
        CheckFormat::Text => Listed::AtMost(10),
        _ => Listed::AtMost(1000),
    });
    match args.files.as_slice() {
        [file] if !file.is_dir() && matches!(format, CheckFormat::Text | CheckFormat::Json) => {
            run_one(file, format == CheckFormat::Json, args, &options, listed)
        }
        paths => run_many(paths, format, args, &options, listed),
    }
}

/// `check --explain CODE`: the explanation, or exit 2 with the nearest known code;
/// `check --explain` alone lists the codes.
fn explain(code: &str) -> Result<u8, Failure> {
    let id = code.trim().to_ascii_uppercase();
    if id.is_empty() {
        return output::with_stdout(|out| out.write_all(code_list().as_bytes())).map(|()| 0);
    }
    let Some(e) = crate::diagnose::explain::explain(&id) else {
        return Err(Failure::input(format!(
            "rigscope reports no code '{code}'{} (`rigscope check --explain` lists the codes)",
            did_you_mean(&id)
        )));
    };
    output::with_stdout(|out| out.write_all(crate::diagnose::explain::render(e).as_bytes()))?;
    Ok(0)
}

/// Every code rigscope can report, one a line with its severity, in name order.
fn code_list() -> String {
    use crate::diagnose::codes;
    let mut rows: Vec<(&str, &str)> = codes::ALL.iter().map(|c| (c.id, c.severity.name())).collect();
    rows.extend(codes::LOAD_CODES.iter().map(|&c| (c, "loader")));
    rows.sort_unstable();
    let width = rows.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    let mut text = format!("{} codes (`rigscope check --explain CODE` explains one):\n", rows.len());
    for (code, severity) in rows {
        text.push_str(&format!("  {code:<width$}  {severity}\n"));
    }
    text.push_str("  (\"loader\": found while loading; its severity depends on the case)\n");
    text
}

/// "; did you mean CODE?" for the known code nearest `id` (upper case), if one is near.
fn did_you_mean(id: &str) -> String {
    let known = crate::diagnose::codes::ALL
        .iter()
        .map(|c| c.id)
        .chain(crate::diagnose::codes::LOAD_CODES.iter().copied());
    match known.map(|k| (super::edit_distance(k, id), k)).min() {
        Some((d, k)) if d <= id.len() / 3 + 2 => format!("; did you mean {k}?"),
        _ => String::new(),
    }
}

fn run_one(
    file: &Path,
    json: bool,
    args: &CheckArgs,
    options: &Options,
    listed: Listed,
) -> Result<u8, Failure> {
    let rig = super::load_rig(file)?;
    let report = check(&rig, options).listed(listed.cap());
    if json {
        output::with_stdout(|out| output::write_json(&to_json(&report), out))?;
    } else {
        output::with_text_stdout(|out| {
            writeln!(out, "{}", rig.source)?;
            out.write_all(render_text(&report, listed.cap().unwrap_or(usize::MAX)).as_bytes())
        })?;
    }
    let failed = report.error_count() > 0 || (args.deny_warnings && report.warning_count() > 0);
    Ok(if failed { 1 } else { 0 })
}

fn run_many(
    paths: &[PathBuf],
    format: CheckFormat,
    args: &CheckArgs,
    options: &Options,
    listed: Listed,
) -> Result<u8, Failure> {
    let found = find_rigs(paths)?;
    let files: Vec<FileCheck> = found
        .par_iter()
        .map(|entry| match entry {
            Found::Rig(path) => check_file(path, options, listed),
            Found::Unlistable(path, message) => {
                FileCheck::unreadable(path.clone(), message.clone(), &options.ignore)
            }
        })
        .collect();
    let summary = Summary::new(&files, args.deny_warnings);
    let write = |out: &mut dyn std::io::Write| match format {
        CheckFormat::Text => checks::write_text(&files, &summary, listed.cap().unwrap_or(usize::MAX), out),
        CheckFormat::Json => output::write_json(&checks::to_json(&files, &summary, args.deny_warnings), out),
        CheckFormat::Sarif => checks::write_sarif(&files, &summary, out),
        CheckFormat::Junit => checks::write_junit(&files, &summary, args.deny_warnings, out),
        CheckFormat::Github => checks::write_github(&files, &summary, out),
    };
    // Text and GitHub's log lines are read on a terminal or in a log that obeys ANSI escapes.
    match format {
        CheckFormat::Text | CheckFormat::Github => output::with_text_stdout(write)?,
        _ => output::with_stdout(write)?,
    }
    Ok(if summary.fails() { 1 } else { 0 })
}

/// Loads and checks one file. A panic (a bug, never expected) becomes that file's error
/// rather than the end of a run over a thousand files.
fn check_file(path: &Path, options: &Options, listed: Listed) -> FileCheck {
    let shown = path.display().to_string();
    let run = std::panic::catch_unwind(|| match crate::import::load(path) {
        Ok(rig) => FileCheck::checked(shown.clone(), check(&rig, options).listed(listed.cap())),
        Err(e) => FileCheck::unreadable(shown.clone(), e.message, &options.ignore),
    });
    run.unwrap_or_else(|_| {
        FileCheck::unreadable(
            shown.clone(),
            "rigscope failed while checking this file (a bug: please report it)".into(),
            &options.ignore,
        )
    })
}

/// What the arguments name: rig files, and folder entries that could not be read.
enum Found {
    Rig(PathBuf),
    Unlistable(String, String),
}

/// Files as given (whatever their extension), folders searched recursively for `.gltf`,
/// `.glb` and the binary glTF files VRM names `.vrm` (avatars) and `.vrma` (animations), in
/// name order. A path that does not exist, or folders holding no rig at all, are a
/// usage error: nothing is checked.
fn find_rigs(paths: &[PathBuf]) -> Result<Vec<Found>, Failure> {
    let mut found = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(Failure::input(format!("{}: no such file or folder", path.display())));
        }
        if !path.is_dir() {
            found.push(Found::Rig(path.clone()));
            continue;
        }
        let before = found.len();
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            match entry {
                // Links are not followed into folders (no cycles), but a link to a file counts.
                Ok(e) if is_rig_name(e.path()) && (e.file_type().is_file() || e.path().is_file()) => {
                    found.push(Found::Rig(e.into_path()))
                }
                // A rig's name on something that is not a file to read: said, not skipped.
                Ok(e) if is_rig_name(e.path()) && !e.file_type().is_dir() && !e.path().is_dir() => {
                    let why = not_a_file(e.path(), e.path_is_symlink());
                    found.push(Found::Unlistable(
                        e.path().display().to_string(),
                        format!("not checked: {why}"),
                    ));
                }
                Ok(_) => {}
                Err(e) => {
                    let at = e.path().unwrap_or(path).display().to_string();
                    let why = e.io_error().map_or_else(|| e.to_string(), |io| io.to_string());
                    found.push(Found::Unlistable(at, format!("cannot read the folder: {why}")));
                }
            }
        }
        if found.len() == before {
            eprintln!(
                "rigscope: note: {}: no .gltf, .glb, .vrm or .vrma files in this folder",
                path.display()
            );
        }
    }
    // Nothing to check is a mistake (a mistyped folder in a CI job), not a pass.
    if found.is_empty() {
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Failure::input(format!(
            "{}: no .gltf, .glb, .vrm or .vrma files to check",
            given.join(", ")
        )));
    }
    Ok(found)
}

/// Why a folder entry with a rig's name is no file to check: a link to nothing, a loop of
/// links, or a FIFO, socket or device.
fn not_a_file(path: &Path, link: bool) -> String {
    if !link {
        return crate::import::NOT_REGULAR.to_string();
    }
    if leads_back(path) {
        return "a symbolic link that leads back to itself (a loop)".to_string();
    }
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            "a symbolic link whose target does not exist".to_string()
        }
        Err(e) => format!("a symbolic link that cannot be followed: {e}"),
        Ok(_) => "a symbolic link to something that is not a regular file".to_string(),
    }
}

/// Whether following `path`'s chain of links comes back to a link already passed.
fn leads_back(path: &Path) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut at = path.to_path_buf();
    while let Ok(target) = std::fs::read_link(&at) {
        let next = match at.parent() {
            Some(dir) if target.is_relative() => dir.join(&target),
            _ => target,
        };
        if !seen.insert(at) || seen.len() > 64 {
            return true;
        }
        at = next;
    }
    false
}

/// Extensions of the files a folder is searched for.
const RIG_EXTENSIONS: [&str; 4] = ["gltf", "glb", "vrm", "vrma"];

fn is_rig_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| RIG_EXTENSIONS.iter().any(|r| e.eq_ignore_ascii_case(r)))
}
