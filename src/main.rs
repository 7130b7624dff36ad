use std::process::ExitCode;

/// The static Linux release (musl) allocates through mimalloc: musl's own allocator made the
/// SessionStart hook 12–18 % slower than the glibc build (docs/benchmarks.md).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(megg::main(std::env::args_os().collect()))
}
