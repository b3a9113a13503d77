// Times the npm reference package `llm-link-provenance` on the same files as
// bench/links_bench.py: for every file, buildAllowlist([text]) (the allowlist
// is the document's own URLs) then enforceLinkProvenance(text, allowlist).
// Usage: node links_peer.mjs <package dir> <passes> <file>...
// Runs <passes> passes over all files in this one process (the first warms the
// JIT) and prints one JSON object: {"bytes", "seconds" (best wall time of a
// pass), "cpu_seconds" (best process CPU time of a pass), "removed"}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [pkgDir, passesArg, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(pkgDir), "package.json"));
const { buildAllowlist, enforceLinkProvenance } = await import(
  require.resolve("llm-link-provenance"));

const texts = files.map((f) => readFileSync(f, "utf8"));
const bytes = files.reduce((n, f) => n + readFileSync(f).length, 0);
const passes = Number(passesArg) || 2;
let best = Infinity;
let bestCpu = Infinity;
let removed = 0;
for (let r = 0; r < passes; r += 1) {
  removed = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (const text of texts) {
    const allowlist = buildAllowlist([text]);
    removed += enforceLinkProvenance(text, allowlist).removedLinks.length;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  best = Math.min(best, seconds);
  bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1e6);
}
process.stdout.write(JSON.stringify({ bytes, seconds: best, cpu_seconds: bestCpu, removed }) + "\n");
