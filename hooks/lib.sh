# What launch.sh and fetch.sh share: where the plugin is, its version, this
# machine's release target and where that target's binary lives. Sourced
# (`. lib.sh`) inside the scripts' subshells, so a failure here cannot end
# the hook with exit 2. POSIX sh: dash, bash (also macOS's 3.2), Git Bash.

# The plugin's folder, from the path the script was started with ($1 =
# its $0, which may be relative: call before any cd). Backslashes (Windows)
# become slashes.
plugin_root() {
  script=$1
  case $script in
    *\\*) script=$(printf '%s' "$script" | tr '\\' '/') ;;
  esac
  case $script in
    */*) dir=${script%/*} ;;
    *) dir=. ;;
  esac
  case $dir in
    /* | [A-Za-z]:*) ;;
    .) dir=$(pwd) ;;
    *) dir=$(pwd)/$dir ;;
  esac
  printf '%s\n' "${dir%/*}"
}

# The plugin's version: the top-level "version" of its manifest, or nothing
# when missing or not made of version characters.
plugin_version() {
  v=$(sed -n '/"version"/{s/.*"version"[^"]*"\([^"]*\)".*/\1/p;q;}' \
    "$1/.claude-plugin/plugin.json" 2>/dev/null)
  case $v in '' | *[!0-9A-Za-z.+-]*) return 0 ;; esac
  printf '%s\n' "$v"
}

# The release target of this machine (a triple of
# .github/scripts/compile.ts), or nothing where there is none.
target_triple() {
  machine=$(uname -sm 2>/dev/null)
  os=${machine% *}
  arch=${machine##* }
  case $os in
    Linux)
      case $arch in
        x86_64 | amd64) echo x86_64-unknown-linux-gnu ;;
        aarch64 | arm64) echo aarch64-unknown-linux-gnu ;;
      esac
      ;;
    Darwin)
      case $arch in
        x86_64) echo x86_64-apple-darwin ;;
        arm64 | aarch64) echo aarch64-apple-darwin ;;
      esac
      ;;
    MINGW* | MSYS* | CYGWIN*)
      case $arch in
        x86_64 | amd64) echo x86_64-pc-windows-msvc ;;
      esac
      ;;
  esac
}

# The binary's file name for a target.
binary_name() {
  case $1 in
    *windows*) echo stall-watch.exe ;;
    *) echo stall-watch ;;
  esac
}

# Where the binary of version $2 for target $3 lives in data folder $1.
binary_path() {
  printf '%s\n' "$1/bin/$2/$3/$(binary_name "$3")"
}

# $1 made safe for a JSON string and the terminal: every byte outside
# printable ASCII becomes "?", and \ and " are escaped.
safe() {
  printf '%s' "$1" | LC_ALL=C tr -c ' -~' '?' | sed 's/[\\"]/\\&/g'
}
