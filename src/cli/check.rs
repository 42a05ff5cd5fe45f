//! `rigscope check FILE [--json] [--max N] [--ignore CODE,...] [--deny-warnings]`.

use super::args::CheckArgs;
use super::output::{self, Failure};
use crate::diagnose::{Options, check, render_text, to_json};

pub fn run(args: &CheckArgs) -> Result<u8, Failure> {
    let rig = super::load_rig(&args.file)?;
    // Codes are upper case; `--ignore rig_joint_unused` means the same.
    let ignore: Vec<String> = args.ignore.iter().map(|c| c.trim().to_ascii_uppercase()).collect();
    // A misspelt code would otherwise ignore nothing without a word.
    for code in ignore.iter().filter(|c| !crate::diagnose::codes::is_known(c)) {
        eprintln!("rigscope: note: --ignore {code}: rigscope reports no such code");
    }
    let options = Options { ignore, ..Options::default() };
    let report = check(&rig, &options);
    output::with_stdout(|out| {
        if args.json {
            output::write_json(&to_json(&report), out)
        } else {
            writeln!(out, "{}", rig.source)?;
            out.write_all(render_text(&report, args.max as usize).as_bytes())
        }
    })?;
    let failed = report.error_count() > 0 || (args.deny_warnings && report.warning_count() > 0);
    Ok(if failed { 1 } else { 0 })
}
