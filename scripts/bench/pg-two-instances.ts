/**
 * Figure: B1 creates/s through a round-robin proxy in front of two `paylater serve` processes
 * on one PostgreSQL database ÷ the same proxy in front of one (reported). Everything (the
 * database, the instances, the proxy and the load) shares this machine's cores, so the figure
 * shows what a second instance adds here, not on separate machines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrateUrl } from '../../reference-server/store/postgres/migrate.ts';
import { roundRobinProxy, startInstance, type Instance, type Proxy } from '../../reference-server/test-support/pg-instances.ts';
import { clusterOrReason, createsPerSecond } from './pg-tools.ts';
import { fmt, median, WARMUP_SECONDS, type Figure } from './tools.ts';

export const pgTwoInstances: Figure = {
  id: 'pg-two-instances',
  title: 'B1 creates/s, two instances on one PostgreSQL ÷ one',
  target: 'report',
  async run(ctx) {
    const cluster = await clusterOrReason();
    if (typeof cluster === 'string') return { ratio: null, detail: '', reason: cluster };
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-pg2-'));
    const instances: Instance[] = [];
    const proxies: Proxy[] = [];
    try {
      const url = await cluster.createDatabase();
      await migrateUrl(url);
      instances.push(...(await Promise.all([0, 1].map(() => startInstance({ databaseUrl: url, dir, args: ['--no-auth-throttle'] })))));
      const one = await roundRobinProxy(() => [instances[0]!.baseUrl]);
      const two = await roundRobinProxy(() => instances.map((i) => i.baseUrl));
      proxies.push(one, two);
      const connections = ctx.connections * 2;
      await createsPerSecond(one.baseUrl, WARMUP_SECONDS, connections);
      await createsPerSecond(two.baseUrl, WARMUP_SECONDS, connections);
      const ones: number[] = [];
      const twos: number[] = [];
      for (let i = 0; i < ctx.rounds; i++) {
        ones.push(await createsPerSecond(one.baseUrl, ctx.durationSeconds, connections));
        twos.push(await createsPerSecond(two.baseUrl, ctx.durationSeconds, connections));
      }
      const a = median(ones);
      const b = median(twos);
      return {
        ratio: b / a,
        detail: `two instances ${fmt(b)} creates/s ÷ one ${fmt(a)} creates/s, both behind the round-robin proxy (medians of ${ctx.rounds} rounds of ${ctx.durationSeconds} s, ${connections} connections)`,
      };
    } finally {
      for (const p of proxies) await p.close();
      await Promise.allSettled(instances.map((i) => i.stop()));
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
