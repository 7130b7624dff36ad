use std::io::Read;

use clap::Parser;

use super::*;
use crate::project;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    args: Args,
}

fn args(line: &[&str]) -> Args {
    Cli::try_parse_from(std::iter::once("dist").chain(line.iter().copied()))
        .unwrap()
        .args
}

/// A workspace with the docs every archive holds, and fake binaries for the targets asked.
struct Fixture {
    dir: tempfile::TempDir,
    project: Project,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(&root).unwrap();
        for (name, text) in [
            ("README.md", "# megg\n"),
            ("LICENSE", "MIT License\n"),
            ("CHANGELOG.md", "# Changelog\n"),
        ] {
            fs::write(root.join(name), text).unwrap();
        }
        let notice = root.join(crate::gitleaks::OUT_NOTICE);
        fs::create_dir_all(notice.parent().unwrap()).unwrap();
        fs::write(&notice, "Third-party rule data\nMIT License\n").unwrap();
        let project = project::fixture(&root);
        Fixture { dir, project }
    }

    fn binary(&self, target: Target) -> (Target, Source) {
        let path = self.dir.path().join(format!("megg-{target}"));
        fs::write(&path, binary::fake(target)).unwrap();
        (target, Source::Binary(path))
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

fn untar_xz(path: &Path) -> Vec<u8> {
    let mut tar = Vec::new();
    liblzma::read::XzDecoder::new(fs::read(path).unwrap().as_slice())
        .read_to_end(&mut tar)
        .unwrap();
    tar
}

fn untar_gz(path: &Path) -> Vec<u8> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(fs::read(path).unwrap().as_slice())
        .read_to_end(&mut tar)
        .unwrap();
    tar
}

/// (path, mode) of each entry.
fn entries(tar: &[u8]) -> Vec<(String, u32)> {
    tar::Archive::new(tar)
        .entries()
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.path().unwrap().display().to_string(),
                e.header().mode().unwrap(),
            )
        })
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = ["", "npm"]
        .iter()
        .flat_map(|sub| {
            fs::read_dir(dir.join(sub)).unwrap().map(move |e| {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                }
            })
        })
        .collect();
    names.sort();
    names
}

#[test]
fn the_default_target_is_the_machines_and_a_binary_implies_its_target() {
    let host = Target::Aarch64LinuxMusl;
    assert_eq!(
        plan(&args(&["--out", "d"]), Ok(host)).unwrap(),
        [(host, Source::Build)]
    );
    let jobs = plan(
        &args(&[
            "--out",
            "d",
            "--target",
            "x86_64-apple-darwin",
            "--skip-build",
            "--binary",
            "x86_64-unknown-linux-musl=/b/megg",
        ]),
        Err(anyhow::anyhow!("not asked")),
    )
    .unwrap();
    assert_eq!(
        jobs,
        [
            (Target::X86_64LinuxMusl, Source::Binary("/b/megg".into())),
            (Target::X86_64Darwin, Source::Built),
        ]
    );
    assert_eq!(
        plan(&args(&["--out", "d", "--assemble-only"]), Ok(host)).unwrap(),
        []
    );
}

#[test]
fn two_builds_of_one_npm_platform_are_refused_in_one_run() {
    let line = [
        "--out",
        "d",
        "--target",
        "x86_64-pc-windows-msvc",
        "--target",
        "x86_64-pc-windows-gnu",
    ];
    let err = plan(&args(&line), Err(anyhow::anyhow!("not asked")))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "x86_64-pc-windows-msvc and x86_64-pc-windows-gnu both make the npm package \
         megg-win32-x64: package them into two directories"
    );
}

#[test]
fn an_unknown_target_or_assemble_only_with_targets_is_refused() {
    let cli =
        |line: &[&str]| Cli::try_parse_from(std::iter::once("dist").chain(line.iter().copied()));
    let err = cli(&["--out", "d", "--target", "i686-pc-windows-msvc"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unsupported target 'i686-pc-windows-msvc'"),
        "{err}"
    );
    assert!(cli(&["--out", "d", "--binary", "/no/target"]).is_err());
    let err = cli(&[
        "--out",
        "d",
        "--assemble-only",
        "--target",
        "x86_64-apple-darwin",
    ]);
    assert!(err.is_err());
}

#[test]
fn a_target_makes_both_archives_and_its_npm_package_and_the_combined_files() {
    let fx = Fixture::new();
    let out = fx.out("dist");
    dist(&fx.project, &[fx.binary(Target::X86_64LinuxMusl)], &out).unwrap();
    assert_eq!(
        names(&out),
        [
            "SHA256SUMS",
            "megg-1.1.0-x86_64-unknown-linux-musl.tar.gz",
            "megg-1.1.0-x86_64-unknown-linux-musl.tar.xz",
            "megg.rb",
            "npm",
            "npm/megg-1.1.0.tgz",
            "npm/megg-linux-x64-1.1.0.tgz",
        ]
    );
}

#[test]
fn the_release_archive_holds_one_directory_with_the_binary_executable() {
    let fx = Fixture::new();
    let out = fx.out("dist");
    dist(&fx.project, &[fx.binary(Target::X86_64LinuxMusl)], &out).unwrap();
    let top = "megg-1.1.0-x86_64-unknown-linux-musl";
    let expected: Vec<(String, u32)> = [
        ("/", 0o755),
        ("/CHANGELOG.md", 0o644),
        ("/LICENSE", 0o644),
        ("/README.md", 0o644),
        ("/completions/", 0o755),
        ("/completions/_megg", 0o644),
        ("/completions/megg.bash", 0o644),
        ("/completions/megg.fish", 0o644),
        ("/man/", 0o755),
        ("/man/megg.1", 0o644),
        ("/megg", 0o755),
    ]
    .iter()
    .map(|(path, mode)| (format!("{top}{path}"), *mode))
    .collect();
    let xz = untar_xz(&out.join(format!("{top}.tar.xz")));
    assert_eq!(entries(&xz), expected);
    // Both archives hold the same tarball.
    assert_eq!(xz, untar_gz(&out.join(format!("{top}.tar.gz"))));

    let mut archive = tar::Archive::new(xz.as_slice());
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().display().to_string();
        let mut body = Vec::new();
        entry.read_to_end(&mut body).unwrap();
        match path.strip_prefix(top) {
            Some("/megg") => assert_eq!(body, binary::fake(Target::X86_64LinuxMusl)),
            Some("/completions/megg.bash") => {
                assert!(String::from_utf8(body).unwrap().contains("_megg()"))
            }
            Some("/man/megg.1") => assert!(String::from_utf8(body).unwrap().starts_with(".ie")),
            _ => {}
        }
    }
}

#[test]
fn two_runs_on_the_same_binary_write_the_same_bytes() {
    let fx = Fixture::new();
    let job = fx.binary(Target::Aarch64LinuxMusl);
    let (a, b) = (fx.out("a"), fx.out("b"));
    dist(&fx.project, std::slice::from_ref(&job), &a).unwrap();
    dist(&fx.project, &[job], &b).unwrap();
    let files = names(&a);
    assert_eq!(files, names(&b));
    for name in files.iter().filter(|n| *n != "npm") {
        assert_eq!(
            fs::read(a.join(name)).unwrap(),
            fs::read(b.join(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn the_npm_platform_package_holds_the_binary_mode_0755() {
    let fx = Fixture::new();
    let out = fx.out("dist");
    dist(&fx.project, &[fx.binary(Target::Aarch64Darwin)], &out).unwrap();
    let tar = untar_gz(&out.join("npm/megg-darwin-arm64-1.1.0.tgz"));
    assert!(entries(&tar).contains(&("package/bin/megg".to_owned(), 0o755)));
    let tar = untar_gz(&out.join("npm/megg-1.1.0.tgz"));
    assert!(entries(&tar).contains(&("package/bin/megg.js".to_owned(), 0o755)));
}

#[test]
fn a_dynamic_or_foreign_binary_is_refused() {
    let fx = Fixture::new();
    let path = fx.dir.path().join("script");
    fs::write(&path, "#!/bin/sh\n").unwrap();
    let job = (Target::X86_64LinuxMusl, Source::Binary(path));
    let err = format!(
        "{:#}",
        dist(&fx.project, &[job], &fx.out("dist")).unwrap_err()
    );
    assert!(
        err.ends_with(
            "cannot ship for x86_64-unknown-linux-musl: not a 64-bit little-endian ELF executable"
        ),
        "{err}"
    );
    assert!(
        !fx.out("dist")
            .join("megg-1.1.0-x86_64-unknown-linux-musl.tar.xz")
            .exists()
    );
}

#[test]
fn assemble_only_sums_and_brews_every_archive_gathered_into_the_directory() {
    let fx = Fixture::new();
    fs::write(
        fx.project.root.join("install.sh"),
        "#!/bin/sh\necho install\n",
    )
    .unwrap();
    // Two runs on two machines…
    let (linux, mac) = (fx.out("linux"), fx.out("mac"));
    dist(&fx.project, &[fx.binary(Target::X86_64LinuxMusl)], &linux).unwrap();
    dist(&fx.project, &[fx.binary(Target::Aarch64Darwin)], &mac).unwrap();
    // …gathered into one directory, with another version's leftover…
    let all = fx.out("all");
    fs::create_dir_all(all.join("npm")).unwrap();
    for dir in [&linux, &mac] {
        for name in names(dir)
            .iter()
            .filter(|n| n.contains("megg-") && *n != "npm")
        {
            fs::copy(dir.join(name), all.join(name)).unwrap();
        }
    }
    fs::write(
        all.join("megg-1.0.0-x86_64-unknown-linux-musl.tar.xz"),
        "old",
    )
    .unwrap();
    // …and assembled once.
    let rows = dist(&fx.project, &[], &all).unwrap();

    let sums = fs::read_to_string(all.join("SHA256SUMS")).unwrap();
    let summed: Vec<&str> = sums
        .lines()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(
        summed,
        [
            "install.sh",
            "megg-1.1.0-aarch64-apple-darwin.tar.gz",
            "megg-1.1.0-aarch64-apple-darwin.tar.xz",
            "megg-1.1.0-x86_64-unknown-linux-musl.tar.gz",
            "megg-1.1.0-x86_64-unknown-linux-musl.tar.xz",
            "npm/megg-1.1.0.tgz",
            "npm/megg-darwin-arm64-1.1.0.tgz",
            "npm/megg-linux-x64-1.1.0.tgz",
        ]
    );
    for line in sums.lines() {
        let (hex, name) = line.split_once("  ").unwrap();
        assert_eq!(
            hex,
            sums::sha256_hex(&fs::read(all.join(name)).unwrap()),
            "{name}"
        );
    }
    assert_eq!(
        fs::read_to_string(all.join("install.sh")).unwrap(),
        "#!/bin/sh\necho install\n"
    );

    let rb = fs::read_to_string(all.join("megg.rb")).unwrap();
    for target in [Target::X86_64LinuxMusl, Target::Aarch64Darwin] {
        let name = format!("megg-1.1.0-{target}.tar.xz");
        let sha = sums::sha256_hex(&fs::read(all.join(&name)).unwrap());
        assert!(
            rb.contains(&format!("/v1.1.0/{name}\"\n      sha256 \"{sha}\"")),
            "{rb}"
        );
    }
    assert_eq!(rb.matches("url ").count(), 2, "{rb}");
    assert!(rows.iter().any(|r| r.name == "megg.rb"));
    assert!(!rows.iter().any(|r| r.name.contains("1.0.0")));
}

#[test]
fn without_install_sh_in_the_repository_the_release_has_none() {
    let fx = Fixture::new();
    let out = fx.out("dist");
    dist(&fx.project, &[], &out).unwrap();
    assert!(!out.join("install.sh").exists());
    assert_eq!(
        fs::read_to_string(out.join("SHA256SUMS"))
            .unwrap()
            .lines()
            .count(),
        1,
        "the launcher package alone"
    );
}

#[test]
fn sizes_over_the_limits_fail_with_a_sentence_each() {
    let row = |name: &str, bytes| Row {
        name: name.into(),
        bytes,
    };
    let rows = [
        row("megg-1.1.0-x86_64-unknown-linux-musl.tar.xz", 10_000_000),
        row("megg-1.1.0-aarch64-unknown-linux-musl.tar.xz", 10_000_001),
        row("megg-1.1.0-aarch64-unknown-linux-musl.tar.gz", 12_500_000),
        row("npm/megg-linux-x64-1.1.0.tgz", 15_000_001),
    ];
    assert_eq!(
        oversized(&rows),
        [
            "megg-1.1.0-aarch64-unknown-linux-musl.tar.xz is 10000001 bytes: a release archive \
             must stay within 10 MB (10000000 bytes)",
            "npm/megg-linux-x64-1.1.0.tgz is 15000001 bytes: an npm package must stay within \
             15 MB (15000000 bytes)",
        ]
    );
    let text = table(&rows[..1]);
    assert_eq!(
        text,
        "artifact                                          bytes      MB\n\
         megg-1.1.0-x86_64-unknown-linux-musl.tar.xz    10000000   10.00\n"
    );
}

#[test]
fn the_shipped_license_carries_the_gitleaks_rules_notice() {
    let f = Fixture::new();
    let text = String::from_utf8(license(&f.project).unwrap()).unwrap();
    assert!(text.starts_with("MIT License\n"), "{text}");
    assert!(text.contains("Third-party rule data"), "{text}");
}

fn windows(triple: &str) -> Target {
    triple.parse().unwrap()
}

/// (path, compressed with deflate) of each entry of a zip, in its order.
fn zip_entries(path: &Path) -> Vec<(String, bool)> {
    let mut archive = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    (0..archive.len())
        .map(|i| {
            let file = archive.by_index(i).unwrap();
            let deflated = file.compression() == zip::CompressionMethod::Deflated;
            (file.name().unwrap().into_owned(), deflated)
        })
        .collect()
}

fn zip_file(path: &Path, name: &str) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    let mut body = Vec::new();
    archive
        .by_name(name)
        .unwrap()
        .read_to_end(&mut body)
        .unwrap();
    body
}

#[test]
fn a_windows_target_makes_a_zip_and_its_npm_package_and_the_combined_files() {
    let fx = Fixture::new();
    fs::write(fx.project.root.join("install.ps1"), "# installer\r\n").unwrap();
    let out = fx.out("dist");
    let gnu = windows("x86_64-pc-windows-gnu");
    dist(&fx.project, &[fx.binary(gnu)], &out).unwrap();
    // The mingw build is no release: winget's manifest names released zips only.
    assert_eq!(
        names(&out),
        [
            "SHA256SUMS",
            "install.ps1",
            "megg-1.1.0-x86_64-pc-windows-gnu.zip",
            "megg.rb",
            "npm",
            "npm/megg-1.1.0.tgz",
            "npm/megg-win32-x64-1.1.0.tgz",
        ]
    );
    let sums = fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    for name in [
        "install.ps1",
        "megg-1.1.0-x86_64-pc-windows-gnu.zip",
        "npm/megg-win32-x64-1.1.0.tgz",
    ] {
        let hex = sums::sha256_hex(&fs::read(out.join(name)).unwrap());
        assert!(sums.contains(&format!("{hex}  {name}\n")), "{name}: {sums}");
    }
    let tar = untar_gz(&out.join("npm/megg-win32-x64-1.1.0.tgz"));
    assert!(entries(&tar).contains(&("package/bin/megg.exe".to_owned(), 0o755)));
}

#[test]
fn the_windows_zip_holds_one_directory_with_megg_exe_and_powershell_completions() {
    let fx = Fixture::new();
    let out = fx.out("dist");
    let msvc = windows("aarch64-pc-windows-msvc");
    dist(&fx.project, &[fx.binary(msvc)], &out).unwrap();
    let top = "megg-1.1.0-aarch64-pc-windows-msvc";
    let zip = out.join(format!("{top}.zip"));
    let expected: Vec<(String, bool)> = [
        ("/", false),
        ("/CHANGELOG.md", true),
        ("/LICENSE", true),
        ("/README.md", true),
        ("/completions/", false),
        ("/completions/_megg.ps1", true),
        ("/megg.exe", true),
    ]
    .iter()
    .map(|(path, deflated)| (format!("{top}{path}"), *deflated))
    .collect();
    assert_eq!(zip_entries(&zip), expected);
    assert_eq!(
        zip_file(&zip, &format!("{top}/megg.exe")),
        binary::fake(msvc)
    );
    let completions =
        String::from_utf8(zip_file(&zip, &format!("{top}/completions/_megg.ps1"))).unwrap();
    assert!(
        completions.contains("Register-ArgumentCompleter -Native -CommandName 'megg'"),
        "{completions}"
    );
    assert!(
        String::from_utf8(zip_file(&zip, &format!("{top}/LICENSE")))
            .unwrap()
            .contains("Third-party rule data")
    );
    // No tarball for Windows.
    assert!(!out.join(format!("{top}.tar.xz")).exists());
}

#[test]
fn the_same_windows_binary_makes_the_same_zip() {
    let fx = Fixture::new();
    let job = fx.binary(windows("x86_64-pc-windows-msvc"));
    let (a, b) = (fx.out("a"), fx.out("b"));
    dist(&fx.project, std::slice::from_ref(&job), &a).unwrap();
    dist(&fx.project, &[job], &b).unwrap();
    let name = "megg-1.1.0-x86_64-pc-windows-msvc.zip";
    assert_eq!(
        fs::read(a.join(name)).unwrap(),
        fs::read(b.join(name)).unwrap()
    );
}

#[test]
fn a_linux_binary_cannot_ship_as_megg_exe() {
    let fx = Fixture::new();
    let path = fx.dir.path().join("elf");
    fs::write(&path, binary::fake(Target::X86_64LinuxMusl)).unwrap();
    let job = (windows("x86_64-pc-windows-msvc"), Source::Binary(path));
    let err = format!(
        "{:#}",
        dist(&fx.project, &[job], &fx.out("dist")).unwrap_err()
    );
    assert!(
        err.ends_with("cannot ship for x86_64-pc-windows-msvc: not a PE executable"),
        "{err}"
    );
}

#[test]
fn winget_manifests_are_written_from_the_sums_of_the_released_zips() {
    let fx = Fixture::new();
    let out = fx.out("dist");
    let (x64, arm64) = (
        windows("x86_64-pc-windows-msvc"),
        windows("aarch64-pc-windows-msvc"),
    );
    dist(
        &fx.project,
        &[
            fx.binary(x64),
            fx.binary(arm64),
            fx.binary(Target::X86_64LinuxMusl),
        ],
        &out,
    )
    .unwrap();
    let dir = out.join("winget");
    let mut files: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "megg-dev.megg.installer.yaml",
            "megg-dev.megg.locale.en-US.yaml",
            "megg-dev.megg.yaml",
        ]
    );
    let yaml = |name: &str| -> serde_json::Value {
        serde_saphyr::from_str(&fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let installer = yaml("megg-dev.megg.installer.yaml");
    assert_eq!(installer["PackageIdentifier"], "megg-dev.megg");
    assert_eq!(installer["PackageVersion"], "1.1.0");
    assert_eq!(installer["InstallerType"], "zip");
    assert_eq!(installer["NestedInstallerType"], "portable");
    assert_eq!(installer["ManifestType"], "installer");
    let sums = fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    let installers = installer["Installers"].as_array().unwrap();
    assert_eq!(installers.len(), 2, "{installer}");
    for (entry, (target, arch)) in installers.iter().zip([(x64, "x64"), (arm64, "arm64")]) {
        let zip = format!("megg-1.1.0-{target}.zip");
        let line = sums
            .lines()
            .find(|l| l.ends_with(&format!("  {zip}")))
            .unwrap();
        let hex = line.split_once("  ").unwrap().0;
        assert_eq!(entry["Architecture"], arch);
        assert_eq!(
            entry["InstallerUrl"],
            format!("https://github.com/megg-dev/megg/releases/download/v1.1.0/{zip}")
        );
        assert_eq!(entry["InstallerSha256"], hex.to_uppercase());
        assert_eq!(
            entry["NestedInstallerFiles"],
            serde_json::json!([{
                "RelativeFilePath": format!("megg-1.1.0-{target}\\megg.exe"),
                "PortableCommandAlias": "megg",
            }])
        );
    }
    let version = yaml("megg-dev.megg.yaml");
    assert_eq!(version["DefaultLocale"], "en-US");
    assert_eq!(version["ManifestType"], "version");
    let locale = yaml("megg-dev.megg.locale.en-US.yaml");
    assert_eq!(locale["PackageLocale"], "en-US");
    assert_eq!(locale["ManifestType"], "defaultLocale");
    assert_eq!(locale["License"], "MIT");
    assert_eq!(locale["PackageName"], "megg");
    for doc in [&installer, &version, &locale] {
        assert_eq!(doc["ManifestVersion"], "1.10.0");
    }
}

#[test]
fn a_zip_over_10_mb_fails_like_a_tarball() {
    let rows = [Row {
        name: "megg-1.1.0-x86_64-pc-windows-msvc.zip".into(),
        bytes: 10_000_001,
    }];
    assert_eq!(
        oversized(&rows),
        [
            "megg-1.1.0-x86_64-pc-windows-msvc.zip is 10000001 bytes: a release archive must \
          stay within 10 MB (10000000 bytes)"
        ]
    );
    // The mingw-w64 build is the tests', never released: shown, not limited.
    let tests_only = [Row {
        name: "megg-1.1.0-x86_64-pc-windows-gnu.zip".into(),
        bytes: 13_000_000,
    }];
    assert_eq!(oversized(&tests_only), Vec::<String>::new());
}

#[test]
fn skip_build_packages_megg_exe_for_a_windows_target() {
    let fx = Fixture::new();
    let err = binary_path(
        &fx.project,
        windows("x86_64-pc-windows-gnu"),
        &Source::Built,
    )
    .unwrap_err()
    .to_string();
    let built = Path::new("x86_64-pc-windows-gnu")
        .join("release")
        .join("megg.exe");
    assert!(err.contains(&built.display().to_string()), "{err}");
}

/// `cargo binstall megg` on each host cargo-binstall detects: the URL, format and path inside
/// the archive that Cargo.toml's `[package.metadata.binstall]` gives it (an override when it
/// has one for the host, else the defaults), with its `{ … }` filled as cargo-binstall fills
/// them.
fn binstall_for(
    metadata: &serde_json::Value,
    repo: &str,
    version: &str,
    host: &str,
) -> [String; 3] {
    let root = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "megg")
        .unwrap();
    let binstall = &root["metadata"]["binstall"];
    let field = |key: &str| {
        binstall["overrides"][host][key]
            .as_str()
            .or_else(|| binstall[key].as_str())
            .unwrap_or_else(|| panic!("no binstall {key} for {host}"))
            .to_owned()
    };
    let ext = if host.contains("-windows-") {
        ".exe"
    } else {
        ""
    };
    let fill = |template: String| {
        template
            .replace("{ repo }", repo)
            .replace("{ version }", version)
            .replace("{ target }", host)
            .replace("{ bin }", "megg")
            .replace("{ binary-ext }", ext)
    };
    [
        fill(field("pkg-url")),
        field("pkg-fmt"),
        fill(field("bin-dir")),
    ]
}

#[test]
fn cargo_binstall_finds_each_release_archive_and_the_binary_in_it() {
    let metadata = crate::project::metadata().unwrap();
    let project = Project::from_metadata(&metadata).unwrap();
    let released = |triple: &str| -> Target { triple.parse().unwrap() };
    // (the host cargo-binstall detects, the release target it gets): every released target
    // for itself, and the hosts rustup installs by default where the release has another
    // build (glibc Linux takes the static musl one, a mingw-w64 toolchain the MSVC megg.exe).
    let mut hosts: Vec<(String, Target)> = Target::RELEASE
        .into_iter()
        .map(|t| (t.triple().to_owned(), t))
        .collect();
    hosts.extend([
        (
            "x86_64-unknown-linux-gnu".to_owned(),
            Target::X86_64LinuxMusl,
        ),
        (
            "aarch64-unknown-linux-gnu".to_owned(),
            Target::Aarch64LinuxMusl,
        ),
        (
            "x86_64-pc-windows-gnu".to_owned(),
            released("x86_64-pc-windows-msvc"),
        ),
    ]);
    let known = artifact_names(&project);
    for (host, target) in hosts {
        let stem = project.archive_stem(target);
        let (archive, format) = if target.os() == Os::Windows {
            (format!("{stem}.zip"), "zip")
        } else {
            (format!("{stem}.tar.xz"), "txz")
        };
        assert!(
            known.contains(&archive),
            "{archive} is no artifact: {known:?}"
        );
        assert_eq!(
            binstall_for(&metadata, &project.repository, &project.version, &host),
            [
                project.release_url(&archive),
                format.to_owned(),
                format!("{stem}/{}", target.exe())
            ],
            "cargo binstall on {host}"
        );
        // The archive holds the binary at that path.
        let docs = Docs {
            readme: Vec::new(),
            license: Vec::new(),
            changelog: Vec::new(),
            generated: Vec::new(),
            powershell: String::new(),
        };
        let items = release_items(target, &stem, b"bin", &docs);
        assert!(
            items
                .iter()
                .any(|(path, _)| *path == format!("{stem}/{}", target.exe())),
            "{host}"
        );
    }
}
