import assert from "node:assert/strict";
import * as node from "node:path";
import fc from "fast-check";
import {
  basename,
  dirname,
  isAbsolute,
  isDeviceName,
  isDriveRelative,
  isInside,
  join,
  joinPath,
  NATIVE,
  networkPathReason,
  normalize,
  POSIX,
  relativePath,
  resolvePath,
  stepsBelow,
  WINDOWS,
} from "../../src/shared/paths.ts";

Deno.test("paths agree with node:path on POSIX paths", () => {
  const samples = [
    "/a/b",
    "/a//b/./c/..",
    "a/b",
    "../x",
    "/",
    ".",
    "a/../../b",
    "/a/b/",
    "/..",
    ".claude/stall_watch",
  ];
  for (const p of samples) {
    assert.equal(isAbsolute(p, POSIX), node.posix.isAbsolute(p), p);
    assert.equal(
      normalize(p, POSIX),
      node.posix.normalize(p).replace(/(.)\/$/, "$1"),
      p,
    );
    assert.equal(
      resolvePath("/work/proj", p, POSIX),
      node.posix.resolve("/work/proj", p),
      p,
    );
    assert.equal(
      dirname(resolvePath("/w", p, POSIX), POSIX),
      node.posix.dirname(node.posix.resolve("/w", p)),
      p,
    );
    assert.equal(
      basename(resolvePath("/w", p, POSIX), POSIX),
      node.posix.basename(node.posix.resolve("/w", p)),
      p,
    );
  }
});

Deno.test("paths agree with node:path on Windows paths", () => {
  const samples = [
    "C:\\a\\b",
    "c:/a/b/../c",
    "a\\b",
    "..\\x",
    "\\\\server\\share\\dir\\f",
    "\\rooted\\x",
    ".claude\\stall_watch",
  ];
  for (const p of samples) {
    assert.equal(isAbsolute(p, WINDOWS), node.win32.isAbsolute(p), p);
    const ours = resolvePath("C:\\work\\proj", p, WINDOWS);
    assert.equal(
      ours.toLowerCase(),
      node.win32.resolve("C:\\work\\proj", p).toLowerCase(),
      p,
    );
  }
  assert.equal(
    joinPath(WINDOWS, "C:\\proj", ".claude/stall_watch", "s.json"),
    "C:\\proj\\.claude\\stall_watch\\s.json",
  );
  assert.equal(
    dirname("C:\\proj\\.claude\\x.json", WINDOWS),
    "C:\\proj\\.claude",
  );
  assert.equal(basename("C:\\proj\\.claude\\x.json", WINDOWS), "x.json");
});

Deno.test("stepsBelow() and isInside() confine paths, case-insensitively on Windows", () => {
  assert.deepEqual(stepsBelow("/p/.claude", "/p/.claude/a/b", POSIX), [
    "a",
    "b",
  ]);
  assert.deepEqual(stepsBelow("/p/.claude", "/p/.claude", POSIX), []);
  assert.equal(stepsBelow("/p/.claude", "/p/.claude-evil/x", POSIX), null);
  assert.equal(isInside("/p/.claude", "/p/.claude/../x", POSIX), false);
  assert.equal(isInside("/p/.claude", "/p/.CLAUDE/x", POSIX), false);
  assert.equal(isInside("C:\\p\\.claude", "c:\\P\\.Claude\\x", WINDOWS), true);
  assert.equal(isInside("C:\\p\\.claude", "D:\\p\\.claude\\x", WINDOWS), false);
});

Deno.test("relativePath() agrees with node:path's relative on absolute paths", () => {
  const posix = ["/", "/a", "/a/b", "/a/b/c", "/a/bc", "/x/y", "/a/b/../d/"];
  for (const from of posix) {
    for (const to of posix) {
      assert.equal(
        relativePath(from, to, POSIX),
        node.posix.relative(from, to),
        `${from} -> ${to}`,
      );
    }
  }
  const windows = [
    "C:\\",
    "C:\\a",
    "C:\\a\\b",
    "C:\\A\\B\\c",
    "C:/a/bc",
    "D:\\a\\b",
    "\\\\server\\share\\dir",
    "\\\\server\\share\\dir\\f",
    "\\\\other\\share\\dir",
  ];
  for (const from of windows) {
    for (const to of windows) {
      assert.equal(
        relativePath(from, to, WINDOWS),
        node.win32.relative(from, to),
        `${from} -> ${to}`,
      );
    }
  }
});

Deno.test("join() and basename() with a suffix agree with node:path", () => {
  const joins = [
    ["/a", "b"],
    ["a", "b/../c", "d"],
    ["/a/", "/b"],
    ["", ""],
    [".claude/stall_watch", "watch"],
    ["/home/me/.config", "claude", "projects"],
  ];
  for (const segments of joins) {
    assert.equal(
      joinPath(POSIX, ...segments),
      node.posix.join(...segments),
      segments.join(" + "),
    );
  }
  assert.equal(join("a", "b"), joinPath(NATIVE, "a", "b"));
  const names = [
    ["/p/s.jsonl", ".jsonl"],
    ["/p/s.jsonl/", ".jsonl"],
    ["/p/s.json", ".jsonl"],
    ["/p/.jsonl", ".jsonl"],
    ["s.jsonl", ""],
  ];
  for (const [path, suffix] of names) {
    assert.equal(
      basename(path!, suffix!, POSIX),
      node.posix.basename(path!, suffix),
      `${path} ${suffix}`,
    );
  }
  assert.equal(
    basename("C:\\p\\agent-1.jsonl", ".jsonl", WINDOWS),
    node.win32.basename("C:\\p\\agent-1.jsonl", ".jsonl"),
  );
});

/** Path segments, `.` and `..` among them, joined by either separator, doubled or not. */
const relativeTail = fc.array(
  fc.tuple(
    fc.constantFrom("a", "B", "c d", ".claude", ".", "..", "x.jsonc"),
    fc.constantFrom("\\", "/", "\\\\", "//"),
  ),
  { maxLength: 5 },
).map((parts) => parts.map(([segment, sep]) => segment + sep).join(""));

const drive = fc.constantFrom("C:", "c:", "D:", "z:");
// Not `\\?\C:`: Node makes `\\?\` alone the device of such a path (and
// `\x` against it `\\?\x`), which is not what Windows does; resolvePath
// keeps `\\?\C:\` as the root, like a share, and confinement refuses it.
const share = fc.constantFrom(
  "\\\\server\\share",
  "//host/proj$",
  "\\\\srv\\C$",
);

/** Windows bases of the three kinds: drive, UNC share, and driveless (`\proj`). */
const windowsBase = fc.oneof(
  fc.tuple(drive, relativeTail).map(([d, tail]) => `${d}\\${tail}`),
  fc.tuple(share, relativeTail).map(([s, tail]) => `${s}\\${tail}`),
  relativeTail.map((tail) => `\\${tail}`),
);

/** Every kind of Windows path a config or a link may hold. */
const windowsPath = fc.oneof(
  relativeTail,
  relativeTail.map((tail) => `\\${tail}`), // root-relative
  relativeTail.map((tail) => `/${tail}`),
  fc.tuple(drive, relativeTail).map(([d, tail]) => `${d}\\${tail}`),
  fc.tuple(drive, relativeTail).map(([d, tail]) => d + tail), // drive-relative
  fc.tuple(share, relativeTail).map(([s, tail]) => `${s}/${tail}`),
  fc.constantFrom("\\\\server", "\\\\\\a\\b", "/nonexistent/x.jsonc"),
);

const UNC = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]/;
const driveOf = (p: string) => /^[A-Za-z]:/.exec(p)?.[0].toUpperCase() ?? null;

/**
 * `node:path`'s `win32.resolve(base, path)` with the drive letter
 * upper-cased. A base without a device is resolved as if on `C:` and the
 * `C:` taken off again when the result stayed there: Node would fill in the
 * device of the current folder, which differs between hosts.
 */
function nodeResolve(base: string, path: string): string {
  const upper = (p: string) => p.replace(/^[a-z]:/, (d) => d.toUpperCase());
  if (UNC.test(base) || driveOf(base) || driveOf(path)) {
    return upper(node.win32.resolve(base, path));
  }
  const onC = node.win32.resolve(`C:${base}`, path);
  return onC.startsWith("C:") ? onC.slice(2) : onC;
}

Deno.test("resolvePath() agrees with node:path's win32.resolve on drive, UNC and driveless bases", () => {
  fc.assert(
    fc.property(windowsBase, windowsPath, (base, path) => {
      // A drive-relative path on another drive than the base's: Node asks
      // the environment for that drive's current folder (examples below).
      const driveRelative = /^[A-Za-z]:(?![\\/])/.test(path);
      const baseDevice = driveOf(base) ?? (UNC.test(base) ? "unc" : null);
      fc.pre(
        !driveRelative || baseDevice === null || baseDevice === driveOf(path),
      );
      assert.equal(resolvePath(base, path, WINDOWS), nodeResolve(base, path));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("resolvePath() keeps a Windows path on its base's device", () => {
  const cases: [string, string, string][] = [
    // A config path from the environment against a driveless base: a
    // rooted file on the same (unknown) drive, never a UNC share.
    ["\\proj", "/nonexistent/x.jsonc", "\\nonexistent\\x.jsonc"],
    // A project on a network share keeps its share.
    ["\\\\server\\share\\proj", "\\x", "\\\\server\\share\\x"],
    ["\\\\server\\share\\proj", ".claude", "\\\\server\\share\\proj\\.claude"],
    ["\\\\server\\share\\proj", "..\\..\\..", "\\\\server\\share\\"],
    ["C:\\proj", "\\x", "C:\\x"],
    ["c:\\proj", "C:.claude", "C:\\proj\\.claude"],
    // Another drive's current folder is unknown: its root.
    ["C:\\proj", "D:.claude", "D:\\.claude"],
    // A verbatim path's root stays whole (Node would keep `\\?\` only).
    ["\\\\?\\C:\\proj", "\\x", "\\\\?\\C:\\x"],
  ];
  for (const [base, path, expected] of cases) {
    assert.equal(
      resolvePath(base, path, WINDOWS),
      expected,
      `${base} + ${path}`,
    );
  }
});

Deno.test("isDeviceName() knows Windows' device names in any case, with any extension and trailing dots or spaces, and nothing else", () => {
  for (
    const name of [
      "CON",
      "con",
      "PRN.txt",
      "aux.tar.gz",
      "NUL",
      "nul.",
      "NUL:",
      "COM1.log",
      "com9",
      "COM¹",
      "LPT1",
      "lpt9 .x",
      "lpt3...  ",
      "CONIN$",
      "conout$.log",
    ]
  ) assert.equal(isDeviceName(name), true, name);
  for (
    const name of [
      "CONSOLE",
      "COM10",
      "LPT",
      "xcon",
      "events.jsonl",
      "_CON.json",
      "stall_watch",
      "con_x",
    ]
  ) assert.equal(isDeviceName(name), false, name);
});

Deno.test("networkPathReason() and isDriveRelative() read a path's text in either platform's spelling", () => {
  for (
    const text of [
      "//host/share",
      "\\\\host\\share",
      "/\\host",
      "\\\\?\\UNC\\host\\s",
      "\\\\?\\C:\\x",
      "\\\\.\\pipe\\x",
      "\\??\\C:\\x",
    ]
  ) assert.notEqual(networkPathReason(text), null, text);
  for (const text of ["/tmp/x", "C:\\x", "x", "\\x", ".claude/off"]) {
    assert.equal(networkPathReason(text), null, text);
  }
  assert.equal(isDriveRelative("C:x"), true);
  assert.equal(isDriveRelative("c:..\\x"), true);
  assert.equal(isDriveRelative("C:\\x"), false);
  assert.equal(isDriveRelative("C:/x"), false);
  assert.equal(isDriveRelative("x:"), true);
});
