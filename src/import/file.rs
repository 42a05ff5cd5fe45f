//! The asset file's bytes, mapped rather than read when the OS allows it.
//!
//! Reading a 20 MB .glb into a `Vec` costs a copy out of the page cache plus a page fault
//! and a zeroed page for every 4 KiB of the new buffer: about as long as the whole rest of
//! the load. A read-only mapping shares the page cache's pages, and the parts that are never
//! looked at (embedded images) are never touched. The mapping lives only while the rig is
//! built: everything the `Rig` keeps is decoded into its own buffers.

use std::fs::File;
use std::io::{self, Read as _};
use std::ops::Deref;
use std::path::Path;

/// A file's contents: mapped, or read into memory where mapping is not possible (pipes,
/// special files, empty files).
pub(crate) enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

impl FileBytes {
    pub(crate) fn open(path: &Path) -> io::Result<FileBytes> {
        let file = open_regular(path)?;
        let meta = file.metadata()?;
        if meta.len() > 0
            && let Some(map) = map(&file)
        {
            return Ok(FileBytes::Mapped(map));
        }
        read_all(file, meta.len()).map(FileBytes::Read)
    }
}

/// Why a path that is not a regular file is not read.
pub const NOT_REGULAR: &str =
    "not a regular file (a FIFO, socket or device); rigscope reads only regular files";

/// Opens `path` (following links) only if it is a regular file: opening a FIFO waits for a
/// writer that may never come, and a device such as /dev/zero never ends.
pub fn open_regular(path: &Path) -> io::Result<File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NOT_REGULAR));
    }
    let file = File::open(path)?;
    // The path may have been replaced between the two looks.
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NOT_REGULAR));
    }
    Ok(file)
}

/// At most `limit` bytes of the regular file `path`.
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    read_all(file, limit)
}

/// At most `limit` bytes of `file`, however much it grew since its size was read.
fn read_all(file: File, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `None` when the OS refuses the mapping (the caller then reads the file).
#[allow(unsafe_code)]
fn map(file: &File) -> Option<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. memmap2's one caveat is a
    // file changed or truncated by another process while mapped; the mapping lives only for
    // the load (milliseconds), as in other tools that map their inputs (ripgrep, for one).
    unsafe { memmap2::Mmap::map(file) }.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_and_read_files_give_the_same_bytes() {
        let guard = tempfile::Builder::new().prefix("rigscope-file-").tempdir().unwrap();
        let dir = guard.path();
        let full = dir.join("full.bin");
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&full, &data).unwrap();
        let empty = dir.join("empty.bin");
        std::fs::write(&empty, []).unwrap();

        let mapped = FileBytes::open(&full).unwrap();
        assert!(matches!(mapped, FileBytes::Mapped(_)));
        assert_eq!(&*mapped, &data[..]);
        let nothing = FileBytes::open(&empty).unwrap();
        assert!(matches!(nothing, FileBytes::Read(_)));
        assert!(nothing.is_empty());
        assert!(FileBytes::open(&dir.join("missing.bin")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_opened() {
        let guard = tempfile::Builder::new().prefix("rigscope-file-").tempdir().unwrap();
        let fifo = guard.path().join("pipe.glb");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        // Neither would return if opened: the FIFO has no writer, /dev/zero has no end.
        let mut refused = vec![Path::new("/dev/zero"), guard.path()];
        if made.is_ok_and(|s| s.success()) {
            refused.push(&fifo);
        }
        for path in refused {
            let e = FileBytes::open(path).err().unwrap_or_else(|| panic!("{} opened", path.display()));
            assert_eq!(e.to_string(), NOT_REGULAR, "{}", path.display());
            assert!(read_regular(path, 16).is_err());
        }
        let file = guard.path().join("ten.bin");
        std::fs::write(&file, [7u8; 10]).unwrap();
        assert_eq!(read_regular(&file, 4).unwrap(), [7u8; 4]);
    }
}
