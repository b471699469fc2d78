# stall-watch's plugin launcher: runs stall-watch for one Claude Code hook.
#
#   sh launch.sh          Stop, SubagentStop (the hook)
#   sh launch.sh watch    PostToolUse, PostToolUseFailure (the watchdog)
#
# Called through `sh`, never through the execute bit (plugin installs have
# dropped it). It starts in the project root ($CLAUDE_PROJECT_DIR), so
# stall-watch keeps its state in the project's .claude/ even after the
# session has cd-ed elsewhere, then runs, first found:
#
#   1. the release binary for this platform and this plugin's version, from
#      $CLAUDE_PLUGIN_DATA/bin/<version>/<target>/ (fetch.sh puts it there,
#      checksum verified, by an atomic rename);
#   2. the plugin's own source with Deno, offline, with exactly the release
#      permission flags (src/shared/permissions.ts; a test keeps them equal);
#   3. nothing: the stop is allowed, and the user told once per session what
#      to install.
#
# Exit codes: 2 only when stall-watch itself blocked (it exited 2 with its
# report on stderr); stall-watch's own other codes pass through; every
# failure of the launcher allows the stop (exit 0), with one line for the
# user as a JSON systemMessage. A shell that dies half-way (dash exits 2
# when it cannot source a file or on a syntax error) cannot block either:
# the work runs in a subshell whose status 2 counts as a failure, and only
# its 42 ("a real block") becomes 2.
#
# Nothing the project controls is printed: the lines name no project path,
# and what they name is passed through `safe` (lib.sh).

mode=hook
if [ "${1-}" = watch ]; then mode=watch; fi

# One line for the user (the hook only: a watcher's stdout goes nowhere).
say() {
  if [ "$mode" = hook ]; then
    printf '{"systemMessage":"stall-watch: %s"}\n' "$1"
  fi
}

launch() {
  unset CDPATH
  plugin_root "$0"
  data=${CLAUDE_PLUGIN_DATA-}
  if [ -z "${CLAUDE_PROJECT_DIR-}" ]; then
    say "CLAUDE_PROJECT_DIR is not set, so this stop was not checked (Claude Code sets it for plugin hooks; update it)"
    return 0
  fi
  if ! cd -- "$CLAUDE_PROJECT_DIR" 2>/dev/null; then
    say "cannot enter the project folder (CLAUDE_PROJECT_DIR), so this stop was not checked"
    return 0
  fi
  plugin_version "$root"
  target_triple

  # 1. The release binary, when fetch.sh installed one for this version.
  if [ -n "$data" ] && [ -n "$version" ] && [ -n "$target" ]; then
    bin=$data/bin/$version/$target/$binary
    if [ -f "$bin" ] && { [ "$binary" != stall-watch ] || [ -x "$bin" ]; }; then
      if [ "$mode" = watch ]; then set -- watch; else set --; fi
      run "$bin" "$@"
      return $?
    fi
  fi

  # 2. The plugin's source, with Deno.
  deno=
  if command -v deno >/dev/null 2>&1; then
    deno=deno
  else
    for candidate in "${DENO_INSTALL:+$DENO_INSTALL/bin/deno}" \
      "${HOME:+$HOME/.deno/bin/deno}"; do
      for name in "$candidate" "$candidate.exe"; do
        if [ -n "$candidate" ] && [ -f "$name" ]; then
          deno=$name
          break 2
        fi
      done
    done
  fi
  if [ -n "$deno" ] && [ -f "$root/main.ts" ]; then
    # --quiet: Deno's progress lines would reach the model with a report;
    # --no-config: the source needs no deno.json (nothing to fetch).
    set -- run --quiet --no-config \
      --allow-read --allow-write=.claude,.codex --allow-env --allow-run=codex --no-prompt \
      "$root/main.ts"
    if [ "$mode" = watch ]; then set -- "$@" watch; fi
    run "$deno" "$@"
    return $?
  fi

  # 3. Neither: allow, and say what to install, once per session.
  if [ "$mode" = hook ]; then
    notice "stall-watch ${version:-?} is installed but not running: no release binary for this platform in the plugin's data folder yet, and no Deno found; install Deno 2 (https://deno.com), or open a new session with network access so that the plugin fetches its binary"
  fi
  return 0
}

# Runs "$@" with stdin and stdout passed through and stderr kept in $err,
# and says what its exit code means: 42 for a block (exit 2 with
# stall-watch's report), else the code, or 0 for an exit 2 that was not
# stall-watch's.
run() {
  {
    err=$("$@" 2>&1 1>&3 3>&-)
    code=$?
  } 3>&1
  newline='
'
  if [ "$code" -eq 2 ]; then
    case $err in
      stall_watch* | *"$newline"stall_watch*)
        printf '%s\n' "$err" >&2
        return 42
        ;;
    esac
    say "$(safe "${1##*/}") exited 2 without a stall report, which is not a block, so this stop was allowed"
    return 0
  fi
  # 42 means "a block" to the caller: no other exit may look like one.
  if [ "$code" -eq 42 ]; then code=1; fi
  if [ -n "$err" ]; then printf '%s\n' "$err" >&2; fi
  return "$code"
}

# Says $1 unless this session was told already (a marker in the data folder).
notice() {
  session=${CLAUDE_CODE_SESSION_ID-}
  marker=${CLAUDE_PLUGIN_DATA-}/notified-session
  if [ -n "$session" ] && [ -d "${CLAUDE_PLUGIN_DATA-}" ]; then
    last=
    read -r last 2>/dev/null <"$marker"
    if [ "$last" = "$session" ]; then return 0; fi
    printf '%s\n' "$session" 2>/dev/null >"$marker"
  fi
  say "$1"
}

# The watchdog is opt-in (the plugin's "watchdog" option): off, a watcher
# ends here, before anything else runs.
if [ "$mode" = watch ] && [ "${CLAUDE_PLUGIN_OPTION_WATCHDOG-}" != true ]; then
  exit 0
fi

(
  case $0 in
    */* | *\\*) lib=${0%[/\\]*}/lib.sh ;;
    *) lib=./lib.sh ;;
  esac
  . "$lib" || exit 2
  launch "$@"
)
status=$?
case $status in
  0) exit 0 ;;
  42) exit 2 ;;
  2)
    say "its launcher failed, so this stop was not checked"
    exit 0
    ;;
  *) exit "$status" ;;
esac
