//! `local-stack`: see `local_stack --help` and the `local` crate.

use std::process::ExitCode;

use local_stack::cli::{self, Command};

#[tokio::main]
async fn main() -> ExitCode {
    let args = match cli::parse(std::env::args().skip(1)) {
        Ok(Command::Run(args)) => args,
        Ok(Command::Help) => {
            print!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("local-stack: {e}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    match cli::run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("local-stack: {e}");
            ExitCode::FAILURE
        }
    }
}
