/**
 * Tries to write each path given on the command line and prints, as JSON,
 * which writes the runtime allowed. Run under the release permission flags
 * to show that writes outside `.claude` are impossible, not merely avoided.
 *
 * @module
 */

const results: Record<string, string> = {};
for (const path of Deno.args) {
  try {
    await Deno.writeTextFile(path, "x");
    results[path] = "written";
  } catch (error) {
    results[path] = error instanceof Error ? error.name : "error";
  }
}
console.log(JSON.stringify(results));
