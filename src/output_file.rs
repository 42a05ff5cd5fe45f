//! Writing a file the user named: never over a file an input is read from, and never half
//! written (the bytes go to a temporary file beside the output, which is then renamed over
//! it, so a reader sees the old file or the whole new one).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file an input reads, and the words a message names it by ("the input file a.gltf").
pub type ReadFile = (PathBuf, String);

/// Refuses `output` when it is any file in `reads` (by any path, with or without `force`),
/// a folder, in a folder that cannot be used, or an existing file without `force`. Every
/// command that writes a file the user named checks each output with this before writing;
/// `command` names it in the message.
pub fn check_output(output: &Path, reads: &[ReadFile], force: bool, command: &str) -> Result<(), String> {
    let shown = output.display();
    let folder = parent_folder(output);
    folder
        .canonicalize()
        .map_err(|e| format!("{shown}: the folder {} is not usable: {e}", folder.display()))?;
    if output.file_name().is_none() {
        return Err(format!("{shown}: not a file name"));
    }
    if let Some((_, what)) = reads.iter().find(|(read, _)| same_file(read, output)) {
        return Err(format!("{shown}: is {what}; {command} never writes over a file it reads"));
    }
    match std::fs::symlink_metadata(output) {
        Err(_) => Ok(()),
        Ok(meta) if meta.is_dir() => Err(format!("{shown}: is a folder")),
        Ok(_) if !force => Err(format!("{shown}: already exists (use --force to replace it)")),
        Ok(_) => Ok(()),
    }
}

/// Writes `bytes` to a temporary file next to `output`, then renames it over `output`.
pub fn write_atomically(output: &Path, bytes: &[u8]) -> io::Result<()> {
    write_all_atomically(&[(output, bytes)])
}

/// Writes several files, each atomically, in order: the ones a later file names come first
/// (a .bin before the .gltf that names it). All are written to temporary files before the
/// first rename, so a failure while writing leaves every output as it was.
pub fn write_all_atomically(files: &[(&Path, &[u8])]) -> io::Result<()> {
    let mut temps: Vec<PathBuf> = Vec::with_capacity(files.len());
    let written = (|| -> io::Result<()> {
        for (output, bytes) in files {
            let temp = temp_beside(output);
            temps.push(temp.clone());
            let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
        }
        for ((output, _), temp) in files.iter().zip(&temps) {
            std::fs::rename(temp, output)?;
        }
        Ok(())
    })();
    if written.is_err() {
        for temp in &temps {
            let _ = std::fs::remove_file(temp);
        }
    }
    written
}

fn temp_beside(output: &Path) -> PathBuf {
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    parent_folder(output).join(format!(".{name}.rigscope-{}.tmp", std::process::id()))
}

/// The folder a path is in (`.` for a bare file name).
pub fn parent_folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `a` and `b` are the same file on disk: the same canonical path, or (through a hard
/// link) the same file. False when either does not exist.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().ok();
    canonical(a).is_some_and(|x| Some(x) == canonical(b)) || same_inode(a, b)
}

#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}
