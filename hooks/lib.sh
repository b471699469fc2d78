# What launch.sh and fetch.sh share: where the plugin is, its version, this
# machine's release target and where that target's binary lives. Sourced
# (`. lib.sh`) inside the scripts' subshells, so a failure here cannot end
# the hook with exit 2. POSIX sh: dash, bash (also macOS's 3.2), Git Bash.
#
# The functions set variables instead of printing, so that a stop costs no
# process but `uname` and stall-watch itself.

# Sets $root, the plugin's folder, from the path the script was started
# with ($1 = its $0, which may be relative: call before any cd).
# Backslashes (Windows) become slashes.
plugin_root() {
  root=$1
  case $root in
    *\\*) root=$(printf '%s' "$root" | tr '\\' '/') ;;
  esac
  case $root in
    */*) root=${root%/*} ;;
    *) root=. ;;
  esac
  case $root in
    /* | [A-Za-z]:*) ;;
    .) root=$PWD ;;
    *) root=$PWD/$root ;;
  esac
  root=${root%/*}
}

# Sets $version: the top-level "version" of the manifest in $1, or nothing
# when missing or not made of version characters.
plugin_version() {
  version=
  manifest=$1/.claude-plugin/plugin.json
  [ -f "$manifest" ] && [ -r "$manifest" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      *'"version"'*)
        line=${line#*'"version"'}
        line=${line#*'"'}
        version=${line%%'"'*}
        break
        ;;
    esac
  done <"$manifest"
  case $version in '' | *[!0-9A-Za-z.+-]*) version= ;; esac
}

# Sets $target, the release target of this machine (a triple of
# .github/scripts/compile.ts; nothing where there is none), and $binary,
# the binary's file name.
target_triple() {
  machine=$(uname -sm 2>/dev/null)
  os=${machine% *}
  arch=${machine##* }
  target=
  binary=stall-watch
  case $os/$arch in
    Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-gnu ;;
    Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-gnu ;;
    Darwin/x86_64) target=x86_64-apple-darwin ;;
    Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin ;;
    MINGW*/x86_64 | MSYS*/x86_64 | CYGWIN*/x86_64 | MINGW*/amd64)
      target=x86_64-pc-windows-msvc
      binary=stall-watch.exe
      ;;
  esac
}

# $1 made safe for a JSON string and the terminal: every byte outside
# printable ASCII becomes "?", and \ and " are escaped.
safe() {
  printf '%s' "$1" | LC_ALL=C tr -c ' -~' '?' | sed 's/[\\"]/\\&/g'
}
