//! `rigscope completions SHELL` and `rigscope man [COMMAND]`: documents generated from the
//! clap definitions, so that they can never disagree with what the parser accepts.

use std::io::Write;

use clap::CommandFactory;
use roff::{Roff, bold, roman};

use super::args::{Cli, CompletionsArgs, ManArgs};
use super::output::{self, Failure};

pub fn completions(args: &CompletionsArgs) -> Result<u8, Failure> {
    let mut cmd = Cli::command();
    output::with_stdout(|out| {
        clap_complete::generate(args.shell, &mut cmd, "rigscope", out);
        Ok(())
    })?;
    Ok(0)
}

pub fn man(args: &ManArgs) -> Result<u8, Failure> {
    let mut cmd = Cli::command();
    // Building fills in what clap derives late (the `help` command, version flags), so the
    // page lists what the parser accepts.
    cmd.build();
    let Some(name) = args.command.as_deref() else {
        let page = clap_mangen::Man::new(cmd);
        output::with_stdout(|out| root_page(&page, out))?;
        return Ok(0);
    };
    let Some(sub) = cmd.find_subcommand(name) else {
        let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        return Err(Failure::input(format!(
            "man: no command named '{name}'; commands: {}",
            names.join(", ")
        )));
    };
    // `rigscope-pose(1)`, with usage lines that start `rigscope pose`.
    let page = clap_mangen::Man::new(sub.clone().bin_name(format!("rigscope {name}")))
        .title(format!("rigscope-{name}"))
        .source(format!("rigscope {}", env!("CARGO_PKG_VERSION")));
    output::with_stdout(|out| page.render(out))?;
    Ok(0)
}

/// rigscope(1): clap's sections, then what a manual page has and clap does not know (exit
/// status, environment, where the guides are), in the usual order of man-pages(7).
fn root_page(page: &clap_mangen::Man, out: &mut dyn Write) -> std::io::Result<()> {
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    page.render_options_section(out)?;
    page.render_subcommands_section(out)?;
    out.write_all(extra_sections().to_roff().as_bytes())?;
    page.render_version_section(out)
}

fn extra_sections() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (tag, text) in [
        ("0", "Success; also when output goes into a closed pipe (`| head`), which ends quietly."),
        (
            "1",
            "The command ran and found problems (check: errors, or warnings with \
             --deny-warnings) or differences (diff).",
        ),
        (
            "2",
            "Bad input or usage, with `rigscope: error: FILE: what is wrong` on stderr (a usage \
             error names the option, and the file too once one has been read).",
        ),
        (
            "128+N",
            "The viewer ended by signal N, as shells report it (143 for SIGTERM, 129 for \
             SIGHUP), with the terminal restored; Ctrl-C, which the viewer reads as a key, \
             exits 130 the same way (q exits 0).",
        ),
    ] {
        roff.control("TP", []).text([bold(tag)]).text([roman(text)]);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    for (tag, text) in [
        (
            "NO_COLOR",
            "When set and not empty, no colour: the viewer with --color auto (braille then \
             dithers to keep the shading) and render with --color auto.",
        ),
        (
            "COLORTERM",
            "truecolor or 24bit: the viewer uses 24-bit colour with --color auto; otherwise \
             the 256-colour palette.",
        ),
        (
            "RIGSCOPE_SIMD",
            "scalar forces the portable kernels for every command and the viewer; any other \
             value asks for the best the CPU has. Every path gives the same bytes.",
        ),
    ] {
        roff.control("TP", []).text([bold(tag)]).text([roman(text)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "rigscope help COMMAND, and the guides in the source distribution: README.md, \
         docs/viewer.md (the viewer and its keys), docs/commands.md (every command and the \
         JSON documents), docs/loops.md (live reload, diff, recordings), docs/ci.md (checking \
         in CI), docs/loading.md (what rigscope reads, and its limits), PERFORMANCE.md.",
    )]);
    roff
}
