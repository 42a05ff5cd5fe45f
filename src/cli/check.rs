//! `rigscope check FILE|DIR... [--format text|json|sarif|junit|github] [--max N]
//! [--ignore CODE,...] [--deny-warnings]`.
//!
//! One file named in text or JSON keeps the single-file output (and exits 2 when it cannot be
//! loaded); anything else is a batch: folders searched for .gltf/.glb, files checked in
//! parallel, a file that cannot be loaded counted as one error for that file.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::args::{CheckArgs, CheckFormat};
use super::output::{self, Failure};
use crate::diagnose::batch::{FileCheck, Summary};
use crate::diagnose::{Options, check, render_text, to_json};
use crate::report::checks;

pub fn run(args: &CheckArgs) -> Result<u8, Failure> {
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
        eprintln!("rigscope: note: --ignore {code}: rigscope reports no such code");
    }
    let options = Options { ignore, ..Options::default() };
    match args.files.as_slice() {
        [file] if !file.is_dir() && matches!(format, CheckFormat::Text | CheckFormat::Json) => {
            run_one(file, format == CheckFormat::Json, args, &options)
        }
        paths => run_many(paths, format, args, &options),
    }
}

fn run_one(file: &Path, json: bool, args: &CheckArgs, options: &Options) -> Result<u8, Failure> {
    let rig = super::load_rig(file)?;
    let report = check(&rig, options);
    output::with_stdout(|out| {
        if json {
            output::write_json(&to_json(&report), out)
        } else {
            writeln!(out, "{}", rig.source)?;
            out.write_all(render_text(&report, args.max as usize).as_bytes())
        }
    })?;
    let failed = report.error_count() > 0 || (args.deny_warnings && report.warning_count() > 0);
    Ok(if failed { 1 } else { 0 })
}

fn run_many(
    paths: &[PathBuf],
    format: CheckFormat,
    args: &CheckArgs,
    options: &Options,
) -> Result<u8, Failure> {
    let found = find_rigs(paths)?;
    let files: Vec<FileCheck> = found
        .par_iter()
        .map(|entry| match entry {
            Found::Rig(path) => check_file(path, options),
            Found::Unlistable(path, message) => FileCheck::unreadable(path.clone(), message.clone()),
        })
        .collect();
    let summary = Summary::new(&files, args.deny_warnings);
    output::with_stdout(|out| match format {
        CheckFormat::Text => checks::write_text(&files, &summary, args.max as usize, out),
        CheckFormat::Json => output::write_json(&checks::to_json(&files, &summary, args.deny_warnings), out),
        CheckFormat::Sarif => checks::write_sarif(&files, &summary, out),
        CheckFormat::Junit => checks::write_junit(&files, &summary, args.deny_warnings, out),
        CheckFormat::Github => checks::write_github(&files, &summary, out),
    })?;
    Ok(if summary.fails() { 1 } else { 0 })
}

/// Loads and checks one file. A panic (a bug, never expected) becomes that file's error
/// rather than the end of a run over a thousand files.
fn check_file(path: &Path, options: &Options) -> FileCheck {
    let shown = path.display().to_string();
    let run = std::panic::catch_unwind(|| match crate::import::load(path) {
        Ok(rig) => FileCheck::checked(shown.clone(), check(&rig, options)),
        Err(e) => FileCheck::unreadable(shown.clone(), e.message),
    });
    run.unwrap_or_else(|_| {
        FileCheck::unreadable(
            shown.clone(),
            "rigscope failed while checking this file (a bug: please report it)".into(),
        )
    })
}

/// What the arguments name: rig files, and folder entries that could not be read.
enum Found {
    Rig(PathBuf),
    Unlistable(String, String),
}

/// Files as given (whatever their extension), folders searched recursively for `.gltf` and
/// `.glb` in name order. A path that does not exist, or folders holding no rig at all, are a
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
                Ok(_) => {}
                Err(e) => {
                    let at = e.path().unwrap_or(path).display().to_string();
                    let why = e.io_error().map_or_else(|| e.to_string(), |io| io.to_string());
                    found.push(Found::Unlistable(at, format!("cannot read the folder: {why}")));
                }
            }
        }
        if found.len() == before {
            eprintln!("rigscope: note: {}: no .gltf, .glb or .vrm files in this folder", path.display());
        }
    }
    // Nothing to check is a mistake (a mistyped folder in a CI job), not a pass.
    if found.is_empty() {
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Failure::input(format!("{}: no .gltf, .glb or .vrm files to check", given.join(", "))));
    }
    Ok(found)
}

fn is_rig_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        // VRM avatars (.vrm) are .glb files.
        .is_some_and(|e| ["gltf", "glb", "vrm"].iter().any(|x| e.eq_ignore_ascii_case(x)))
}
