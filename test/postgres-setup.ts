import type { TestProject } from 'vitest/node';
import { startCluster } from './helpers/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a throw-away PostgreSQL cluster for this test run: its superuser's URL (test/helpers/postgres.ts) */
    postgresUrl: string;
    /** the directory of its Unix socket */
    postgresSocketDir: string;
  }
}

/** One PostgreSQL server for the end-to-end tier, started once and stopped when the run ends. */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  project.provide('postgresSocketDir', cluster.socketDir);
  return () => cluster.stop();
}
