//! Building megg for a release target: `cargo build --release` with a C compiler for the C in
//! libgit2-sys and libz-sys when the target is not the machine's own C target (musl, another
//! architecture), and a linker when it is another architecture. Windows: MSVC on Windows with
//! a static C runtime, and the mingw-w64 build on Linux.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::target::{Os, Target};

/// What the machine offers for C: asked once, so the choice below is a pure function.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    /// Variables already set (`CC_<target>`, `CARGO_TARGET_<T>_LINKER`) are the user's choice.
    pub set: Vec<String>,
    /// `musl-gcc` (Debian's musl-tools) is on PATH.
    pub musl_gcc: bool,
    /// `python3 -m ziglang` (PyPI's ziglang) runs.
    pub zig: bool,
    /// `x86_64-w64-mingw32-gcc` (Debian's mingw-w64) is on PATH.
    pub mingw: bool,
}

impl Machine {
    pub fn probe(target: Target) -> Machine {
        let names = [
            cc_var(target),
            cc_var(target).replace('-', "_"),
            cargo_var(target, "LINKER"),
            cargo_var(target, "RUSTFLAGS"),
        ];
        let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
        Machine {
            set: names
                .into_iter()
                .filter(|name| std::env::var_os(name).is_some())
                .collect(),
            musl_gcc: on_path("musl-gcc"),
            mingw: on_path(MINGW_GCC),
            zig: Command::new(python)
                .args(["-m", "ziglang", "version"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success()),
        }
    }

    fn has(&self, name: &str) -> bool {
        self.set
            .iter()
            .any(|set| set == name || *set == name.replace('-', "_"))
    }
}

/// Debian's mingw-w64 C compiler, which cc-rs and rustc use for `x86_64-pc-windows-gnu`.
const MINGW_GCC: &str = "x86_64-w64-mingw32-gcc";

/// SPEC §15.1: megg.exe needs no Visual C++ redistributable.
const CRT_STATIC: &str = "-C target-feature=+crt-static";

/// cc-rs's per-target compiler variable.
fn cc_var(target: Target) -> String {
    format!("CC_{target}")
}

/// cargo's per-target setting `key` (`LINKER`, `RUSTFLAGS`) as an environment variable.
fn cargo_var(target: Target, key: &str) -> String {
    let target = target.triple().to_uppercase().replace('-', "_");
    format!("CARGO_TARGET_{target}_{key}")
}

/// The environment `cargo build --target target` needs on a `host` machine: `zig_cc` is the
/// repository's `.ci/zig-cc`.
pub fn toolchain_env(
    target: Target,
    host: Target,
    machine: &Machine,
    zig_cc: &Path,
) -> Result<Vec<(String, String)>> {
    let linker_set = machine.has(&cargo_var(target, "LINKER"));
    if target.os() == Os::Windows {
        return windows_env(target, host, machine);
    }
    match (target.os(), host.os()) {
        // A Mac's clang builds for both Mac architectures.
        (Os::Darwin, Os::Darwin) => return Ok(Vec::new()),
        // zig compiles for macOS, but linking megg needs Apple's SDK (libgit2 links its
        // frameworks).
        (Os::Darwin, _) if !linker_set => bail!(
            "building {target} needs a Mac (Apple's SDK links it; the release workflow builds \
             it on a macOS runner), or a linker for it in {}",
            cargo_var(target, "LINKER")
        ),
        _ => {}
    }
    let same_arch = target.arch() == host.arch() && target.os() == host.os();
    let zig = zig_cc.display().to_string();
    let no_zig = || {
        anyhow::anyhow!(
            "no C compiler for {target}: install zig (`pip install ziglang`){} or set {}",
            if target.os() == Os::Linux && same_arch {
                " or musl-gcc (musl-tools)"
            } else {
                ""
            },
            cc_var(target)
        )
    };
    let mut env = Vec::new();
    if !machine.has(&cc_var(target)) {
        let cc = if target.os() == Os::Linux && same_arch && machine.musl_gcc {
            "musl-gcc".to_owned()
        } else if machine.zig {
            zig.clone()
        } else {
            return Err(no_zig());
        };
        env.push((cc_var(target), cc));
    }
    if !same_arch && !linker_set {
        if !machine.zig {
            return Err(no_zig());
        }
        env.push((cargo_var(target, "LINKER"), zig));
        // rustc runs the linker without cargo's TARGET; zig-cc reads this instead.
        env.push(("MEGG_ZIG_TARGET".to_owned(), target.triple().to_owned()));
        // zig links its own musl C runtime (crt1.o, libc): rustc's self-contained copies
        // would define `_start` twice.
        env.push((
            cargo_var(target, "RUSTFLAGS"),
            "-C link-self-contained=no".to_owned(),
        ));
    }
    Ok(env)
}

/// `toolchain_env` for a Windows target: MSVC's own tools on Windows, told to link the C
/// runtime statically; mingw-w64's elsewhere, which cc-rs and rustc find by name.
fn windows_env(target: Target, host: Target, machine: &Machine) -> Result<Vec<(String, String)>> {
    let rustflags = cargo_var(target, "RUSTFLAGS");
    if target.is_released() {
        if host.os() != Os::Windows {
            bail!(
                "building {target} needs Windows (MSVC's linker and Windows' SDK; the release \
                 workflow builds it on windows-latest and windows-11-arm); on Linux, \
                 x86_64-pc-windows-gnu builds megg.exe with mingw-w64 for the tests"
            );
        }
        if machine.has(&rustflags) {
            return Ok(Vec::new());
        }
        return Ok(vec![(rustflags, CRT_STATIC.to_owned())]);
    }
    if host.os() != Os::Windows && !machine.mingw && !machine.has(&cc_var(target)) {
        bail!(
            "no C compiler for {target}: install mingw-w64 (apt-get install mingw-w64: \
             {MINGW_GCC}) or set {}",
            cc_var(target)
        );
    }
    Ok(Vec::new())
}

/// Builds the release binary for `target` and returns its path.
pub fn build(root: &Path, target: Target, env: &[(String, String)]) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    eprintln!(
        "building megg for {target}{}",
        if shown.is_empty() {
            String::new()
        } else {
            format!(" ({})", shown.join(" "))
        }
    );
    let output = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--locked",
            "--package",
            "megg",
            "--bin",
            "megg",
        ])
        .args([
            "--target",
            target.triple(),
            "--message-format=json-render-diagnostics",
        ])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo build")?;
    if !output.status.success() {
        bail!("cargo build for {target} failed");
    }
    executable(&String::from_utf8_lossy(&output.stdout))
        .with_context(|| format!("cargo build for {target} reported no megg executable"))
}

/// The `megg` executable among cargo's JSON messages.
fn executable(messages: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "megg")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZIG: &str = "/repo/.ci/zig-cc";

    fn env(target: Target, host: Target, machine: Machine) -> Result<Vec<(String, String)>> {
        toolchain_env(target, host, &machine, Path::new(ZIG))
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn native_musl_prefers_musl_gcc_then_zig() {
        let both = Machine {
            musl_gcc: true,
            zig: true,
            ..Machine::default()
        };
        let x86 = Target::X86_64LinuxMusl;
        assert_eq!(
            env(x86, x86, both).unwrap(),
            pairs(&[("CC_x86_64-unknown-linux-musl", "musl-gcc")])
        );
        let zig = Machine {
            zig: true,
            ..Machine::default()
        };
        assert_eq!(
            env(x86, x86, zig).unwrap(),
            pairs(&[("CC_x86_64-unknown-linux-musl", ZIG)])
        );
        let err = env(x86, x86, Machine::default()).unwrap_err().to_string();
        assert!(
            err.contains("pip install ziglang") && err.contains("musl-gcc"),
            "{err}"
        );
    }

    #[test]
    fn cross_musl_links_with_zig_and_names_the_target_for_it() {
        let machine = Machine {
            musl_gcc: true,
            zig: true,
            ..Machine::default()
        };
        assert_eq!(
            env(Target::Aarch64LinuxMusl, Target::X86_64LinuxMusl, machine).unwrap(),
            pairs(&[
                ("CC_aarch64-unknown-linux-musl", ZIG),
                ("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER", ZIG),
                ("MEGG_ZIG_TARGET", "aarch64-unknown-linux-musl"),
                (
                    "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_RUSTFLAGS",
                    "-C link-self-contained=no"
                ),
            ])
        );
        let no_zig = Machine {
            musl_gcc: true,
            ..Machine::default()
        };
        assert!(env(Target::Aarch64LinuxMusl, Target::X86_64LinuxMusl, no_zig).is_err());
    }

    #[test]
    fn a_compiler_or_linker_already_set_is_kept() {
        let machine = Machine {
            set: vec![
                "CC_aarch64_unknown_linux_musl".into(),
                "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER".into(),
            ],
            ..Machine::default()
        };
        let host = Target::X86_64LinuxMusl;
        assert_eq!(env(Target::Aarch64LinuxMusl, host, machine).unwrap(), []);
    }

    #[test]
    fn a_mac_builds_both_mac_targets_with_its_own_clang() {
        let host = Target::Aarch64Darwin;
        assert_eq!(
            env(Target::X86_64Darwin, host, Machine::default()).unwrap(),
            []
        );
        assert_eq!(
            env(Target::Aarch64Darwin, host, Machine::default()).unwrap(),
            []
        );
    }

    #[test]
    fn a_mac_target_elsewhere_needs_a_linker_named_for_it() {
        let zig = Machine {
            zig: true,
            ..Machine::default()
        };
        let err = env(Target::Aarch64Darwin, Target::X86_64LinuxMusl, zig).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("building aarch64-apple-darwin needs a Mac")
        );
        let linker = Machine {
            set: vec!["CARGO_TARGET_AARCH64_APPLE_DARWIN_LINKER".into()],
            zig: true,
            ..Machine::default()
        };
        assert_eq!(
            env(Target::Aarch64Darwin, Target::X86_64LinuxMusl, linker).unwrap(),
            pairs(&[("CC_aarch64-apple-darwin", ZIG)])
        );
    }

    #[test]
    fn the_executable_is_found_among_cargos_messages() {
        let messages = r#"{"reason":"compiler-artifact","target":{"name":"git2"},"executable":null}
{"reason":"compiler-artifact","target":{"name":"megg","kind":["lib"]},"executable":null}
{"reason":"compiler-artifact","target":{"name":"megg","kind":["bin"]},"executable":"/t/release/megg"}
{"reason":"build-finished","success":true}"#;
        assert_eq!(executable(messages), Some(PathBuf::from("/t/release/megg")));
    }

    fn windows(triple: &str) -> Target {
        triple.parse().unwrap()
    }

    #[test]
    fn msvc_builds_on_windows_with_a_static_c_runtime() {
        let host = windows("x86_64-pc-windows-msvc");
        for target in ["x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc"] {
            let target = windows(target);
            let var = format!(
                "CARGO_TARGET_{}_RUSTFLAGS",
                target.triple().to_uppercase().replace('-', "_")
            );
            assert_eq!(
                env(target, host, Machine::default()).unwrap(),
                pairs(&[(var.as_str(), "-C target-feature=+crt-static")])
            );
            // Flags the user set are theirs (the binary check still refuses a dynamic CRT).
            let set = Machine {
                set: vec![var.clone()],
                ..Machine::default()
            };
            assert_eq!(env(target, host, set).unwrap(), []);
        }
    }

    #[test]
    fn msvc_elsewhere_is_refused_with_where_it_builds() {
        let err = env(
            windows("aarch64-pc-windows-msvc"),
            Target::X86_64LinuxMusl,
            Machine {
                zig: true,
                mingw: true,
                ..Machine::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("building aarch64-pc-windows-msvc needs Windows"),
            "{err}"
        );
    }

    #[test]
    fn the_mingw_build_needs_mingw_w64_on_linux() {
        let gnu = windows("x86_64-pc-windows-gnu");
        let mingw = Machine {
            mingw: true,
            ..Machine::default()
        };
        // cc-rs and rustc find x86_64-w64-mingw32-gcc by themselves.
        assert_eq!(
            env(gnu, Target::X86_64LinuxMusl, mingw.clone()).unwrap(),
            []
        );
        assert_eq!(env(gnu, Target::Aarch64LinuxMusl, mingw).unwrap(), []);
        let err = env(gnu, Target::X86_64LinuxMusl, Machine::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("mingw-w64"), "{err}");
    }
}
