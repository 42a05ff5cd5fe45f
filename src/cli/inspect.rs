//! `rigscope inspect FILE [--sizes] [--json]`.

use super::args::InspectArgs;
use super::output::{self, Failure};
use crate::report::inspect::{InspectDoc, SizeDetail, write_text};

pub fn run(args: &InspectArgs) -> Result<u8, Failure> {
    let rig = super::load_rig(&args.file)?;
    let detail = if args.sizes { SizeDetail::Every } else { SizeDetail::Glance };
    if args.json {
        output::with_stdout(|out| output::write_json(&InspectDoc::new(&rig), out))?;
    } else {
        output::with_text_stdout(|out| write_text(&rig, detail, out))?;
    }
    Ok(0)
}
