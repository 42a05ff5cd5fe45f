//! `rigscope diff A B [--tol T] [--json]`: exit 0 equal, 1 different, 2 bad input.

use super::args::DiffArgs;
use super::output::{self, Failure};
use crate::diff::{diff, render_text};

pub fn run(args: &DiffArgs) -> Result<u8, Failure> {
    if !(args.tol.is_finite() && args.tol >= 0.0) {
        return Err(Failure::input(format!("--tol must be a finite number of 0 or more, not {}", args.tol)));
    }
    let rigs = super::load_rigs_with(&[&args.a, &args.b], &args.anim)?;
    let d = diff(&rigs[0], &rigs[1], args.tol);
    if args.json {
        output::with_stdout(|out| output::write_json(&d, out))?;
    } else {
        output::with_text_stdout(|out| out.write_all(render_text(&d).as_bytes()))?;
    }
    Ok(if d.equal { 0 } else { 1 })
}
