import { randomBytes } from 'node:crypto';
import { startTestServer } from '/work/wt-model/reference-server/testing.ts';
import { merchantPair } from '/work/wt-model/conformance/merchant-pairs.ts';
import { runSuite } from '/work/wt-model/conformance/run.ts';
const secret = `whsec_${randomBytes(24).toString('base64')}`;
const pairs = []; const merchants = [];
for (let i = 0; i < 4; i++) { const { pair, merchants: both } = await merchantPair('smk', i, i < 2 ? 1 : 2, secret); pairs.push(pair); merchants.push(...both); }
const server = await startTestServer({ merchants, mode: 'sandbox' });
const only = process.argv[2];
let total = 0;
for (const [i, variant, profile] of [[0,1,'sandbox'],[2,2,'sandbox'],[1,1,'core'],[3,2,'core']] as const) {
  if (only && only !== `${variant}${profile}`) continue;
  const p = pairs[i]!; const t0 = Date.now();
  const r = await runSuite({ baseUrl: server.baseUrl, apiKey: p.main, otherApiKey: p.other, variant, profile, runs: Number(process.env.RUNS ?? 3), seed: Number(process.env.SEED ?? 1), maxCommands: 15, paymentWindowSeconds: 1800,
    webhookPort: profile === 'sandbox' ? p.port : undefined, webhookSecret: profile === 'sandbox' ? secret : undefined, webhookGraceMs: 60 });
  total += r.findings.length;
  console.log(`v${variant} ${profile}: ${r.findings.length} findings, ${r.checks} checks, missing transitions ${JSON.stringify(r.coverage.transitions.missing)}, ${Date.now()-t0} ms`);
  for (const f of r.findings.slice(0, 3)) console.log(`  ${f.phase}: ${f.message}\n  ${f.commands.join('\n  ')}`);
}
await server.close();
console.log('TOTAL', total);
process.exit(0);
