//! Writing to stdout and the one error type the CLI layer returns.

use std::io::{self, BufWriter, Write};

/// A run that could not complete: the message (already `FILE: what is wrong`) and exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    /// Bad input or usage: exit 2.
    pub fn input(message: impl Into<String>) -> Self {
        Failure { code: 2, message: message.into() }
    }
}

/// Runs `write` against buffered stdout. A reader that went away (`| head`) is not an error.
pub fn with_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = write(&mut out).and_then(|()| out.flush());
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::input(format!("cannot write to stdout: {e}"))),
    }
}

/// `with_stdout` for text a person reads: control characters in it (from a file's node or
/// clip names) are printed as visible escapes (`report::printable`). JSON escapes its own.
pub fn with_text_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Failure> {
    with_stdout(|out| {
        let mut text = crate::report::Printable::new(out);
        write(&mut text)?;
        text.finish().map(|_| ())
    })
}

/// Writes `value` as pretty JSON followed by a newline.
pub fn write_json<T: serde::Serialize>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(crate::report::json_io_error)?;
    writeln!(out)
}

/// Writes `value` as one line of JSON: for large documents (poses of big meshes).
pub fn write_json_compact<T: serde::Serialize>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(crate::report::json_io_error)?;
    writeln!(out)
}
