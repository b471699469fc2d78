/**
 * The one path library, POSIX and Windows alike, the style a parameter. Not
 * `node:path`: a `node:` import costs about 25 ms of CPU at every stop.
 *
 * @example
 * ```ts
 * resolvePath("C:\\work", "\\x", WINDOWS); // "C:\\x"
 * stepsBelow("/p", "/p/.claude/s"); // [".claude", "s"]
 * ```
 *
 * @module
 */

/** How paths are spelled on a platform. */
export interface PathStyle {
  sep: "/" | "\\";
  /** Backslashes separate too; drives and UNC roots; case is ignored. */
  windows: boolean;
}

/** POSIX paths. */
export const POSIX: PathStyle = Object.freeze({ sep: "/", windows: false });
/** Windows paths. */
export const WINDOWS: PathStyle = Object.freeze({ sep: "\\", windows: true });
/** The style of the running platform. */
export const NATIVE: PathStyle = Deno.build.os === "windows" ? WINDOWS : POSIX;

/** Splits a path into its root (`/`, `C:\`, `\\server\share\`, or "") and the rest. */
function splitRoot(path: string, style: PathStyle): [string, string] {
  if (!style.windows) {
    return path.startsWith("/") ? ["/", path.slice(1)] : ["", path];
  }
  const unc = /^[\\/]{2}([^\\/]+)[\\/]+([^\\/]+)[\\/]*/.exec(path);
  if (unc) return [`\\\\${unc[1]}\\${unc[2]}\\`, path.slice(unc[0].length)];
  const drive = /^[A-Za-z]:/.exec(path);
  if (drive) {
    const rest = path.slice(2);
    const rooted = /^[\\/]/.test(rest);
    return [
      `${drive[0].toUpperCase()}${rooted ? "\\" : ""}`,
      rooted ? rest.slice(1) : rest,
    ];
  }
  return /^[\\/]/.test(path) ? ["\\", path.slice(1)] : ["", path];
}

/** Whether `path` is absolute (Windows: has a drive and root, or is UNC or root-relative). */
export function isAbsolute(path: string, style: PathStyle = NATIVE): boolean {
  const [root] = splitRoot(path, style);
  return root !== "" && !(style.windows && /^[A-Za-z]:$/.test(root));
}

/** Collapses separators, `.` and `..` (never above the root). */
export function normalize(path: string, style: PathStyle = NATIVE): string {
  const [root, rest] = splitRoot(path, style);
  const parts: string[] = [];
  for (const part of rest.split(style.windows ? /[\\/]+/ : /\/+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length > 0 && parts.at(-1) !== "..") parts.pop();
      else if (root === "") parts.push("..");
    } else parts.push(part);
  }
  const joined = parts.join(style.sep);
  return root + joined || (root === "" ? "." : root);
}

/** Joins segments with the separator and normalises. */
export function joinPath(style: PathStyle, ...segments: string[]): string {
  return normalize(segments.filter((s) => s !== "").join(style.sep), style);
}

/**
 * `path` made absolute against the absolute `base`, as `node:path`'s
 * `resolve(base, path)`; on Windows `D:x` starts at `D:\` unless `base` is on `D:`.
 */
export function resolvePath(
  base: string,
  path: string,
  style: PathStyle = NATIVE,
): string {
  const [root, rest] = splitRoot(path, style);
  if (root === "") return below(base, path, style);
  if (!style.windows || isAbsolute(path, style) && root !== "\\") {
    return normalize(path, style);
  }
  const device = deviceOf(base);
  if (root === "\\") return below(`${device}\\`, rest, style);
  // Drive-relative: `root` is a drive letter and a colon.
  if (device === "") return below(root + base, rest, style);
  return below(device === root ? base : `${root}\\`, rest, style);
}

/** `tail` below `base`, joined after the root so `\` and `x` never make a UNC path. */
function below(base: string, tail: string, style: PathStyle): string {
  const [root, rest] = splitRoot(base, style);
  const joined = `${rest}${style.sep}${tail}`;
  return normalize(
    root + joined.replace(style.windows ? /^[\\/]+/ : /^\/+/, ""),
    style,
  );
}

/** The drive (`C:`) or UNC share (`\\server\share`) of a Windows path, or "". */
function deviceOf(path: string): string {
  const [root] = splitRoot(path, WINDOWS);
  return root === "\\" ? "" : root.replace(/\\$/, "");
}

/** The folder part of a path. */
export function dirname(path: string, style: PathStyle = NATIVE): string {
  const [root, rest] = splitRoot(normalize(path, style), style);
  const cut = rest.lastIndexOf(style.sep);
  if (cut < 0) return root || ".";
  return root + rest.slice(0, cut);
}

/** The last segment of a path. */
export function basename(path: string, style?: PathStyle): string;
/** The last segment of a path, without `suffix` (`basename("/a/b.jsonl", ".jsonl")`). */
export function basename(
  path: string,
  suffix: string,
  style?: PathStyle,
): string;
export function basename(
  path: string,
  suffixOrStyle?: string | PathStyle,
  lastStyle: PathStyle = NATIVE,
): string {
  const suffix = typeof suffixOrStyle === "string" ? suffixOrStyle : "";
  const style = typeof suffixOrStyle === "object" ? suffixOrStyle : lastStyle;
  const [, rest] = splitRoot(normalize(path, style), style);
  const cut = rest.lastIndexOf(style.sep);
  const name = cut < 0 ? rest : rest.slice(cut + 1);
  return suffix !== "" && name !== suffix && name.endsWith(suffix)
    ? name.slice(0, -suffix.length)
    : name;
}

/** The segments from `root` down to `path` (absolute), or `null` when not below; Windows ignores case. */
export function stepsBelow(
  root: string,
  path: string,
  style: PathStyle = NATIVE,
): string[] | null {
  const a = normalize(root, style);
  const b = normalize(path, style);
  const fold = (s: string) => style.windows ? s.toLowerCase() : s;
  if (fold(a) === fold(b)) return [];
  const prefix = a.endsWith(style.sep) ? a : a + style.sep;
  if (!fold(b).startsWith(fold(prefix))) return null;
  return b.slice(prefix.length).split(style.sep);
}

/** True when `path` is `root` or below it (both absolute). */
export function isInside(
  root: string,
  path: string,
  style: PathStyle = NATIVE,
): boolean {
  return stepsBelow(root, path, style) !== null;
}

/** Joins segments in the running platform's style (see {@link joinPath}). */
export function join(...segments: string[]): string {
  return joinPath(NATIVE, ...segments);
}

/** The path from folder `from` to `to` (absolute; `""` for the same, `to` on another Windows drive). */
export function relativePath(
  from: string,
  to: string,
  style: PathStyle = NATIVE,
): string {
  const fold = (s: string) => style.windows ? s.toLowerCase() : s;
  const [fromRoot, fromRest] = splitRoot(normalize(from, style), style);
  const [toRoot, toRest] = splitRoot(normalize(to, style), style);
  if (fold(fromRoot) !== fold(toRoot)) return normalize(to, style);
  const up = fromRest === "" ? [] : fromRest.split(style.sep);
  const down = toRest === "" ? [] : toRest.split(style.sep);
  let shared = 0;
  while (
    shared < up.length && shared < down.length &&
    fold(up[shared] as string) === fold(down[shared] as string)
  ) shared++;
  return [
    ...up.slice(shared).map(() => ".."),
    ...down.slice(shared),
  ].join(style.sep);
}

/** Why a path's text names a network share or device namespace, or `null`: on Windows a look sends the NTLM hash. */
export function networkPathReason(text: string): string | null {
  if (/^[\\/]{2}/.test(text)) {
    return "it is a network or device path (\\\\host, //host, \\\\?\\, \\\\.\\)";
  }
  if (/^\\\?\?\\/.test(text)) return "it is a device path (\\??\\)";
  return null;
}

/** Whether `text` is drive-relative (`C:x`: from a current folder no process knows). */
export function isDriveRelative(text: string): boolean {
  return /^[A-Za-z]:(?![\\/])/.test(text);
}

/** Windows' device names, any case and extension (`COM1.log` opens a serial port). */
const DEVICE_NAME =
  /^(?:CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|CLOCK\$|COM[0-9\u00b9\u00b2\u00b3]|LPT[0-9\u00b9\u00b2\u00b3]) *(?:[.:].*)?$/i;

/** Whether a name is a Windows device name: checked on every platform, as one config serves all. */
export function isDeviceName(name: string): boolean {
  return DEVICE_NAME.test(name.replace(/[. ]+$/, ""));
}
