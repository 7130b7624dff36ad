//! The npm packages, Codex's layout (SPEC §15, §15.1): `megg`, whose `bin` is a small Node
//! launcher, names one package per platform in `optionalDependencies`; npm installs the one
//! whose `os`/`cpu` match (`bin/megg`, or `bin/megg.exe` on Windows), and no package runs an
//! install script. Tarballs are npm's format: a gzip'd tar whose entries are under `package/`.

use anyhow::{Result, bail};
use serde_json::{Value, json};

use crate::archive::{self, Entry, Item};
use crate::project::Project;
use crate::target::{Os, Target};

/// The launcher's source: the template `dist` fills.
const LAUNCHER: &str = include_str!("../../npm/megg/bin/megg.js");

/// `megg-linux-x64`: the package holding `target`'s binary (the MSVC and mingw-w64 builds of
/// Windows x64 are both `megg-win32-x64`: only the first is released).
pub fn platform_package(target: Target) -> String {
    format!("megg-{}", target.npm_platform())
}

/// `megg-linux-x64-1.1.0.tgz`, as `npm pack` names it.
pub fn tarball_name(package: &str, version: &str) -> String {
    format!("{package}-{version}.tgz")
}

/// npm's normalized form of a git repository.
fn repository(project: &Project) -> Value {
    json!({"type": "git", "url": format!("git+{}.git", project.repository)})
}

pub fn platform_manifest(project: &Project, target: Target) -> Value {
    let libc = match target.os() {
        Os::Linux => " (static: any libc)",
        Os::Darwin => "",
        Os::Windows => " (megg.exe)",
    };
    json!({
        "name": platform_package(target),
        "version": project.version,
        "description": format!(
            "The megg binary for {}{libc}; install the `megg` package, which runs it",
            target.npm_platform()
        ),
        "license": project.license,
        "repository": repository(project),
        "homepage": project.homepage,
        "os": [target.os().npm()],
        "cpu": [target.arch().npm()],
        "files": [format!("bin/{}", target.exe())],
        // Yarn's Plug'n'Play keeps packages zipped; a binary has to be on disk to be run.
        "preferUnplugged": true,
    })
}

pub fn launcher_manifest(project: &Project) -> Value {
    let platforms: serde_json::Map<String, Value> = Target::RELEASE
        .into_iter()
        .map(|target| (platform_package(target), json!(project.version)))
        .collect();
    json!({
        "name": "megg",
        "version": project.version,
        "description": project.description,
        "license": project.license,
        "repository": repository(project),
        "homepage": project.homepage,
        "engines": {"node": ">=16"},
        "bin": {"megg": "bin/megg.js"},
        "files": ["bin/megg.js"],
        "optionalDependencies": platforms,
    })
}

/// The launcher with the project's install commands filled in.
pub fn launcher_script(project: &Project) -> Result<String> {
    let fills = [
        ("@INSTALL_SH_URL@", project.latest_url("install.sh")),
        ("@INSTALL_PS1_URL@", project.latest_url("install.ps1")),
        ("@BREW_FORMULA@", project.brew_formula()?),
    ];
    let mut script = LAUNCHER.to_owned();
    for (placeholder, value) in fills {
        // The values land inside a JavaScript string literal.
        if value.contains(['"', '\\', '\n']) {
            bail!("cannot put {value:?} in the npm launcher");
        }
        script = script.replace(placeholder, &value);
    }
    Ok(script)
}

/// `npm/megg-linux-x64-1.1.0.tgz`'s bytes: package.json, a README, the LICENSE and the binary.
pub fn platform_tarball(
    project: &Project,
    target: Target,
    binary: &[u8],
    license: &[u8],
) -> Result<Vec<u8>> {
    let manifest = pretty(&platform_manifest(project, target));
    let readme = format!(
        "# {}\n\nThe megg binary for {}. Install [`megg`](https://www.npmjs.com/package/megg) \
         instead: it depends on this package and runs the binary.\n\nSee {}.\n",
        platform_package(target),
        target.npm_platform(),
        project.homepage
    );
    tarball(vec![
        file("package.json", manifest.as_bytes(), 0o644),
        file("README.md", readme.as_bytes(), 0o644),
        file("LICENSE", license, 0o644),
        file(&format!("bin/{}", target.exe()), binary, 0o755),
    ])
}

/// `npm/megg-1.1.0.tgz`'s bytes: package.json, README, LICENSE and the launcher.
pub fn launcher_tarball(project: &Project, readme: &[u8], license: &[u8]) -> Result<Vec<u8>> {
    let manifest = pretty(&launcher_manifest(project));
    let script = launcher_script(project)?;
    tarball(vec![
        file("package.json", manifest.as_bytes(), 0o644),
        file("README.md", readme, 0o644),
        file("LICENSE", license, 0o644),
        file("bin/megg.js", script.as_bytes(), 0o755),
    ])
}

fn file<'a>(path: &str, data: &'a [u8], mode: u32) -> Item<'a> {
    (format!("package/{path}"), Entry::File { data, mode })
}

fn tarball(items: Vec<Item<'_>>) -> Result<Vec<u8>> {
    archive::gzip(&archive::tar(items)?)
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project;
    use std::io::Read;
    use std::path::Path;
    #[cfg(unix)]
    use std::process::Command;

    fn fixture() -> Project {
        project::fixture(Path::new("/m"))
    }

    #[test]
    fn the_launcher_names_all_six_platform_packages_at_this_version() {
        let manifest = launcher_manifest(&fixture());
        assert_eq!(
            manifest["optionalDependencies"],
            json!({
                "megg-linux-x64": "1.1.0",
                "megg-linux-arm64": "1.1.0",
                "megg-darwin-x64": "1.1.0",
                "megg-darwin-arm64": "1.1.0",
                "megg-win32-x64": "1.1.0",
                "megg-win32-arm64": "1.1.0",
            })
        );
        assert_eq!(manifest["name"], "megg");
        assert_eq!(manifest["bin"], json!({"megg": "bin/megg.js"}));
        assert_eq!(manifest["engines"], json!({"node": ">=16"}));
        assert_eq!(manifest["license"], "MIT");
        assert_eq!(
            manifest["repository"]["url"],
            "git+https://github.com/megg-dev/megg.git"
        );
        assert!(manifest.get("scripts").is_none());
    }

    #[test]
    fn a_platform_package_is_limited_to_its_os_and_cpu_and_has_no_bin() {
        let manifest = platform_manifest(&fixture(), Target::Aarch64Darwin);
        assert_eq!(manifest["name"], "megg-darwin-arm64");
        assert_eq!(manifest["version"], "1.1.0");
        assert_eq!(manifest["os"], json!(["darwin"]));
        assert_eq!(manifest["preferUnplugged"], json!(true));
        assert_eq!(manifest["cpu"], json!(["arm64"]));
        assert_eq!(manifest["files"], json!(["bin/megg"]));
        assert!(manifest.get("bin").is_none());
        assert!(manifest.get("scripts").is_none());
        let linux = platform_manifest(&fixture(), Target::X86_64LinuxMusl);
        assert_eq!(
            (&linux["os"], &linux["cpu"]),
            (&json!(["linux"]), &json!(["x64"]))
        );
        assert!(
            linux.get("libc").is_none(),
            "a static binary serves glibc and musl"
        );
    }

    #[test]
    fn the_launcher_is_filled_from_the_repository() {
        let script = launcher_script(&fixture()).unwrap();
        assert!(
            script.contains(
                "\"https://github.com/megg-dev/megg/releases/latest/download/install.sh\""
            )
        );
        assert!(script.contains("\"megg-dev/tap/megg\""));
        assert!(
            script.contains(
                "\"https://github.com/megg-dev/megg/releases/latest/download/install.ps1\""
            )
        );
        for placeholder in ["@INSTALL_SH_URL@", "@INSTALL_PS1_URL@", "@BREW_FORMULA@"] {
            assert!(!script.contains(placeholder), "{placeholder} left");
        }
    }

    #[test]
    fn a_platform_tarball_holds_the_binary_executable_under_package() {
        let tgz = platform_tarball(&fixture(), Target::X86_64LinuxMusl, b"ELF", b"MIT").unwrap();
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(tgz.as_slice())
            .read_to_end(&mut tar)
            .unwrap();
        let mut archive = tar::Archive::new(tar.as_slice());
        let entries: Vec<(String, u32)> = archive
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.path().unwrap().display().to_string(),
                    e.header().mode().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            entries,
            [
                ("package/LICENSE".to_owned(), 0o644),
                ("package/README.md".to_owned(), 0o644),
                ("package/bin/megg".to_owned(), 0o755),
                ("package/package.json".to_owned(), 0o644),
            ]
        );
    }

    // The launcher's tests run shell scripts as the binary: Unix only. On Windows, the release
    // workflow installs the npm packages and runs megg.exe through the launcher.

    /// A directory laid out as npm installs `megg` and, when `platform` is given, the binary
    /// package next to it, whose `bin/megg` is `binary`. Returns the launcher's path.
    #[cfg(unix)]
    fn installed(root: &Path, platform: Option<(&str, &str)>) -> std::path::PathBuf {
        installed_as(
            root,
            platform.map(|(package, binary)| (package, "megg", binary)),
        )
    }

    /// `installed`, with the binary's file name in its package given (`megg.exe` on Windows).
    #[cfg(unix)]
    fn installed_as(root: &Path, platform: Option<(&str, &str, &str)>) -> std::path::PathBuf {
        let modules = root.join("node_modules");
        let launcher = modules.join("megg/bin/megg.js");
        std::fs::create_dir_all(launcher.parent().unwrap()).unwrap();
        std::fs::write(&launcher, launcher_script(&fixture()).unwrap()).unwrap();
        if let Some((package, file, binary)) = platform {
            let bin = modules.join(package).join("bin").join(file);
            std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
            std::fs::write(modules.join(package).join("package.json"), "{}").unwrap();
            std::fs::write(&bin, binary).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        launcher
    }

    /// Whether `node` can run; with CI set a missing node is a failure, not a skip.
    #[cfg(unix)]
    fn have_node() -> bool {
        if Command::new("node").arg("--version").output().is_ok() {
            return true;
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs node for the launcher tests"
        );
        println!("skipped: no node on this machine");
        false
    }

    #[cfg(unix)]
    #[test]
    fn the_launcher_runs_the_platform_binary_with_its_args_and_exit_code() {
        if !have_node() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let package = platform_package(Target::host().unwrap());
        let script = "#!/bin/sh\necho \"args: $*\"\nexit 3\n";
        let launcher = installed(dir.path(), Some((&package, script)));
        let out = Command::new("node")
            .arg(&launcher)
            .args(["context", "--json", "two words"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "args: context --json two words\n"
        );
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_launcher_reraises_the_signal_that_ended_the_binary() {
        if !have_node() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let package = platform_package(Target::host().unwrap());
        let launcher = installed(dir.path(), Some((&package, "#!/bin/sh\nkill -TERM $$\n")));
        let out = Command::new("node").arg(&launcher).output().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(15), "{out:?}");
    }

    #[cfg(unix)]
    #[test]
    fn the_launcher_forwards_a_termination_signal_to_the_binary() {
        if !have_node() {
            return;
        }
        use std::io::{BufRead, BufReader};
        let dir = tempfile::tempdir().unwrap();
        let package = platform_package(Target::host().unwrap());
        let script = "#!/bin/sh\ntrap 'echo got TERM; exit 7' TERM\necho ready\n\
                      while :; do sleep 0.05; done\n";
        let launcher = installed(dir.path(), Some((&package, script)));
        let mut node = Command::new("node")
            .arg(&launcher)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(node.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n");
        // To node alone, as a service manager would send it: the binary hears it from node.
        let killed = Command::new("kill")
            .args(["-TERM", &node.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, "got TERM\n");
        assert_eq!(node.wait().unwrap().code(), Some(7));
    }

    #[cfg(unix)]
    #[test]
    fn without_the_platform_package_the_launcher_names_the_other_ways_and_exits_1() {
        if !have_node() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let launcher = installed(dir.path(), None);
        let out = Command::new("node")
            .arg(&launcher)
            .arg("--version")
            .output()
            .unwrap();
        let platform = Target::host().unwrap().npm_platform();
        let expected = format!(
            "error: megg has no prebuilt binary installed for {platform}\n\
             hint: npm installs megg-{platform} as an optional dependency: if megg was installed \
             with --omit=optional (or --no-optional), reinstall it without that option\n\
             hint: or install megg another way:\n\
             \x20 curl -fsSL https://github.com/megg-dev/megg/releases/latest/download/install.sh | sh\n\
             \x20 brew install megg-dev/tap/megg\n\
             \x20 cargo binstall megg\n"
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), expected);
        assert_eq!(out.stdout, b"");
        assert_eq!(out.status.code(), Some(1));
    }

    #[test]
    fn a_windows_package_is_limited_to_win32_and_holds_megg_exe() {
        for (triple, cpu) in [
            ("x86_64-pc-windows-msvc", "x64"),
            ("aarch64-pc-windows-msvc", "arm64"),
            ("x86_64-pc-windows-gnu", "x64"),
        ] {
            let target: Target = triple.parse().unwrap();
            let manifest = platform_manifest(&fixture(), target);
            assert_eq!(manifest["name"], format!("megg-win32-{cpu}"), "{triple}");
            assert_eq!(manifest["os"], json!(["win32"]), "{triple}");
            assert_eq!(manifest["cpu"], json!([cpu]), "{triple}");
            assert_eq!(manifest["files"], json!(["bin/megg.exe"]), "{triple}");
            assert!(manifest.get("bin").is_none() && manifest.get("scripts").is_none());
        }
        let target: Target = "aarch64-pc-windows-msvc".parse().unwrap();
        let tgz = platform_tarball(&fixture(), target, b"MZ", b"MIT").unwrap();
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(tgz.as_slice())
            .read_to_end(&mut tar)
            .unwrap();
        let names: Vec<String> = tar::Archive::new(tar.as_slice())
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path().unwrap().display().to_string())
            .collect();
        assert!(
            names.contains(&"package/bin/megg.exe".to_owned()),
            "{names:?}"
        );
        assert!(!names.contains(&"package/bin/megg".to_owned()), "{names:?}");
    }

    /// Runs the launcher as Node runs it on Windows (`process.platform` `win32`), with `arch`.
    #[cfg(unix)]
    fn node_on_win32(launcher: &Path, arch: &str, args: &[&str]) -> std::process::Output {
        let preload = launcher.with_file_name("as-win32.js");
        std::fs::write(
            &preload,
            format!(
                "Object.defineProperty(process, 'platform', {{ value: 'win32' }});\n\
                 Object.defineProperty(process, 'arch', {{ value: '{arch}' }});\n"
            ),
        )
        .unwrap();
        Command::new("node")
            .arg("--require")
            .arg(&preload)
            .arg(launcher)
            .args(args)
            .output()
            .unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn on_windows_the_launcher_runs_megg_exe_from_the_win32_package() {
        if !have_node() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let script = "#!/bin/sh\necho \"exe args: $*\"\nexit 3\n";
        // A stray `bin/megg` beside it is not what Windows runs.
        let launcher = installed_as(dir.path(), Some(("megg-win32-x64", "megg.exe", script)));
        let stray = dir.path().join("node_modules/megg-win32-x64/bin/megg");
        std::fs::write(&stray, "#!/bin/sh\necho wrong\n").unwrap();
        let out = node_on_win32(&launcher, "x64", &["context", "--json", "two words"]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "exe args: context --json two words\n",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(3));
    }

    #[cfg(unix)]
    #[test]
    fn on_windows_without_its_package_the_launcher_names_install_ps1_and_exits_1() {
        if !have_node() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let launcher = installed_as(dir.path(), None);
        let out = node_on_win32(&launcher, "arm64", &["--version"]);
        let expected = "error: megg has no prebuilt binary installed for win32-arm64\n\
             hint: npm installs megg-win32-arm64 as an optional dependency: if megg was installed \
             with --omit=optional (or --no-optional), reinstall it without that option\n\
             hint: or install megg another way, in PowerShell:\n\
             \x20 irm https://github.com/megg-dev/megg/releases/latest/download/install.ps1 | iex\n";
        assert_eq!(String::from_utf8_lossy(&out.stderr), expected);
        assert_eq!(out.stdout, b"");
        assert_eq!(out.status.code(), Some(1));
        // A Windows machine with no build at all (32-bit) is told to build from source.
        let out = node_on_win32(&launcher, "ia32", &["--version"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: megg has no prebuilt binary installed for win32-ia32\n")
                && err.contains("win32-x64, win32-arm64")
                && !err.contains("WSL"),
            "{err}"
        );
        assert_eq!(out.status.code(), Some(1));
    }
}
