//! `cargo xtask dist`: builds megg for each target asked for, packages it (release archives —
//! `.tar.xz` and `.tar.gz`, or a `.zip` on Windows — and npm platform package), then assembles
//! the files made from everything in DIR — SHA256SUMS, install.sh, install.ps1, the Homebrew
//! formula, the winget manifests and the `megg` npm package — so per-OS runs can be gathered
//! into one directory and assembled once (`--assemble-only`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::CommandFactory;

use crate::archive::{self, Entry, Item};
use crate::binary;
use crate::compile::{self, Machine};
use crate::homebrew;
use crate::npm;
use crate::project::Project;
use crate::sums;
use crate::target::{Os, Target};
use crate::winget;

/// A release archive (`.tar.xz`, or Windows' `.zip`) may weigh at most this much (SPEC §15,
/// §15.1).
const ARCHIVE_LIMIT: u64 = 10_000_000;
/// An npm package (`.tgz`) may weigh at most this much (SPEC §15).
const NPM_LIMIT: u64 = 15_000_000;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory to write the artifacts to (created if missing)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// A target to build and package (repeatable) [default: this machine's]
    #[arg(long = "target", value_name = "TARGET")]
    pub targets: Vec<Target>,
    /// Package the binary at PATH for TARGET instead of building it (repeatable)
    #[arg(long = "binary", value_name = "TARGET=PATH", value_parser = parse_binary)]
    pub binaries: Vec<(Target, PathBuf)>,
    /// Build nothing: package what `cargo build --release --target TARGET` left in target/
    #[arg(long)]
    pub skip_build: bool,
    /// Build and package nothing: rewrite SHA256SUMS, install.sh, install.ps1, megg.rb, the
    /// winget manifests and the `megg` npm package from the archives already in DIR
    #[arg(long, conflicts_with_all = ["targets", "binaries", "skip_build"])]
    pub assemble_only: bool,
}

fn parse_binary(s: &str) -> Result<(Target, PathBuf)> {
    let Some((target, path)) = s.split_once('=') else {
        bail!("expected TARGET=PATH, got '{s}'");
    };
    Ok((target.parse()?, PathBuf::from(path)))
}

/// Where a target's binary comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `cargo build --release --target T` now.
    Build,
    /// What a build already left in the target directory.
    Built,
    /// A binary named on the command line.
    Binary(PathBuf),
}

/// The targets to package and where each binary comes from: every `--target` and every
/// `--binary` target, else this machine's (`host`); none when assembling only.
pub fn plan(args: &Args, host: Result<Target>) -> Result<Vec<(Target, Source)>> {
    if args.assemble_only {
        return Ok(Vec::new());
    }
    let mut targets = args.targets.clone();
    targets.extend(args.binaries.iter().map(|(target, _)| *target));
    if targets.is_empty() {
        targets.push(host?);
    }
    targets.sort();
    targets.dedup();
    // Windows x64's MSVC and mingw-w64 builds share megg-win32-x64: one would overwrite the
    // other's package.
    for (i, a) in targets.iter().enumerate() {
        let package = npm::platform_package(*a);
        if let Some(b) = targets
            .iter()
            .skip(i + 1)
            .find(|b| npm::platform_package(**b) == package)
        {
            bail!(
                "{a} and {b} both make the npm package {package}: package them into two directories"
            );
        }
    }
    Ok(targets
        .into_iter()
        .map(|target| {
            let given = args.binaries.iter().rev().find(|(t, _)| *t == target);
            let source = match given {
                Some((_, path)) => Source::Binary(path.clone()),
                None if args.skip_build => Source::Built,
                None => Source::Build,
            };
            (target, source)
        })
        .collect())
}

pub fn run(args: &Args) -> Result<()> {
    let project = Project::load()?;
    let jobs = plan(args, Target::host())?;
    let started = std::time::Instant::now();
    let rows = dist(&project, &jobs, &args.out)?;
    print!("{}", table(&rows));
    eprintln!("dist took {:.0} s", started.elapsed().as_secs_f64());
    let over = oversized(&rows);
    if !over.is_empty() {
        bail!("{}", over.join("\n"));
    }
    Ok(())
}

/// Packages each job into `out`, then assembles; returns every artifact in `out` with its size.
pub fn dist(project: &Project, jobs: &[(Target, Source)], out: &Path) -> Result<Vec<Row>> {
    fs::create_dir_all(out.join("npm"))
        .with_context(|| format!("cannot create {}", out.join("npm").display()))?;
    if !jobs.is_empty() {
        let docs = Docs::read(project)?;
        for (target, source) in jobs {
            let path = binary_path(project, *target, source)?;
            let bytes = read(&path)?;
            binary::check(*target, &bytes)
                .with_context(|| format!("{} cannot ship for {target}", path.display()))?;
            package(project, *target, &bytes, &docs, out)?;
        }
    }
    assemble(project, out)
}

fn binary_path(project: &Project, target: Target, source: &Source) -> Result<PathBuf> {
    match source {
        Source::Binary(path) => Ok(path.clone()),
        Source::Built => {
            let path = project
                .target_dir
                .join(target.triple())
                .join("release")
                .join(target.exe());
            if !path.is_file() {
                bail!(
                    "no {} (--skip-build packages an existing build)",
                    path.display()
                );
            }
            Ok(path)
        }
        Source::Build => {
            let host = Target::host()?;
            let zig_cc = project.root.join(".ci/zig-cc");
            let env = compile::toolchain_env(target, host, &Machine::probe(target), &zig_cc)?;
            compile::build(&project.root, target, &env)
        }
    }
}

/// What every release archive holds besides the binary.
pub struct Docs {
    readme: Vec<u8>,
    license: Vec<u8>,
    changelog: Vec<u8>,
    /// Completions and man page, generated from the CLI definition: (path, text).
    generated: Vec<(String, String)>,
    /// PowerShell's completions, which Windows' zip holds instead.
    powershell: String,
}

impl Docs {
    fn read(project: &Project) -> Result<Docs> {
        Ok(Docs {
            readme: read(&project.root.join("README.md"))?,
            license: license(project)?,
            changelog: read(&project.root.join("CHANGELOG.md"))?,
            generated: generated_docs()?,
            powershell: completions(clap_complete::Shell::PowerShell)?,
        })
    }
}

/// Shell completions and the man page, from megg's own functions for `megg completions` and
/// `megg man`: the same text the binary prints, without running a cross-compiled binary.
fn generated_docs() -> Result<Vec<(String, String)>> {
    use clap_complete::Shell;
    let mut docs = Vec::new();
    for (shell, path) in [
        (Shell::Bash, "completions/megg.bash"),
        (Shell::Zsh, "completions/_megg"),
        (Shell::Fish, "completions/megg.fish"),
    ] {
        docs.push((path.to_owned(), completions(shell)?));
    }
    let man = megg::commands::completions::man(megg::cli::Cli::command())?;
    docs.push(("man/megg.1".to_owned(), man.stdout));
    Ok(docs)
}

/// What `megg completions SHELL` prints.
fn completions(shell: clap_complete::Shell) -> Result<String> {
    use megg::commands::completions;
    let script = completions::run(&completions::Args { shell }, megg::cli::Cli::command())?;
    Ok(script.stdout)
}

/// The entries of `megg-V-T.tar.*` (or `.zip`): one top directory holding the binary and its
/// docs — on Windows `megg.exe` and PowerShell's completions, elsewhere `megg`, the bash, zsh
/// and fish completions and the man page.
fn release_items<'a>(
    target: Target,
    stem: &str,
    binary: &'a [u8],
    docs: &'a Docs,
) -> Vec<Item<'a>> {
    let file = |path: &str, data, mode| (format!("{stem}/{path}"), Entry::File { data, mode });
    let mut items = vec![
        (format!("{stem}/"), Entry::Dir),
        (format!("{stem}/completions/"), Entry::Dir),
        file(target.exe(), binary, 0o755),
        file("README.md", &docs.readme, 0o644),
        file("LICENSE", &docs.license, 0o644),
        file("CHANGELOG.md", &docs.changelog, 0o644),
    ];
    if target.os() == Os::Windows {
        items.push(file(
            "completions/_megg.ps1",
            docs.powershell.as_bytes(),
            0o644,
        ));
    } else {
        items.push((format!("{stem}/man/"), Entry::Dir));
        items.extend(
            docs.generated
                .iter()
                .map(|(path, text)| file(path, text.as_bytes(), 0o644)),
        );
    }
    items
}

/// Writes `target`'s release archives and npm platform package into `out`.
fn package(
    project: &Project,
    target: Target,
    binary: &[u8],
    docs: &Docs,
    out: &Path,
) -> Result<()> {
    let stem = project.archive_stem(target);
    eprintln!("packaging {stem}");
    let items = release_items(target, &stem, binary, docs);
    let license = &docs.license;
    let npm_name = npm::tarball_name(&npm::platform_package(target), &project.version);
    if target.os() == Os::Windows {
        let (zip, npm) = std::thread::scope(|scope| {
            let npm = scope.spawn(|| npm::platform_tarball(project, target, binary, license));
            let zip = archive::zip(items);
            let npm = npm
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("compression panicked")));
            (zip, npm)
        });
        write(&out.join(format!("{stem}.zip")), &zip?)?;
        return write(&out.join("npm").join(npm_name), &npm?);
    }
    let tarball = archive::tar(items)?;
    // xz at preset 9 takes longest; the gzip archive and the npm package compress meanwhile.
    let (xz, gz, npm) = std::thread::scope(|scope| {
        let xz = scope.spawn(|| archive::xz(&tarball));
        let npm = scope.spawn(|| npm::platform_tarball(project, target, binary, license));
        let gz = archive::gzip(&tarball);
        let join = |r: std::thread::Result<Result<Vec<u8>>>| {
            r.unwrap_or_else(|_| Err(anyhow::anyhow!("compression panicked")))
        };
        (join(xz.join()), gz, join(npm.join()))
    });
    write(&out.join(format!("{stem}.tar.xz")), &xz?)?;
    write(&out.join(format!("{stem}.tar.gz")), &gz?)?;
    write(&out.join("npm").join(npm_name), &npm?)
}

/// Every artifact of this version `dist` knows, as a path relative to DIR.
fn artifact_names(project: &Project) -> Vec<String> {
    let mut names: Vec<String> = INSTALLERS.map(str::to_owned).to_vec();
    names.push(npm_path("megg", &project.version));
    for target in Target::ALL {
        let stem = project.archive_stem(target);
        if target.os() == Os::Windows {
            names.push(format!("{stem}.zip"));
        } else {
            names.push(format!("{stem}.tar.xz"));
            names.push(format!("{stem}.tar.gz"));
        }
        names.push(npm_path(&npm::platform_package(target), &project.version));
    }
    names.sort();
    names.dedup();
    names
}

/// The install scripts at the repository's root, released as they are.
const INSTALLERS: [&str; 2] = ["install.sh", "install.ps1"];

fn npm_path(package: &str, version: &str) -> String {
    format!("npm/{}", npm::tarball_name(package, version))
}

/// (Re)writes the files made from everything in `out`: the `megg` npm package, install.sh and
/// install.ps1, SHA256SUMS, megg.rb and the winget manifests.
fn assemble(project: &Project, out: &Path) -> Result<Vec<Row>> {
    let readme = read(&project.root.join("README.md"))?;
    let license = license(project)?;
    let launcher = npm::launcher_tarball(project, &readme, &license)?;
    write(&out.join(npm_path("megg", &project.version)), &launcher)?;

    for script in INSTALLERS {
        let path = project.root.join(script);
        if path.is_file() {
            write(&out.join(script), &read(&path)?)?;
        } else {
            eprintln!(
                "warning: no {script} at {}: the release has none",
                project.root.display()
            );
        }
    }

    let known = artifact_names(project);
    warn_unknown(out, &known)?;
    let mut sizes = Vec::new();
    let mut hashes = BTreeMap::new();
    for name in known {
        let path = out.join(&name);
        if path.is_file() {
            let bytes = read(&path)?;
            sizes.push(Row {
                name: name.clone(),
                bytes: bytes.len() as u64,
            });
            hashes.insert(name, sums::sha256_hex(&bytes));
        }
    }
    let archives: Vec<(Target, String, String)> = Target::ALL
        .into_iter()
        .filter_map(|target| {
            let name = format!("{}.tar.xz", project.archive_stem(target));
            hashes
                .get(&name)
                .map(|sha| (target, name.clone(), sha.clone()))
        })
        .collect();
    let zips: Vec<(Target, String, String)> = Target::ALL
        .into_iter()
        .filter(|target| target.os() == Os::Windows)
        .filter_map(|target| {
            let name = format!("{}.zip", project.archive_stem(target));
            hashes
                .get(&name)
                .map(|sha| (target, name.clone(), sha.clone()))
        })
        .collect();
    let mut made = vec![
        ("SHA256SUMS".to_owned(), sums::render(&hashes)),
        ("megg.rb".to_owned(), homebrew::formula(project, &archives)),
    ];
    // Only this run's manifests: none when no released zip is here.
    let winget_dir = out.join(WINGET_DIR);
    if winget_dir.exists() {
        fs::remove_dir_all(&winget_dir)
            .with_context(|| format!("cannot remove {}", winget_dir.display()))?;
    }
    let manifests = winget::manifests(project, &zips)?;
    if !manifests.is_empty() {
        fs::create_dir_all(&winget_dir)
            .with_context(|| format!("cannot create {}", winget_dir.display()))?;
    }
    made.extend(
        manifests
            .into_iter()
            .map(|(name, text)| (format!("{WINGET_DIR}/{name}"), text)),
    );
    for (name, text) in made {
        write(&out.join(&name), text.as_bytes())?;
        sizes.push(Row {
            bytes: text.len() as u64,
            name,
        });
    }
    Ok(sizes)
}

/// Where in DIR the winget manifests go: the three files of one winget-pkgs entry.
const WINGET_DIR: &str = "winget";

/// Says which files in `out` are no artifact of this version (another version's, a stray):
/// they are left out of SHA256SUMS and the formula.
fn warn_unknown(out: &Path, known: &[String]) -> Result<()> {
    for dir in ["", "npm"] {
        let entries = fs::read_dir(out.join(dir))
            .with_context(|| format!("cannot list {}", out.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", out.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            let made_here =
                ["npm", "SHA256SUMS", "megg.rb", WINGET_DIR].contains(&relative.as_str());
            if !made_here && !known.contains(&relative) {
                eprintln!("warning: {relative} is not an artifact of this version: left out");
            }
        }
    }
    Ok(())
}

/// One artifact and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub name: String,
    pub bytes: u64,
}

/// The artifacts, their sizes in bytes and MB (10^6 bytes, as the limits are stated).
pub fn table(rows: &[Row]) -> String {
    let width = rows
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(0)
        .max("artifact".len());
    let mut text = format!("{:<width$}  {:>10}  {:>6}\n", "artifact", "bytes", "MB");
    for row in rows {
        let mb = row.bytes as f64 / 1e6;
        text.push_str(&format!(
            "{:<width$}  {:>10}  {:>6.2}\n",
            row.name, row.bytes, mb
        ));
    }
    text
}

/// The artifacts over SPEC §15's size targets, each said in a sentence. (Windows' zip is
/// deflate, which every Windows unpacks, so it is about gzip's size, not xz's.)
pub fn oversized(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter(|row| released(&row.name))
        .filter_map(|row| {
            let (limit, what) = if row.name.ends_with(".tar.xz") || row.name.ends_with(".zip") {
                (ARCHIVE_LIMIT, "a release archive")
            } else if row.name.ends_with(".tgz") {
                (NPM_LIMIT, "an npm package")
            } else {
                return None;
            };
            (row.bytes > limit).then(|| {
                format!(
                    "{} is {} bytes: {what} must stay within {} MB ({limit} bytes)",
                    row.name,
                    row.bytes,
                    limit / 1_000_000
                )
            })
        })
        .collect()
}

/// Whether the artifact `name` is one a release ships: not the mingw-w64 build's zip, made for
/// the tests under wine (its size is shown, not limited).
fn released(name: &str) -> bool {
    !Target::ALL
        .into_iter()
        .any(|target| !target.is_released() && name.ends_with(&format!("-{target}.zip")))
}

/// What a release ships as LICENSE: megg's, then the notice of the gitleaks rules the binary
/// embeds (SPEC §12; MIT asks its notice in every copy).
fn license(project: &Project) -> Result<Vec<u8>> {
    let mut text = read(&project.root.join("LICENSE"))?;
    text.extend_from_slice(
        b"\n\n---------------------------------------------------------------\n\n",
    );
    text.extend(read(&project.root.join(crate::gitleaks::OUT_NOTICE))?);
    Ok(text)
}

fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn write(path: &Path, data: &[u8]) -> Result<()> {
    fs::write(path, data).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests;
