//! Command line: clap definitions and one handler per subcommand.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
