/**
 * What a migration's Up section does that the release still running could trip on. The chart runs every
 * service's migrations in a pre-upgrade hook, before any pod rolls (docs/operators.md, "Migrations"), so
 * for the minutes of the rollout the old release works on the migrated schema: a table, view, column,
 * function or constraint it uses must still be there, under its name and type. Such a statement is a
 * contract step, allowed only a release after the code stopped using what it removes, and then said so in
 * the file: a comment line `-- Contract: <what goes>, unused since <the release or migration>`.
 */

/** Statements that remove or rename something, empty a table, or change a column's type. */
const DESTRUCTIVE =
  /\b(DROP\s+(TABLE|VIEW|MATERIALIZED\s+VIEW|FUNCTION|TRIGGER|INDEX|COLUMN|CONSTRAINT|TYPE|SCHEMA)\b|RENAME\b|ALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b)|^\s*TRUNCATE\b/i;

export interface MigrationReview {
  /** The Up section's destructive statements, one line each as written. */
  destructive: string[];
  /** The file's `-- Contract:` lines. */
  contracts: string[];
}

export function reviewMigration(sql: string): MigrationReview {
  const down = sql.search(/^--\s*Down Migration/im);
  const up = down === -1 ? sql : sql.slice(0, down);
  const destructive: string[] = [];
  const contracts: string[] = [];
  for (const line of up.split('\n')) {
    const contract = /^\s*--\s*Contract:\s*(.+)$/i.exec(line);
    if (contract) contracts.push(contract[1]!.trim());
    const code = line.replace(/--.*$/, '');
    if (DESTRUCTIVE.test(code)) destructive.push(code.trim());
  }
  return { destructive, contracts };
}
