import assert from "node:assert/strict";
import * as node from "node:path";
import {
  basename,
  dirname,
  isAbsolute,
  isInside,
  join,
  joinPath,
  NATIVE,
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
