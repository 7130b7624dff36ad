use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(megg::main(std::env::args_os().collect()))
}
