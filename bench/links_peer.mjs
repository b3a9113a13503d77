// Times the npm reference package `llm-link-provenance` on the same files as
// bench/links_bench.py: for every file, buildAllowlist([text]) (the allowlist
// is the document's own URLs) then enforceLinkProvenance(text, allowlist).
// Usage: node links_peer.mjs <package dir> <passes> <file>...  (best of <passes>; the first warms the JIT)
// Prints one JSON object: {"bytes", "seconds" (best of repeats), "removed", "links_removed_by_file"}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [pkgDir, repeatsArg, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(pkgDir), "package.json"));
const { buildAllowlist, enforceLinkProvenance } = await import(
  require.resolve("llm-link-provenance"));

const texts = files.map((f) => readFileSync(f, "utf8"));
const bytes = files.reduce((n, f) => n + readFileSync(f).length, 0);
const repeats = Number(repeatsArg) || 3;
let best = Infinity;
let removed = 0;
const removedByFile = {};
for (let r = 0; r < repeats; r += 1) {
  removed = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < texts.length; i += 1) {
    const allowlist = buildAllowlist([texts[i]]);
    const result = enforceLinkProvenance(texts[i], allowlist);
    removed += result.removedLinks.length;
    if (r === 0 && result.removedLinks.length) {
      removedByFile[path.basename(files[i])] = result.removedLinks;
    }
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  best = Math.min(best, seconds);
}
process.stdout.write(JSON.stringify({ bytes, seconds: best, removed, removed_by_file: removedByFile }) + "\n");
