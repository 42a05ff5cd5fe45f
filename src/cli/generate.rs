//! `rigscope completions SHELL` and `rigscope man [COMMAND]`: documents generated from the
//! clap definitions and the viewer's key table, so that they can never disagree with what
//! the parser and the viewer accept.

use clap::CommandFactory;

use super::args::{Cli, CompletionsArgs, ManArgs};
use super::output::{self, Failure};

pub fn completions(args: &CompletionsArgs) -> Result<u8, Failure> {
    let mut cmd = Cli::command();
    output::with_stdout(|out| {
        if args.dynamic {
            return super::complete::registration(args.shell, out);
        }
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
    let page = match args.command.as_deref() {
        None => {
            let page = clap_mangen::Man::new(cmd);
            return output::with_stdout(|out| top_page(&page, out)).map(|()| 0);
        }
        Some(name) => {
            let Some(sub) = cmd.find_subcommand(name) else {
                let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
                return Err(Failure::input(format!(
                    "man: no command named '{name}'; commands: {}",
                    names.join(", ")
                )));
            };
            // `rigscope-pose(1)`, with usage lines that start `rigscope pose`.
            clap_mangen::Man::new(sub.clone().bin_name(format!("rigscope {name}")))
                .title(format!("rigscope-{name}"))
                .source(format!("rigscope {}", env!("CARGO_PKG_VERSION")))
        }
    };
    output::with_stdout(|out| page.render(out))?;
    Ok(0)
}

/// rigscope(1): clap_mangen's sections, then KEY BINDINGS (the viewer's key table, the same
/// one its help overlay and status hints are drawn from), EXIT STATUS and ENVIRONMENT.
fn top_page(page: &clap_mangen::Man, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    page.render_options_section(out)?;
    page.render_subcommands_section(out)?;
    extra_sections().to_writer(out)?;
    page.render_version_section(out)
}

/// What `rigscope` exits with, as the shell sees it.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success; also when stdout is a closed pipe (rigscope inspect x.glb | head)."),
    (
        "1",
        "The command ran and found problems: check found errors (or, with --deny-warnings, warnings); diff found differences.",
    ),
    (
        "2",
        "Bad input or usage: a file that does not load, a wrong option, no terminal for the viewer, TERM=dumb. The message names the file and what is wrong.",
    ),
    (
        "130, 143, 129",
        "The viewer was ended by Ctrl-C (SIGINT), SIGTERM or SIGHUP: 128 plus the signal number, as shells report it.",
    ),
];

/// The environment variables rigscope reads.
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "TERM",
        "dumb: the viewer refuses to start (use rigscope render for a frame as text). linux (the Linux console, no braille in its font, 16 colours): the viewer starts in ASCII mode with 16 colours; --mode and --color still choose.",
    ),
    (
        "COLORTERM",
        "truecolor or 24bit: the viewer and render use 24-bit colour; otherwise the 256-colour palette.",
    ),
    (
        "NO_COLOR",
        "Set and not empty: no colour from the viewer (--color auto) or render (--color auto); see no-color.org.",
    ),
    (
        "RIGSCOPE_SIMD",
        "scalar: the portable raster and skinning kernels, for every command and the viewer; any other value asks for the best the CPU has. Every choice gives the same bytes.",
    ),
    (
        "RIGSCOPE_ASSETS",
        "For the test suite only: the folder of third-party test rigs; tests that need them print a notice and pass without it.",
    ),
    (
        "COMPLETE",
        "Set to a shell name (bash, zsh, fish, elvish, powershell): print the completion script that asks rigscope at each completion, or answer one completion request; for example source <(COMPLETE=bash rigscope) in ~/.bashrc.",
    ),
];

fn extra_sections() -> roff::Roff {
    use crate::tui::action::Focus;
    use crate::tui::keymap::{BINDINGS, Context};
    use roff::{Roff, bold, roman};
    let mut r = Roff::new();
    r.control("SH", ["KEY BINDINGS"]);
    r.text([roman(
        "In the viewer (rigscope [FILE]); ? shows the same list. A focused panel's keys win over the keys that work everywhere.",
    )]);
    let modes = [
        ("While the help is open", Context::Help),
        ("While typing a bone filter", Context::Filter),
        ("While typing a prompt", Context::Prompt),
        ("In the clip picker", Context::Picker),
    ];
    let sections = std::iter::once(("Everywhere".to_string(), Context::Global))
        .chain(Focus::ALL.iter().map(|&f| (format!("When {} has focus", f.title()), Context::In(f))))
        .chain(modes.into_iter().map(|(heading, context)| (heading.to_string(), context)));
    for (heading, context) in sections {
        let mut bindings = BINDINGS.iter().filter(|b| b.context == context).peekable();
        if bindings.peek().is_none() {
            continue;
        }
        r.control("SS", [heading.as_str()]);
        for b in bindings {
            r.control("TP", []);
            r.text([bold(b.label)]);
            r.text([roman(b.help)]);
        }
    }
    r.control("SS", ["Mouse"]);
    r.text([roman(
        "Click a panel to focus it, a bone's row in the tree or the dope sheet to select that bone; click or drag the timeline to go to a frame; drag the viewport to orbit (Shift or the right button: pan); the wheel zooms. --no-mouse leaves the mouse to the terminal.",
    )]);
    for (title, rows) in [("EXIT STATUS", EXIT_STATUS), ("ENVIRONMENT", ENVIRONMENT)] {
        r.control("SH", [title]);
        for (name, text) in rows {
            r.control("TP", []);
            r.text([bold(*name)]);
            r.text([roman(*text)]);
        }
    }
    r.control("SH", ["SEE ALSO"]);
    r.text([roman(
        "rigscope help COMMAND, and the guides in the source distribution: README.md, docs/viewer.md (the viewer and its keys), docs/commands.md (every command and the JSON documents), docs/loops.md (live reload, diff, recordings), docs/ci.md (checking in CI), docs/engines.md (what each engine draws for your weights), docs/clips.md (clips from other files), docs/loading.md (what rigscope reads, and its limits), PERFORMANCE.md.",
    )]);
    r
}
