//! What the release is made of, read once from the root package's Cargo.toml (through
//! `cargo metadata`): the version, and the repository every download URL derives from — the
//! one place the release repository is named.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::target::Target;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The workspace root: README.md, LICENSE, CHANGELOG.md, install.sh and .ci/ are here.
    pub root: PathBuf,
    /// Where cargo builds (`target/` unless CARGO_TARGET_DIR says otherwise).
    pub target_dir: PathBuf,
    pub version: String,
    /// `https://github.com/OWNER/NAME`, no trailing slash.
    pub repository: String,
    pub homepage: String,
    pub description: String,
    pub license: String,
}

impl Project {
    /// Runs `cargo metadata` for the workspace this xtask belongs to.
    pub fn load() -> Result<Project> {
        Project::from_metadata(&metadata()?)
    }

    /// The root package of `cargo metadata`'s document.
    pub fn from_metadata(metadata: &Value) -> Result<Project> {
        let text = |value: &Value, key: &str| -> Result<String> {
            value
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .with_context(|| format!("cargo metadata has no '{key}'"))
        };
        let root = PathBuf::from(text(metadata, "workspace_root")?);
        let manifest = root.join("Cargo.toml");
        let package = metadata
            .get("packages")
            .and_then(Value::as_array)
            .and_then(|packages| {
                packages.iter().find(|p| {
                    p.get("manifest_path")
                        .and_then(Value::as_str)
                        .map(Path::new)
                        == Some(manifest.as_path())
                })
            })
            .context("cargo metadata lists no package at the workspace root")?;
        let field = |key: &str| {
            text(package, key).with_context(|| format!("Cargo.toml's [package] needs '{key}'"))
        };
        let repository = field("repository")?.trim_end_matches('/').to_owned();
        let homepage = text(package, "homepage").unwrap_or_else(|_| repository.clone());
        Ok(Project {
            target_dir: PathBuf::from(text(metadata, "target_directory")?),
            root,
            version: field("version")?,
            repository,
            homepage,
            description: field("description")?,
            license: field("license")?,
        })
    }

    /// `OWNER` and `NAME` of the GitHub repository: the Homebrew tap and the release URLs are
    /// GitHub's.
    pub fn github(&self) -> Result<(&str, &str)> {
        let path = self
            .repository
            .strip_prefix("https://github.com/")
            .with_context(|| format!("repository {} is not on GitHub", self.repository))?;
        match path.split_once('/') {
            Some((owner, name)) if !owner.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok((owner, name))
            }
            _ => bail!(
                "repository {} is not https://github.com/OWNER/NAME",
                self.repository
            ),
        }
    }

    /// `megg-1.1.0-x86_64-unknown-linux-musl`: the archive's name without extension, and its
    /// top directory.
    pub fn archive_stem(&self, target: Target) -> String {
        format!("megg-{}-{target}", self.version)
    }

    /// Where a release asset of this version is downloaded from.
    pub fn release_url(&self, file: &str) -> String {
        format!(
            "{}/releases/download/v{}/{file}",
            self.repository, self.version
        )
    }

    /// Where the newest release's asset is downloaded from.
    pub fn latest_url(&self, file: &str) -> String {
        format!("{}/releases/latest/download/{file}", self.repository)
    }

    /// `brew install` argument: the formula in the owner's `homebrew-tap` repository.
    pub fn brew_formula(&self) -> Result<String> {
        let (owner, _) = self.github()?;
        Ok(format!("{owner}/tap/megg"))
    }
}

/// A project as the tests want it: megg-dev/megg at 1.1.0, rooted at `root`.
/// `cargo metadata --no-deps` for the workspace this xtask belongs to, as JSON.
pub fn metadata() -> Result<Value> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .context("cannot run cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata printed no JSON")?;
    Ok(metadata)
}

#[cfg(test)]
pub fn fixture(root: &Path) -> Project {
    Project {
        root: root.to_owned(),
        target_dir: root.join("target"),
        version: "1.1.0".into(),
        repository: "https://github.com/megg-dev/megg".into(),
        homepage: "https://github.com/megg-dev/megg".into(),
        description: "Continuity for AI coding agents: .megg context, session state handoff".into(),
        license: "MIT".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_root_package_is_read_from_cargo_metadata() {
        let metadata = json!({
            "workspace_root": "/src/megg",
            "target_directory": "/src/megg/target",
            "packages": [
                {"name": "xtask", "version": "0.0.0", "manifest_path": "/src/megg/xtask/Cargo.toml"},
                {
                    "name": "megg", "version": "1.2.3", "manifest_path": "/src/megg/Cargo.toml",
                    "repository": "https://github.com/someone/megg/", "homepage": null,
                    "description": "d", "license": "MIT"
                }
            ]
        });
        let project = Project::from_metadata(&metadata).unwrap();
        assert_eq!(project.version, "1.2.3");
        assert_eq!(project.repository, "https://github.com/someone/megg");
        assert_eq!(project.homepage, "https://github.com/someone/megg");
        assert_eq!(project.target_dir, Path::new("/src/megg/target"));
        assert_eq!(project.brew_formula().unwrap(), "someone/tap/megg");
        assert_eq!(
            project.release_url("SHA256SUMS"),
            "https://github.com/someone/megg/releases/download/v1.2.3/SHA256SUMS"
        );
    }

    #[test]
    fn a_root_package_without_a_repository_is_refused() {
        let metadata = json!({
            "workspace_root": "/m", "target_directory": "/m/target",
            "packages": [{"name": "megg", "version": "1.0.0", "manifest_path": "/m/Cargo.toml",
                          "description": "d", "license": "MIT"}]
        });
        let err = format!("{:#}", Project::from_metadata(&metadata).unwrap_err());
        assert!(err.contains("needs 'repository'"), "{err}");
    }

    #[test]
    fn this_workspace_names_its_repository_in_cargo_toml() {
        let project = Project::load().unwrap();
        let cli = <megg::cli::Cli as clap::CommandFactory>::command();
        assert_eq!(Some(project.version.as_str()), cli.get_version());
        assert!(project.github().is_ok(), "{}", project.repository);
        assert!(project.root.join("Cargo.toml").is_file());
    }
}
