//! asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header line, then
//! one `[time, "o", text]` line per frame. Each frame is the viewport's cells as the
//! terminal receives them, drawn from the top-left corner over the last.

use std::fmt::Write as _;

use serde::Serialize;

use super::{Take, seconds};
use crate::render::{ColorDepth, Grid, glyphs_for, pack, strip_color, write_ansi};

#[derive(Serialize)]
struct Header<'a> {
    version: u8,
    width: usize,
    height: usize,
    /// No `timestamp`: the same arguments must write the same bytes.
    title: &'a str,
    env: Env,
}

#[derive(Serialize)]
struct Env {
    #[serde(rename = "TERM")]
    term: &'static str,
}

/// Hide the cursor and clear the screen before the first frame.
const START: &str = "\x1b[?25l\x1b[2J";
/// Reset colours and show the cursor again, once the last frame has had its time.
const END: &str = "\x1b[0m\x1b[?25h";

/// The recording as an asciicast v2 file: a header, one event per frame, and a last event
/// at the end of the last frame's time (so the player shows it for as long as the others).
pub fn cast(take: &Take, title: &str, depth: ColorDepth) -> Vec<u8> {
    let header = Header {
        version: 2,
        width: take.cols,
        height: take.rows,
        title,
        env: Env { term: "xterm-256color" },
    };
    // Serialising plain structs, strings and numbers cannot fail.
    let mut out = serde_json::to_vec(&header).unwrap_or_default();
    out.push(b'\n');
    let mut grid = Grid::new(take.cols, take.rows);
    let mut text = String::new();
    let mut data = String::new();
    let _ = take.draw_frames(|i, raster| -> Result<(), std::convert::Infallible> {
        pack(raster, glyphs_for(take.mode, depth), &mut grid);
        if depth == ColorDepth::None {
            strip_color(&mut grid);
        }
        text.clear();
        write_ansi(&grid, depth, &mut text);
        data.clear();
        if i == 0 {
            data.push_str(START);
        }
        data.push_str("\x1b[H");
        // The rows as a terminal needs them: carriage return and line feed between rows,
        // and none after the last, which would scroll the screen up a line.
        data.push_str(&text.trim_end_matches('\n').replace('\n', "\r\n"));
        event(&mut out, seconds(i, take.fps), &data);
        Ok(())
    });
    event(&mut out, seconds(take.times.len(), take.fps), END);
    out
}

fn event(out: &mut Vec<u8>, time: f64, data: &str) {
    let mut line = String::new();
    // `{:.6}` rather than serde's shortest form: every timestamp written the same way.
    let _ = write!(line, "[{time:.6}, \"o\", {}]", serde_json::Value::from(data));
    out.extend_from_slice(line.as_bytes());
    out.push(b'\n');
}
