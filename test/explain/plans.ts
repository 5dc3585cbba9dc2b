import type { Client } from 'pg';

/** The tables a hot statement must never read whole. */
export const BIG_TABLES = ['Delivery', 'Notification', 'Device'] as const;

/** A statement to plan, with parameters as its caller binds them. */
export interface PlannedStatement {
  name: string;
  text: string;
  values: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every sequential scan of one of `tables` in a plan (EXPLAIN's JSON). */
export function seqScans(plan: PlanNode, tables: readonly string[] = BIG_TABLES): string[] {
  const own = plan['Node Type'] === 'Seq Scan' && plan['Relation Name'] && tables.includes(plan['Relation Name']) ? [plan['Relation Name']] : [];
  return [...own, ...(plan.Plans ?? []).flatMap((p) => seqScans(p, tables))];
}

/** Plans `s` as its caller runs it (bound parameters: a custom plan) and answers the big tables it scans. */
export async function scansOf(client: Client, s: PlannedStatement): Promise<string[]> {
  return seqScans(await planOf(client, s));
}

async function planOf(client: Client, s: PlannedStatement): Promise<PlanNode> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${s.text}`, s.values);
  return rows[0]['QUERY PLAN'][0].Plan;
}

/** Every table a plan reads (EXPLAIN's JSON), scanned however. */
export function relations(plan: PlanNode): string[] {
  return [...(plan['Relation Name'] ? [plan['Relation Name']] : []), ...(plan.Plans ?? []).flatMap(relations)];
}

/** The tables `s` reads, as planned. */
export async function relationsOf(client: Client, s: PlannedStatement): Promise<string[]> {
  return [...new Set(relations(await planOf(client, s)))].sort();
}
