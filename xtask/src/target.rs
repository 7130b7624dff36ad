//! The release targets: a closed set (SPEC §15), and what each one is called by rustc, npm,
//! Homebrew and the object formats its binary must have.

use std::fmt;
use std::str::FromStr;

use anyhow::{Result, bail};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    X86_64LinuxMusl,
    Aarch64LinuxMusl,
    X86_64Darwin,
    Aarch64Darwin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Darwin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
}

impl Target {
    pub const ALL: [Target; 4] = [
        Target::X86_64LinuxMusl,
        Target::Aarch64LinuxMusl,
        Target::X86_64Darwin,
        Target::Aarch64Darwin,
    ];

    pub fn triple(self) -> &'static str {
        match self {
            Target::X86_64LinuxMusl => "x86_64-unknown-linux-musl",
            Target::Aarch64LinuxMusl => "aarch64-unknown-linux-musl",
            Target::X86_64Darwin => "x86_64-apple-darwin",
            Target::Aarch64Darwin => "aarch64-apple-darwin",
        }
    }

    pub fn os(self) -> Os {
        match self {
            Target::X86_64LinuxMusl | Target::Aarch64LinuxMusl => Os::Linux,
            Target::X86_64Darwin | Target::Aarch64Darwin => Os::Darwin,
        }
    }

    pub fn arch(self) -> Arch {
        match self {
            Target::X86_64LinuxMusl | Target::X86_64Darwin => Arch::X86_64,
            Target::Aarch64LinuxMusl | Target::Aarch64Darwin => Arch::Aarch64,
        }
    }

    fn of(os: Os, arch: Arch) -> Target {
        match (os, arch) {
            (Os::Linux, Arch::X86_64) => Target::X86_64LinuxMusl,
            (Os::Linux, Arch::Aarch64) => Target::Aarch64LinuxMusl,
            (Os::Darwin, Arch::X86_64) => Target::X86_64Darwin,
            (Os::Darwin, Arch::Aarch64) => Target::Aarch64Darwin,
        }
    }

    /// The release target of a machine named as Rust's `std::env::consts` name it.
    pub fn for_machine(os: &str, arch: &str) -> Result<Target> {
        let os_ = match os {
            "linux" => Some(Os::Linux),
            "macos" => Some(Os::Darwin),
            _ => None,
        };
        let arch_ = match arch {
            "x86_64" => Some(Arch::X86_64),
            "aarch64" => Some(Arch::Aarch64),
            _ => None,
        };
        match (os_, arch_) {
            (Some(os), Some(arch)) => Ok(Target::of(os, arch)),
            _ => bail!(
                "megg has no release target for this machine ({os} {arch}); name one with --target ({})",
                supported()
            ),
        }
    }

    /// This machine's release target: Linux builds the static musl binary.
    pub fn host() -> Result<Target> {
        Target::for_machine(std::env::consts::OS, std::env::consts::ARCH)
    }

    /// npm's name of the platform (`process.platform`-`process.arch`): `linux-x64`.
    pub fn npm_platform(self) -> String {
        format!("{}-{}", self.os().npm(), self.arch().npm())
    }
}

impl Os {
    /// npm's `os` (Node's `process.platform`).
    pub fn npm(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Darwin => "darwin",
        }
    }
}

impl Arch {
    /// npm's `cpu` (Node's `process.arch`).
    pub fn npm(self) -> &'static str {
        match self {
            Arch::X86_64 => "x64",
            Arch::Aarch64 => "arm64",
        }
    }
}

fn supported() -> String {
    Target::ALL.map(Target::triple).join(", ")
}

impl FromStr for Target {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Target> {
        match Target::ALL.into_iter().find(|t| t.triple() == s) {
            Some(target) => Ok(target),
            None => bail!("unsupported target '{s}': megg releases {}", supported()),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.triple())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_triple_parses_back_to_its_target() {
        for target in Target::ALL {
            assert_eq!(target.triple().parse::<Target>().unwrap(), target);
        }
    }

    #[test]
    fn an_unsupported_target_is_refused_with_the_supported_ones_named() {
        let err = "x86_64-unknown-linux-gnu"
            .parse::<Target>()
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "unsupported target 'x86_64-unknown-linux-gnu': megg releases x86_64-unknown-linux-musl, \
             aarch64-unknown-linux-musl, x86_64-apple-darwin, aarch64-apple-darwin"
        );
    }

    #[test]
    fn a_linux_machine_releases_musl_and_a_mac_darwin() {
        assert_eq!(
            Target::for_machine("linux", "x86_64").unwrap(),
            Target::X86_64LinuxMusl
        );
        assert_eq!(
            Target::for_machine("linux", "aarch64").unwrap(),
            Target::Aarch64LinuxMusl
        );
        assert_eq!(
            Target::for_machine("macos", "x86_64").unwrap(),
            Target::X86_64Darwin
        );
        assert_eq!(
            Target::for_machine("macos", "aarch64").unwrap(),
            Target::Aarch64Darwin
        );
        assert!(Target::for_machine("windows", "x86_64").is_err());
    }

    #[test]
    fn npm_platforms_are_nodes_names() {
        let names = Target::ALL.map(Target::npm_platform);
        assert_eq!(
            names,
            ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]
        );
    }
}
