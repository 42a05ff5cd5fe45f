//! `rigscope completions SHELL` and `rigscope man [COMMAND]`: documents generated from the
//! clap definitions, so that they can never disagree with what the parser accepts.

use clap::CommandFactory;

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
    let page = match args.command.as_deref() {
        None => clap_mangen::Man::new(cmd),
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
