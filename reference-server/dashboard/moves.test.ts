/**
 * The dashboard offers on a transaction only the moves x-state-machine allows from its status
 * (ADR-045): each button is a transition's sandbox operation on that transaction, with the
 * statuses it moves from (the page shows a button only on a transaction in one of them).
 */
import express from 'express';
import { describe, expect, it } from 'vitest';
import { stateMachine } from '../../generated/index.ts';
import { createDashboardRouter, dashboardMoves } from './router.ts';

describe('the dashboard reads the state machine', () => {
  it('offers confirm and cancel from PENDING, complete from APPROVED, nothing from another status', () => {
    expect(dashboardMoves()).toEqual([
      { action: 'confirm', operationId: 'sandboxConfirmTransaction', from: ['PENDING'] },
      { action: 'cancel', operationId: 'sandboxCancelTransaction', from: ['PENDING'] },
      { action: 'complete', operationId: 'sandboxCompleteTransaction', from: ['APPROVED'] },
    ]);
    const offered = (status: string) =>
      dashboardMoves()
        .filter((m) => m.from.includes(status))
        .map((m) => m.action);
    expect(offered('APPROVED')).toEqual(['complete']);
    for (const s of Object.keys(stateMachine.states).filter((x) => x !== 'PENDING' && x !== 'APPROVED')) expect(offered(s)).toEqual([]);
  });

  it('renders one button per move, hidden until a transaction in one of its statuses is shown', async () => {
    const app = express().use(createDashboardRouter('/nonexistent'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as { port: number };
      const html = await (await fetch(`http://127.0.0.1:${port}/dashboard`)).text();
      const buttons = [...html.matchAll(/<button type="button" data-action="([a-z-]+)" data-from="([A-Z ]+)" hidden>/g)].map((m) => [
        m[1],
        m[2],
      ]);
      expect(buttons).toEqual([
        ['confirm', 'PENDING'],
        ['cancel', 'PENDING'],
        ['complete', 'APPROVED'],
      ]);
    } finally {
      server.close();
    }
  });
});
