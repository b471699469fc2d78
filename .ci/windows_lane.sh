#!/usr/bin/env bash
# The Windows lane: stall-watch run as it runs on Windows, by the Windows
# build of Deno under Wine 10 (docs/development.md, "The Windows lane").
#
#   bash .ci/windows_lane.sh [setup|smoke|suite|all]     (default: all)
#
# setup  Wine 10 from Debian 13 (trixie), unpacked beside the system, and
#        Windows Deno from npm, cached in $STALL_WATCH_WINE_CACHE
#        (~/.cache/stall-watch/wine-lane): about 1 GB, 1-2 minutes the first
#        time, nothing the next. Needs apt-get (root) and patchelf.
# smoke  the hook with the release permission flags on Windows paths: a
#        stalled turn is blocked, a healthy one allowed, state only in .claude.
# suite  the unit suite (tests/, without the real-client tiers tests/claude_code/
#        and tests/codex_cli/) under Windows
#        Deno; a test that cannot run there is ignored with where and why in
#        its name (tests/support/platform.ts), and a skip without fails.
#
# Exit 0 when the lane passed, 1 when it failed, 3 when it could not be set
# up (the reason in one line on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."

DENO_VERSION=2.9.6
W=${STALL_WATCH_WINE_CACHE:-$HOME/.cache/stall-watch/wine-lane}
R="$W/root"
L="$R/usr/lib/x86_64-linux-gnu"
WINE="$W/wine"
DENO_EXE="$W/deno-$DENO_VERSION/package/deno.exe"
# Bump when the recipe changes, so a cache built by an older one is rebuilt.
RECIPE=1

say() { echo "windows lane: $*" >&2; }
cannot() {
  say "not set up: $*"
  exit 3
}

# ---- setup ------------------------------------------------------------------

# Debian's mirror as this machine's apt already uses it.
debian_mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
    /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -v '^[[:space:]]*#' |
    grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n 1 | tr -d ' ' || true
}

setup_wine() {
  command -v apt-get >/dev/null 2>&1 || cannot "no apt-get (Wine 10 comes from Debian's registry)"
  export DEBIAN_FRONTEND=noninteractive
  # Bookworm's wine64 brings the host libraries Wine loads at run time
  # (gnutls, freetype...) and /usr/share/wine; patchelf rewires trixie's.
  if ! command -v patchelf >/dev/null 2>&1 || [ ! -d /usr/share/wine ]; then
    { apt-get install -y --no-install-recommends wine64 patchelf ||
      { apt-get update && apt-get install -y --no-install-recommends wine64 patchelf; }; } \
      >"$W/apt.log" 2>&1 || cannot "apt-get install wine64 patchelf failed (see $W/apt.log)"
  fi
  local mirror
  mirror=$(debian_mirror)
  [ -n "$mirror" ] || cannot "no Debian mirror in this machine's apt sources"
  rm -rf "$W/apt" "$W/debs" "$R"
  mkdir -p "$W"/{apt/lists/partial,apt/cache/archives/partial,debs,root}
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/} trixie main" \
    >"$W/apt/sources.list"
  local O=(-o Dir::Etc::sourcelist="$W/apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
    -o Dir::State::Lists="$W/apt/lists" -o Dir::Cache="$W/apt/cache")
  apt-get "${O[@]}" update >>"$W/apt.log" 2>&1 || cannot "apt-get update of Debian 13 failed (see $W/apt.log)"
  (cd "$W/debs" && apt-get "${O[@]}" download wine64 libwine libc6 libunwind8 libgcc-s1 libz-mingw-w64) \
    >>"$W/apt.log" 2>&1 || cannot "downloading Wine 10 from Debian 13 failed (see $W/apt.log)"
  for deb in "$W"/debs/*.deb; do dpkg -x "$deb" "$R"; done
  # Trixie's Wine needs trixie's glibc: its own loader and RUNPATH, never
  # LD_LIBRARY_PATH (Wine starts /bin/sh, which would load it too and die).
  local bin so
  for bin in "$R"/usr/lib/wine/wine64 "$R"/usr/lib/wine/wineserver64; do
    patchelf --set-interpreter "$R/usr/lib64/ld-linux-x86-64.so.2" --set-rpath "$L" "$bin"
  done
  for so in "$L"/wine/x86_64-unix/*.so; do patchelf --set-rpath "$L" "$so"; done
  # Else the wrapper starts bookworm's Wine 8 server: "version mismatch".
  sed -i "s#/usr/lib/wine/#$R/usr/lib/wine/#g" "$R/usr/lib/wine/wineserver"
  # libwine's postinst step: zlib1.dll marked as a Wine builtin, else user32
  # fails to load.
  local zlib="$R/usr/x86_64-w64-mingw32/lib/zlib1.dll"
  { head -c 64 "$zlib"; printf 'Wine builtin DLL'; head -c 16 /dev/zero; tail -c +97 "$zlib"; } \
    >"$L/wine/x86_64-windows/zlib1.dll"
  rm -rf "$W/debs" "$W/apt"
}

setup_deno() {
  command -v npm >/dev/null 2>&1 || cannot "no npm (Windows Deno comes from npm's @deno/win32-x64)"
  rm -rf "$W/deno-$DENO_VERSION"
  mkdir -p "$W/deno-$DENO_VERSION"
  (cd "$W/deno-$DENO_VERSION" &&
    npm pack --silent "@deno/win32-x64@$DENO_VERSION" >/dev/null &&
    tar xzf deno-win32-x64-*.tgz && rm deno-win32-x64-*.tgz) >"$W/npm.log" 2>&1 ||
    cannot "npm pack @deno/win32-x64@$DENO_VERSION failed (see $W/npm.log)"
}

write_wrapper() {
  cat >"$WINE" <<EOF
#!/bin/sh
# Wine 10 from Debian 13, unpacked in $R (.ci/windows_lane.sh).
# With TMPDIR set, any Windows program dies at start in glibc ("free():
# invalid pointer"); Windows programs use the prefix's TEMP anyway.
unset TMPDIR
export WINESERVER=$R/usr/lib/wine/wineserver64 WINELOADER=$R/usr/lib/wine/wine64
export WINEPREFIX=\${WINEPREFIX:-$W/prefix} WINEDEBUG=\${WINEDEBUG:--all}
export WINEDLLOVERRIDES=\${WINEDLLOVERRIDES:-mscoree,mshtml=}
# Windows Deno links itself as node.exe in its cache at each start when no
# node is on PATH; under Wine concurrent starts race that link and each
# loser leaves a 93 MB copy behind (about 100 per lane run, 39 GB seen).
export DENO_DISABLE_NODE_SHIM=1
exec $R/usr/lib/wine/wine64 "\$@"
EOF
  chmod +x "$WINE"
}

# What earlier runs left in a cached prefix: the 93 MB node.exe copies of
# lanes before DENO_DISABLE_NODE_SHIM, and test folders Wine could not
# remove. One lane at a time uses a prefix, so none of it is in use.
sweep_prefix() {
  local users="${WINEPREFIX:-$W/prefix}/drive_c/users"
  rm -f "$users"/*/AppData/Local/deno/node_compat_bin/node.exe.tmp-* 2>/dev/null || true
  rm -rf "$users"/*/AppData/Local/Temp/stall-watch-* 2>/dev/null || true
}

setup() {
  mkdir -p "$W"
  local stamp="$W/ready" want="recipe=$RECIPE"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "setting up Wine 10 in $W (about 1 GB, once)"
    rm -f "$stamp"
    setup_wine
    echo "$want" >"$stamp"
  fi
  write_wrapper
  sweep_prefix
  [ -f "$DENO_EXE" ] || setup_deno
  # The first start creates the Wine prefix (a few seconds).
  local version
  version=$("$WINE" "$DENO_EXE" --version 2>"$W/first-start.log" | head -n 1) ||
    cannot "Windows Deno does not start under Wine (see $W/first-start.log)"
  case "$version" in
    "deno $DENO_VERSION "*) ;;
    *) cannot "Windows Deno printed '$version', expected deno $DENO_VERSION" ;;
  esac
  say "$version (Windows) under $("$WINE" --version 2>/dev/null)"
}

# ---- runs -------------------------------------------------------------------

# Windows Deno under Wine, from the repository root (Wine maps / to Z:).
windows_deno() { "$WINE" "$DENO_EXE" "$@"; }

# The hook with the release permission flags on Windows paths (Z:\...\main.ts,
# a C:\ temp project, payloads naming Windows paths): --version, a stalled
# turn blocked with exit 2 and its state only in .claude, a healthy one
# allowed, a usage error (.github/scripts/smoke_test.ts).
smoke() {
  say "smoke: the hook from source under Windows Deno"
  windows_deno run --allow-read --allow-write --allow-run --allow-env --no-prompt \
    .github/scripts/smoke_test.ts --source
}

# The unit suite under Windows Deno. Its output goes to a log; shown here:
# the summary, every skipped test with its reason, and the failures.
suite() {
  local log status=0
  log=$(mktemp "${TMPDIR:-/tmp}/windows-lane-suite.XXXXXX")
  say "suite: deno test under Windows Deno (about 4 minutes; full output in $log)"
  # Type-checked on Linux already: --no-check saves a minute under Wine.
  windows_deno test --no-check --allow-read --allow-write --allow-run --allow-env \
    --allow-net=127.0.0.1 --ignore=tests/claude_code/,tests/codex_cli/ tests/ >"$log" 2>&1 || status=$?
  local plain
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  # Every skip, grouped by its reason.
  echo "$plain" | grep -E ' \.\.\. ignored' | sed -E 's/ \.\.\. ignored.*//' |
    sed -E 's/^(.*) \[(skipped [^]]*)\]$/\2\t\1/; t; s/^ *(.*)$/skipped step: its name says why\t\1/' |
    sort -s -t "$(printf '\t')" -k1,1 |
    awk -F '\t' '$1 != last { print "windows lane: " $1 ":"; last = $1 } { print "    " $2 }' >&2 || true
  # A skip must say why: "[skipped <where>: <why>]" in its name, or a
  # step named for the reason (tests/support/platform.ts).
  local silent
  silent=$(echo "$plain" | grep -E '^[^ ].* \.\.\. ignored' | grep -v '\[skipped ' || true)
  if [ -n "$silent" ]; then
    say "FAIL: skipped without a reason in the name:"
    echo "$silent" >&2
    status=1
  fi
  if [ "$status" -ne 0 ]; then
    echo "$plain" | sed -n '/^ ERRORS/,$p' | head -n 200 >&2
  fi
  echo "$plain" | grep -E '^(ok|FAILED) \|' | sed 's/^/windows lane: suite: /' >&2
  return "$status"
}

case "${1:-all}" in
  setup) setup ;;
  smoke) setup && smoke ;;
  suite) setup && suite ;;
  all)
    started=$SECONDS
    setup
    status=0
    smoke || status=1
    suite || status=1
    say "$([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
    exit "$status"
    ;;
  *)
    echo "usage: bash .ci/windows_lane.sh [setup|smoke|suite|all]" >&2
    exit 64
    ;;
esac
