#!/bin/sh
# megg installer: downloads the prebuilt megg for this machine from a release, checks its
# SHA-256 sum, and installs it into ~/.local/bin (SPEC §15). Never uses sudo.
#
#   curl -fsSL https://github.com/megg-dev/megg/releases/latest/download/install.sh | sh
#
# Settings (environment):
#   MEGG_INSTALL_DIR   where `megg` goes (default: $HOME/.local/bin)
#   MEGG_VERSION       a release to install, e.g. 1.2.3 (default: the latest)
#   MEGG_INSTALL_BASE  the URL holding SHA256SUMS and the archives (default: the release;
#                      a mirror holding several versions gets MEGG_VERSION's, else the first)
#
# It installs the binary only: the man page and shell completions are in the same archive
# (man/, completions/) for whoever wants them, and `megg man` / `megg completions <shell>`
# print them.
#
# Everything runs inside main(), called on the last line, so a download cut short executes
# nothing.

# The one place the release is named (Cargo.toml's `repository`).
MEGG_REPO_URL="https://github.com/megg-dev/megg"

set -eu

tmp_dir=""
staged=""

cleanup() {
	if [ -n "$staged" ]; then
		rm -f "$staged"
	fi
	if [ -n "$tmp_dir" ]; then
		rm -rf "$tmp_dir"
	fi
}

say() {
	printf '%s\n' "$*"
}

# error MESSAGE [HINT]: says why on stderr and exits 1 (the EXIT trap removes what was made).
error() {
	printf 'error: %s\n' "$1" >&2
	if [ $# -gt 1 ]; then
		printf 'hint: %s\n' "$2" >&2
	fi
	exit 1
}

# The Rust target triple of this machine's release archive.
detect_target() {
	os=$(uname -s 2>/dev/null || echo unknown)
	arch=$(uname -m 2>/dev/null || echo unknown)
	case "$os" in
		Linux)
			case "$arch" in
				x86_64 | amd64) target=x86_64-unknown-linux-musl ;;
				aarch64 | arm64) target=aarch64-unknown-linux-musl ;;
				*) unsupported "$os" "$arch" ;;
			esac
			;;
		Darwin)
			case "$arch" in
				x86_64 | amd64)
					# An x86_64 shell under Rosetta on Apple silicon: the native build is faster.
					if [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
						target=aarch64-apple-darwin
					else
						target=x86_64-apple-darwin
					fi
					;;
				arm64 | aarch64) target=aarch64-apple-darwin ;;
				*) unsupported "$os" "$arch" ;;
			esac
			;;
		*) unsupported "$os" "$arch" ;;
	esac
}

unsupported() {
	case "$1" in
		# Git Bash, MSYS2 and Cygwin: megg.exe is installed by install.ps1 (SPEC 15.1), which
		# this shell can start.
		MINGW* | MSYS* | CYGWIN* | Windows*)
			error "install.sh installs megg on Linux and macOS, not on Windows ($1 $2)" \
				"install megg.exe with install.ps1, from this shell too: powershell -NoProfile -ExecutionPolicy Bypass -Command \"irm $MEGG_REPO_URL/releases/latest/download/install.ps1 | iex\" (or npm i -g megg)"
			;;
		*)
			error "megg has no prebuilt binary for $1 $2" \
				"build it from source with Rust (https://rustup.rs): cargo install --locked megg"
			;;
	esac
}

# Sets `base` from MEGG_INSTALL_BASE or MEGG_VERSION, and `secure` (whether curl may only
# speak https).
choose_base() {
	if [ -n "${MEGG_INSTALL_BASE:-}" ]; then
		base=$MEGG_INSTALL_BASE
	elif [ -n "${MEGG_VERSION:-}" ]; then
		base="$MEGG_REPO_URL/releases/download/v${MEGG_VERSION#v}"
	else
		base="$MEGG_REPO_URL/releases/latest/download"
	fi
	while :; do
		case "$base" in
			*/) base=${base%/} ;;
			*) break ;;
		esac
	done
	case "$base" in
		https://*) secure=1 ;;
		# Plain http only to this machine (a local mirror, the tests).
		http://127.0.0.1 | http://127.0.0.1[:/]* | http://localhost | http://localhost[:/]* | http://\[::1\]*) secure=0 ;;
		*)
			error "MEGG_INSTALL_BASE must be an https:// URL, not $base" \
				"plain http is accepted only for 127.0.0.1 and localhost"
			;;
	esac
}

choose_downloader() {
	if command -v curl >/dev/null 2>&1; then
		downloader=curl
	elif command -v wget >/dev/null 2>&1; then
		downloader=wget
	else
		error "neither curl nor wget is installed, so nothing can be downloaded" \
			"install curl (e.g. apt-get install curl, or your system's package manager) and run this again"
	fi
}

# download URL FILE: fails with the downloader's own reason.
download() {
	url=$1
	file=$2
	log="$tmp_dir/download.log"
	if [ "$downloader" = curl ]; then
		if [ "$secure" = 1 ]; then
			set -- --proto =https --tlsv1.2
		else
			set --
		fi
		curl -fsSL "$@" -o "$file" "$url" 2>"$log" || download_failed curl
	else
		# GNU wget says why it failed with -nv; busybox wget knows only -q.
		set -- -q
		if wget --help 2>&1 | grep -q -- --no-verbose; then
			set -- -nv
			if [ "$secure" = 1 ] && wget --help 2>&1 | grep -q -- --https-only; then
				set -- -nv --https-only
			fi
		fi
		wget "$@" -O "$file" "$url" 2>"$log" || download_failed wget
	fi
}

download_failed() {
	why=$(tail -n 1 "$log" 2>/dev/null || true)
	error "could not download $url (${why:-$1 failed})" \
		"check the network and that the release exists; MEGG_VERSION=x.y.z picks a release, MEGG_INSTALL_BASE another server"
}

# sha256 FILE: prints the file's SHA-256 in lowercase hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		out=$(sha256sum <"$1") || return 1
	elif command -v shasum >/dev/null 2>&1; then
		out=$(shasum -a 256 <"$1") || return 1
	elif command -v openssl >/dev/null 2>&1; then
		out=$(openssl dgst -sha256 <"$1") || return 1
		out=${out##*= }
	else
		error "no SHA-256 tool found (sha256sum, shasum or openssl), so the download cannot be verified" \
			"install coreutils (sha256sum) or perl (shasum) and run this again"
	fi
	out=${out%% *}
	printf '%s\n' "$out" | tr 'A-F' 'a-f'
}

# Sets `archive` and `expected` from SHA256SUMS: the line naming this target's archive in
# the first format of $formats that has one. The version is in the name, so the script
# needs not know it.
pick_archive() {
	archive=""
	expected=""
	want=${MEGG_VERSION:-}
	want=${want#v}
	for format in $formats; do
		while read -r sum name || [ -n "$sum" ]; do
			name=${name#\*}
			case "$name" in
				*/* | *..*) continue ;;
				megg-${want:-*}-"$target".tar."$format") ;;
				*) continue ;;
			esac
			case "$sum" in
				*[!0-9a-fA-F]*) continue ;;
			esac
			[ ${#sum} -eq 64 ] || continue
			archive=$name
			expected=$(printf '%s\n' "$sum" | tr 'A-F' 'a-f')
			return 0
		done <"$tmp_dir/SHA256SUMS"
	done
	error "the release at $base has no megg archive for $target" \
		"see $MEGG_REPO_URL/releases for the platforms it supports; elsewhere: cargo install --locked megg"
}

extract() {
	mkdir "$tmp_dir/x"
	if [ "$os" = Darwin ]; then
		# bsdtar reads .tar.xz and .tar.gz by itself.
		tar -xf "$tmp_dir/$archive" -C "$tmp_dir/x" 2>"$tmp_dir/tar.log" || extract_failed
	elif [ "$format" = xz ]; then
		xz -dc "$tmp_dir/$archive" >"$tmp_dir/megg.tar" 2>"$tmp_dir/tar.log" || extract_failed
		tar -xf "$tmp_dir/megg.tar" -C "$tmp_dir/x" 2>"$tmp_dir/tar.log" || extract_failed
	else
		tar -xzf "$tmp_dir/$archive" -C "$tmp_dir/x" 2>"$tmp_dir/tar.log" || extract_failed
	fi
	new="$tmp_dir/x/${archive%.tar.*}/megg"
	if [ ! -f "$new" ]; then
		error "$archive does not hold ${archive%.tar.*}/megg" \
			"the release looks broken; please report it at $MEGG_REPO_URL/issues"
	fi
}

extract_failed() {
	why=$(tail -n 1 "$tmp_dir/tar.log" 2>/dev/null || true)
	error "could not extract $archive${why:+ ($why)}" \
		"check that tar and $([ "$format" = xz ] && echo xz || echo gzip) work and that $tmp_dir's file system has room"
}

# A shell-specific line that puts DIR on PATH.
path_hint() {
	case "${SHELL:-}" in
		*/fish) say "  fish_add_path $1" ;;
		*/zsh) say "  echo 'export PATH=\"$1:\$PATH\"' >> ~/.zshrc && exec zsh" ;;
		*/bash)
			# macOS's Terminal starts login shells, which read ~/.bash_profile, not ~/.bashrc.
			rc=~/.bashrc
			[ "$(uname -s 2>/dev/null)" = Darwin ] && rc=~/.bash_profile
			say "  echo 'export PATH=\"$1:\$PATH\"' >> $rc && exec bash"
			;;
		*) say "  echo 'export PATH=\"$1:\$PATH\"' >> ~/.profile   (then log in again)" ;;
	esac
}

main() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 129' HUP
	trap 'exit 143' TERM

	detect_target
	choose_base
	choose_downloader

	if [ -n "${MEGG_INSTALL_DIR:-}" ]; then
		dir=$MEGG_INSTALL_DIR
	elif [ -n "${HOME:-}" ]; then
		dir="$HOME/.local/bin"
	else
		error "HOME is not set, so there is no ~/.local/bin to install into" \
			"set MEGG_INSTALL_DIR to the directory megg should go into"
	fi

	# Before anything is downloaded: a tool missing is said now, not after the download.
	sha256 /dev/null >/dev/null

	tmp_dir=$(mktemp -d 2>/dev/null || mktemp -d -t megg-install) ||
		error "could not create a temporary directory" "set TMPDIR to a writable directory"

	# xz archives are smaller; bsdtar on macOS reads them without an xz program.
	if [ "$os" = Darwin ] || command -v xz >/dev/null 2>&1; then
		formats="xz gz"
	else
		formats="gz"
	fi

	download "$base/SHA256SUMS" "$tmp_dir/SHA256SUMS"
	pick_archive
	download "$base/$archive" "$tmp_dir/$archive"

	# Verified before anything is extracted or installed.
	actual=$(sha256 "$tmp_dir/$archive") ||
		error "could not compute the SHA-256 of $archive" "check that sha256sum (or shasum) works"
	if [ "$actual" != "$expected" ]; then
		error "checksum mismatch for $archive: SHA256SUMS says $expected, the download is $actual" \
			"the download was corrupted or tampered with; nothing was installed. Try again, and report it at $MEGG_REPO_URL/issues if it persists"
	fi

	extract
	chmod 755 "$new"
	# stdin is the rest of this script under `curl | sh`: not the binary's to read. A temporary
	# directory mounted noexec fails this; the staged copy below is then what is tried.
	version=$("$new" --version </dev/null 2>/dev/null) || version=""

	if [ -d "$dir/megg" ]; then
		error "$dir/megg is a directory" "remove it, or set MEGG_INSTALL_DIR to another directory"
	fi
	mkdir -p "$dir" 2>/dev/null ||
		error "could not create $dir" "set MEGG_INSTALL_DIR to a directory you can write to (this installer never uses sudo)"
	# Atomic in place: a copy beside the old binary, renamed over it.
	staged="$dir/.megg.tmp.$$"
	if ! cp "$new" "$staged" 2>/dev/null || ! chmod 755 "$staged"; then
		error "could not write to $dir" "set MEGG_INSTALL_DIR to a directory you can write to (this installer never uses sudo)"
	fi
	if [ -z "$version" ]; then
		version=$("$staged" --version </dev/null 2>/dev/null) ||
			error "the downloaded megg does not run on this machine ($target)" \
				"please report it at $MEGG_REPO_URL/issues; meanwhile: cargo install --locked megg"
	fi
	version=${version#megg }
	mv -f "$staged" "$dir/megg" ||
		error "could not replace $dir/megg" "check the permissions of $dir"
	staged=""

	say "megg $version installed to $dir/megg"
	case ":${PATH:-}:" in
		*":$dir:"* | *":$dir/:"*)
			found=$(command -v megg 2>/dev/null || true)
			if [ -n "$found" ] && [ "$found" != "$dir/megg" ]; then
				say "note: $found comes first on PATH; remove it or move $dir ahead of it"
			fi
			;;
		*)
			say "$dir is not on PATH; to add it:"
			path_hint "$dir"
			;;
	esac
}

main "$@"
