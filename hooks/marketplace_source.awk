# Prints the recorded source of one marketplace in Claude Code's
# known_marketplaces.json, as "<source> <repo>" (e.g. "github o/r"), read
# from <want>.source.source and <want>.source.repo:
#
#   awk -v want=stall-watch -f marketplace_source.awk known_marketplaces.json
#
# A small JSON reader for that one path: strings, objects and arrays are
# followed, other values skipped. Escapes are kept as written, so a value
# with one fails the caller's character check. Prints nothing when the
# marketplace or its source is not there. POSIX awk (mawk, BSD, busybox).
{ text = text $0 "\n" }
END {
  n = length(text); i = 1; depth = 0; expect_key = 0
  while (i <= n) {
    c = substr(text, i, 1)
    if (c == "{" || c == "[") {
      depth++; type[depth] = c; key[depth] = ""; expect_key = (c == "{")
      i++
    } else if (c == "}" || c == "]") {
      if (depth > 0) depth--
      i++
    } else if (c == ",") {
      expect_key = (type[depth] == "{"); i++
    } else if (c == ":") {
      expect_key = 0; i++
    } else if (c == "\"") {
      j = i + 1; value = ""
      while (j <= n) {
        d = substr(text, j, 1)
        if (d == "\\") { value = value substr(text, j, 2); j += 2; continue }
        if (d == "\"") break
        value = value d; j++
      }
      i = j + 1
      if (expect_key) { key[depth] = value; expect_key = 0; continue }
      if (depth == 3 && key[1] == want && key[2] == "source") {
        if (key[3] == "source") source = value
        if (key[3] == "repo") repo = value
      }
    } else {
      i++
    }
  }
  if (source != "") print source " " repo
}
