//! The release targets: a closed set (SPEC §15, §15.1), and what each one is called by rustc,
//! npm, Homebrew and the object formats its binary must have. One more target is known but never
//! released: `x86_64-pc-windows-gnu`, the mingw-w64 build this Linux machine makes of megg.exe
//! for the tests under wine.

use std::fmt;
use std::str::FromStr;

use anyhow::{Result, bail};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    X86_64LinuxMusl,
    Aarch64LinuxMusl,
    X86_64Darwin,
    Aarch64Darwin,
    X86_64WindowsMsvc,
    Aarch64WindowsMsvc,
    /// megg.exe built on Linux with mingw-w64, for the tests under wine; never released.
    X86_64WindowsGnu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Darwin,
    Windows,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
}

impl Target {
    /// Every target `dist` builds and packages.
    pub const ALL: [Target; 7] = [
        Target::X86_64LinuxMusl,
        Target::Aarch64LinuxMusl,
        Target::X86_64Darwin,
        Target::Aarch64Darwin,
        Target::X86_64WindowsMsvc,
        Target::Aarch64WindowsMsvc,
        Target::X86_64WindowsGnu,
    ];

    /// What a release ships: one target per platform, the MSVC builds on Windows.
    pub const RELEASE: [Target; 6] = [
        Target::X86_64LinuxMusl,
        Target::Aarch64LinuxMusl,
        Target::X86_64Darwin,
        Target::Aarch64Darwin,
        Target::X86_64WindowsMsvc,
        Target::Aarch64WindowsMsvc,
    ];

    pub fn triple(self) -> &'static str {
        match self {
            Target::X86_64LinuxMusl => "x86_64-unknown-linux-musl",
            Target::Aarch64LinuxMusl => "aarch64-unknown-linux-musl",
            Target::X86_64Darwin => "x86_64-apple-darwin",
            Target::Aarch64Darwin => "aarch64-apple-darwin",
            Target::X86_64WindowsMsvc => "x86_64-pc-windows-msvc",
            Target::Aarch64WindowsMsvc => "aarch64-pc-windows-msvc",
            Target::X86_64WindowsGnu => "x86_64-pc-windows-gnu",
        }
    }

    pub fn os(self) -> Os {
        match self {
            Target::X86_64LinuxMusl | Target::Aarch64LinuxMusl => Os::Linux,
            Target::X86_64Darwin | Target::Aarch64Darwin => Os::Darwin,
            Target::X86_64WindowsMsvc | Target::Aarch64WindowsMsvc | Target::X86_64WindowsGnu => {
                Os::Windows
            }
        }
    }

    pub fn arch(self) -> Arch {
        match self {
            Target::X86_64LinuxMusl
            | Target::X86_64Darwin
            | Target::X86_64WindowsMsvc
            | Target::X86_64WindowsGnu => Arch::X86_64,
            Target::Aarch64LinuxMusl | Target::Aarch64Darwin | Target::Aarch64WindowsMsvc => {
                Arch::Aarch64
            }
        }
    }

    /// Whether a release ships this target (the mingw build is for the tests only).
    pub fn is_released(self) -> bool {
        Target::RELEASE.contains(&self)
    }

    /// The binary's file name: `megg.exe` on Windows.
    pub fn exe(self) -> &'static str {
        match self.os() {
            Os::Windows => "megg.exe",
            Os::Linux | Os::Darwin => "megg",
        }
    }

    fn of(os: Os, arch: Arch) -> Target {
        match (os, arch) {
            (Os::Linux, Arch::X86_64) => Target::X86_64LinuxMusl,
            (Os::Linux, Arch::Aarch64) => Target::Aarch64LinuxMusl,
            (Os::Darwin, Arch::X86_64) => Target::X86_64Darwin,
            (Os::Darwin, Arch::Aarch64) => Target::Aarch64Darwin,
            (Os::Windows, Arch::X86_64) => Target::X86_64WindowsMsvc,
            (Os::Windows, Arch::Aarch64) => Target::Aarch64WindowsMsvc,
        }
    }

    /// The release target of a machine named as Rust's `std::env::consts` name it.
    pub fn for_machine(os: &str, arch: &str) -> Result<Target> {
        let os_ = match os {
            "linux" => Some(Os::Linux),
            "macos" => Some(Os::Darwin),
            "windows" => Some(Os::Windows),
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
                names(&Target::RELEASE)
            ),
        }
    }

    /// This machine's release target: Linux builds the static musl binary, Windows the MSVC
    /// one.
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
            Os::Windows => "win32",
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

fn names(targets: &[Target]) -> String {
    let names: Vec<&str> = targets.iter().map(|t| t.triple()).collect();
    names.join(", ")
}

impl FromStr for Target {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Target> {
        match Target::ALL.into_iter().find(|t| t.triple() == s) {
            Some(target) => Ok(target),
            None => bail!(
                "unsupported target '{s}': megg releases {} (and builds {} for its tests \
                 under wine)",
                names(&Target::RELEASE),
                Target::X86_64WindowsGnu
            ),
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
             aarch64-unknown-linux-musl, x86_64-apple-darwin, aarch64-apple-darwin, \
             x86_64-pc-windows-msvc, aarch64-pc-windows-msvc (and builds x86_64-pc-windows-gnu \
             for its tests under wine)"
        );
    }

    #[test]
    fn windows_targets_are_known_and_a_windows_machine_releases_msvc() {
        for triple in [
            "x86_64-pc-windows-msvc",
            "aarch64-pc-windows-msvc",
            "x86_64-pc-windows-gnu",
        ] {
            let target: Target = triple.parse().unwrap();
            assert_eq!(target.to_string(), triple);
            assert_eq!(target.os().npm(), "win32");
            assert_eq!(target.exe(), "megg.exe");
            assert_eq!(target.is_released(), !triple.ends_with("-gnu"), "{triple}");
        }
        assert_eq!(
            Target::for_machine("windows", "x86_64").unwrap().triple(),
            "x86_64-pc-windows-msvc"
        );
        assert_eq!(
            Target::for_machine("windows", "aarch64").unwrap().triple(),
            "aarch64-pc-windows-msvc"
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
        assert!(Target::for_machine("freebsd", "x86_64").is_err());
    }

    #[test]
    fn npm_platforms_are_nodes_names() {
        let names = Target::ALL.map(Target::npm_platform);
        assert_eq!(
            names,
            [
                "linux-x64",
                "linux-arm64",
                "darwin-x64",
                "darwin-arm64",
                "win32-x64",
                "win32-arm64",
                "win32-x64"
            ]
        );
    }
}
