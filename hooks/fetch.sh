# stall-watch's plugin fetcher: puts the release binary for this platform
# and this plugin's version into the plugin's data folder, for launch.sh.
#
#   sh fetch.sh          the SessionStart hook: returns at once; when the
#                        binary is missing, starts the download in the
#                        background (a session never waits for it)
#   sh fetch.sh --now    the download itself, in the foreground
#
# From the GitHub release v<version> of the repository the plugin's
# marketplace was added from (Claude Code's known_marketplaces.json; any
# other source has no releases to fetch, and the launcher uses Deno), it
# downloads the platform's archive, checks it against the SHA-256 pinned
# for it in the plugin itself (release.sha256, written when the release
# was made; nothing from the download is trusted), unpacks the one
# executable, checks that it runs and reports this version, and only then
# renames it into $CLAUDE_PLUGIN_DATA/bin/<version>/<target>/. Anything
# else (no pin, no network, a missing release, a checksum mismatch, a cut
# download) leaves no file there: the work happens in a temporary folder
# inside the data folder, removed at the end, and a folder a killed fetch
# left behind is swept by the next one. Each outcome is one line in
# $CLAUDE_PLUGIN_DATA/fetch-status; after a failure the next try waits an
# hour (delete fetch-failed to try at once).
#
# The binary it installs runs in every project, so nothing a repository can
# set chooses it: the tools run from a fixed PATH (a repository's settings
# can set PATH for the plugin's hooks, and a committed `curl` would
# otherwise be the download), and STALL_WATCH_PLUGIN_RELEASES, which
# replaces the release URL for tests, is taken only as an
# http://127.0.0.1:<port>/... address (and even then only a pinned archive
# is installed).
#
# Bounded: curl's connect and total timeouts, size limits, and a lock
# folder so that parallel sessions fetch once. Silent on stdout and stderr
# (SessionStart's stdout would reach the model) and always exit 0.

# The system's tools only (Git Bash has them in /usr/bin too).
PATH=/usr/bin:/bin:/usr/sbin:/sbin
export PATH

# The release URL base, the archive name and the marketplace lookup.
release_base() {
  if [ -n "${STALL_WATCH_PLUGIN_RELEASES+set}" ]; then
    base=$STALL_WATCH_PLUGIN_RELEASES
    case $base in
      http://127.0.0.1:[0-9]*/*) ;;
      *) return 1 ;;
    esac
    rest=${base#http://127.0.0.1:}
    port=${rest%%/*}
    case $port in '' | *[!0-9]*) return 1 ;; esac
    case ${rest#"$port"} in *[!A-Za-z0-9._~/-]*) return 1 ;; esac
    printf '%s\n' "${base%/}"
    return 0
  fi
  repo=$(marketplace_repo "$root") || return 1
  printf '%s\n' "https://github.com/$repo/releases/download/v$version"
}

# The GitHub owner/name the plugin's marketplace was added from, when the
# plugin runs from Claude Code's cache
# (<plugins>/cache/<marketplace>/<plugin>/<version>) and the marketplace's
# recorded source is GitHub; fails otherwise.
marketplace_repo() {
  version_dir=$1
  marketplace_dir=${version_dir%/*/*}
  cache_dir=${marketplace_dir%/*}
  [ "${cache_dir##*/}" = cache ] || return 1
  known=${cache_dir%/*}/known_marketplaces.json
  [ -f "$known" ] || return 1
  found=$(awk -v want="${marketplace_dir##*/}" \
    -f "$hooks_dir/marketplace_source.awk" "$known" 2>/dev/null) || return 1
  case $found in "github "?*/?*) ;; *) return 1 ;; esac
  repo=${found#github }
  case $repo in */*/* | *..* | .* | *[!A-Za-z0-9._/-]*) return 1 ;; esac
  printf '%s\n' "$repo"
}

# Downloads $1 to $2 with at most $3 bytes, in bounded time.
download() {
  case $1 in
    https://*) set -- "$@" --proto =https --proto-redir =https ;;
    *) set -- "$@" --proto =http --max-redirs 0 ;;
  esac
  url=$1
  out=$2
  limit=$3
  shift 3
  curl -q --fail --silent --show-error --location "$@" \
    --connect-timeout 10 --max-time 300 --max-filesize "$limit" \
    --output "$out" "$url" 2>/dev/null
}

# The hex SHA-256 of file $1.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sum=$(sha256sum "$1") || return 1
  elif command -v shasum >/dev/null 2>&1; then
    sum=$(shasum -a 256 "$1") || return 1
  else
    sum=$(openssl dgst -sha256 -r "$1") || return 1
  fi
  printf '%s\n' "${sum%% *}" | tr 'A-F' 'a-f'
}

# Unpacks member $2 of archive $1 into folder $3.
unpack() {
  case $1 in
    *.zip)
      if command -v unzip >/dev/null 2>&1; then
        unzip -q -o "$1" "$2" -d "$3"
      else
        # Windows' own tar, at its fixed place (not SYSTEMROOT, which a
        # repository's settings could set).
        /c/Windows/System32/tar.exe -xf "$1" -C "$3" "$2"
      fi
      ;;
    *) tar -xzf "$1" -C "$3" "$2" ;;
  esac
}

# Records the outcome ($1: ok, or why not) for the user and the tests.
report() {
  printf '%s %s %s\n' "$version" "$target" "$1" >"$data/fetch-status.tmp" &&
    mv -f "$data/fetch-status.tmp" "$data/fetch-status"
  if [ "$1" = ok ]; then
    rm -f "$data/fetch-failed"
  else
    printf '%s\n' "$version" >"$data/fetch-failed"
  fi
}

# The download: every step checked, the binary renamed into place last.
fetch_now() {
  lock=$data/fetch.lock
  if ! mkdir "$lock" 2>/dev/null; then
    # A lock older than any download (a killed fetch) is taken over.
    [ -n "$(find "$lock" -prune -mmin +30 2>/dev/null)" ] || return 0
    rm -rf "$lock"
    mkdir "$lock" 2>/dev/null || return 0
  fi
  # With the lock held no other fetch runs: a temporary folder left here is
  # a killed fetch's (SIGKILL cannot be trapped), up to an archive's size.
  for old in "$data"/fetch.??????; do
    if [ -d "$old" ] && [ ! -h "$old" ]; then rm -rf "$old"; fi
  done
  tmp=$(mktemp -d "$data/fetch.XXXXXX") || {
    rmdir "$lock"
    return 0
  }
  trap 'rm -rf "$tmp" "$lock"' EXIT
  trap 'exit 1' HUP INT TERM
  outcome=$(fetch_into "$tmp")
  rm -rf "$tmp" "$lock"
  trap - EXIT
  report "${outcome:-failed}"
}

# Steps of fetch_now inside its temporary folder $1; prints the outcome.
fetch_into() {
  name=$binary
  case $target in
    *windows*) archive=stall-watch-$target.zip ;;
    *) archive=stall-watch-$target.tar.gz ;;
  esac
  if ! base=$(release_base); then
    echo "no release source (marketplace not from GitHub, or STALL_WATCH_PLUGIN_RELEASES refused)"
    return
  fi
  # The archive's hash as pinned in the plugin when the release was made.
  want=$(awk -v name="v$version/$archive" \
    '$2 == name { print tolower($1); exit }' \
    "$hooks_dir/release.sha256" 2>/dev/null)
  case $want in
    *[!0-9a-f]* | '') want= ;;
    *) [ ${#want} -eq 64 ] || want= ;;
  esac
  [ -n "$want" ] || {
    echo "no checksum pinned for v$version/$archive in the plugin"
    return
  }
  command -v curl >/dev/null 2>&1 || {
    echo "curl not found"
    return
  }
  download "$base/$archive" "$1/$archive" 268435456 || {
    echo "cannot download $archive"
    return
  }
  got=$(sha256_of "$1/$archive")
  [ "$got" = "$want" ] || {
    echo "checksum mismatch for $archive"
    return
  }
  mkdir "$1/unpacked" && unpack "$1/$archive" "$name" "$1/unpacked" \
    >/dev/null 2>&1 || {
    echo "cannot unpack $archive"
    return
  }
  unpacked=$1/unpacked/$name
  if [ -h "$unpacked" ] || [ ! -f "$unpacked" ]; then
    echo "no executable $name in $archive"
    return
  fi
  chmod 755 "$unpacked" 2>/dev/null
  said=$(cd "$1" && "$unpacked" --version </dev/null 2>/dev/null)
  [ "$said" = "stall-watch $version" ] || {
    echo "the binary does not run here or is not version $version"
    return
  }
  dest=$data/bin/$version/$target
  mkdir -p "$dest" && mv -f "$unpacked" "$dest/$name" || {
    echo "cannot write $dest"
    return
  }
  # Older versions' binaries go (a running one keeps its open file).
  for old in "$data/bin"/*; do
    [ "$old" = "$data/bin/$version" ] || rm -rf "$old" 2>/dev/null
  done
  echo ok
}

main() {
  plugin_root "$0"
  data=${CLAUDE_PLUGIN_DATA-}
  plugin_version "$root"
  target_triple
  [ -n "$data" ] && [ -d "$data" ] && [ -n "$version" ] && [ -n "$target" ] ||
    return 0
  [ -f "$data/bin/$version/$target/$binary" ] && return 0
  if [ "${1-}" = --now ]; then
    fetch_now
    return 0
  fi
  # After a failure, wait an hour before the next try.
  if [ -f "$data/fetch-failed" ] &&
    [ -n "$(find "$data/fetch-failed" -mmin -60 2>/dev/null)" ]; then
    return 0
  fi
  # In the background, detached from the hook's output: the session goes on.
  nohup /bin/sh "$0" --now </dev/null >/dev/null 2>&1 &
  return 0
}

(
  case $0 in
    */* | *\\*) hooks_dir=${0%[/\\]*} ;;
    *) hooks_dir=. ;;
  esac
  . "$hooks_dir/lib.sh" || exit 0
  main "$@"
) </dev/null >/dev/null 2>&1
exit 0
