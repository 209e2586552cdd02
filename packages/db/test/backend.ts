import pg from 'pg';

// What the connection tests share: a server dropping a connection (restart, failover, idle kill) is
// simulated by terminating the connection's backend from another session.

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';

export async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}
