/**
 * Preloaded into a benched Mailroom (`node --import`): counts every statement the pg driver sends
 * (each one a round trip to PostgreSQL, BEGIN and COMMIT included) and, on SIGUSR2, prints
 * `pg-statements <count>` on stdout for bench:cluster, which reads the difference over the timed run.
 * PostgreSQL keeps no per-database statement count without pg_stat_statements preloaded server-side.
 */
import pg from 'pg';

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  statements += 1;
  return query.apply(this, args);
};
process.on('SIGUSR2', () => process.stdout.write(`pg-statements ${statements}\n`));
