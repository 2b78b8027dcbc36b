/**
 * Figure: B1 creates/s of one server on PostgreSQL ÷ the same server on the embedded store
 * (SQLite on a database file, the default), in alternating rounds, medians (target ≥ 0.5). PostgreSQL runs in a
 * throwaway cluster on this machine (fsync on), so the figure includes its commits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPgRepository } from '../../reference-server/store/postgres/pg-repository.ts';
import { openSqliteRepository } from '../../reference-server/store/sqlite/sqlite-repository.ts';
import { clusterOrReason, createsPerSecond, serveOn, type Served } from './pg-tools.ts';
import { fmt, median, WARMUP_SECONDS, type Figure } from './tools.ts';

export const pgB1Creates: Figure = {
  id: 'pg-b1-creates',
  title: 'B1 creates/s on PostgreSQL ÷ on the SQLite store',
  target: '≥ 0.5',
  pass: (r) => r >= 0.5,
  async run(ctx) {
    const cluster = await clusterOrReason();
    if (typeof cluster === 'string') return { ratio: null, detail: '', reason: cluster };
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-pg-'));
    const servers: Served[] = [];
    try {
      const file = await serveOn(await openSqliteRepository({ file: path.join(dir, 'paylater.db') }));
      servers.push(file);
      const pg = await serveOn(await openPgRepository({ url: await cluster.createDatabase() }));
      servers.push(pg);
      await createsPerSecond(file.base, WARMUP_SECONDS, ctx.connections);
      await createsPerSecond(pg.base, WARMUP_SECONDS, ctx.connections);
      const onFile: number[] = [];
      const onPg: number[] = [];
      for (let i = 0; i < ctx.rounds; i++) {
        onFile.push(await createsPerSecond(file.base, ctx.durationSeconds, ctx.connections));
        onPg.push(await createsPerSecond(pg.base, ctx.durationSeconds, ctx.connections));
      }
      const f = median(onFile);
      const p = median(onPg);
      return {
        ratio: p / f,
        detail: `PostgreSQL ${fmt(p)} creates/s ÷ SQLite store ${fmt(f)} creates/s (medians of ${ctx.rounds} rounds of ${ctx.durationSeconds} s, ${ctx.connections} connections; rounds: ${onPg.map((x) => fmt(x)).join(', ')} vs ${onFile.map((x) => fmt(x)).join(', ')})`,
      };
    } finally {
      for (const s of servers) await s.stop();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
