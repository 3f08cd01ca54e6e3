// A throwaway PostgreSQL server for tests (CLARIFICATIONS F): Debian's `postgresql` binaries, a
// temporary data directory, a free local port, trust auth on 127.0.0.1 only, durability knobs off
// (fsync) since the data dies with the test run. PostgreSQL refuses to run as root, so as root the
// server runs as the `postgres` user (created by the Debian package) or `nobody`, owning its data
// directory; as a normal user it runs as that user. Missing binaries are installed with apt-get
// when this process may (root, or passwordless sudo), else `postgresBinDir` fails with one line
// saying what to install.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { aptInstall, setupFailure } from './provision.js';

const PG_ROOT = '/usr/lib/postgresql';
export const INSTALL_HINT =
  'PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: install them with `apt-get install postgresql` (or set SPICA_PG_BIN to their directory)';

function findBinDir(): string | null {
  const fromEnv = process.env.SPICA_PG_BIN;
  if (fromEnv) return existsSync(path.join(fromEnv, 'initdb')) ? fromEnv : null;
  if (!existsSync(PG_ROOT)) return null;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(path.join(PG_ROOT, v, 'bin', 'initdb')) && existsSync(path.join(PG_ROOT, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(PG_ROOT, versions[0], 'bin') : null;
}

/** The directory holding initdb/pg_ctl, installing Debian's postgresql first when missing and possible. */
export function postgresBinDir(log: (line: string) => void = () => undefined): string {
  let dir = findBinDir();
  if (!dir && !process.env.SPICA_PG_BIN) {
    aptInstall('postgresql', log);
    dir = findBinDir();
  }
  if (!dir) throw setupFailure(INSTALL_HINT);
  return dir;
}

/** Who runs the server: this user, or as root an unprivileged account that will own the data dir. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { name, uid, gid };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root and neither the postgres nor the nobody user exists to run PostgreSQL as');
}

export interface PostgresServer {
  /** Connection string of the server's `postgres` database. */
  url: string;
  port: number;
  dataDir: string;
  /** A connection string to database `name` on this server. */
  urlFor(name: string): string;
  /** Stops the server (`pg_ctl -m fast`: clients are disconnected, commits kept), keeping its data directory: an outage. */
  halt(): void;
  /** Starts it again on the same port and data after `halt()`. */
  restart(): void;
  stop(): Promise<void>;
}

const SUPERUSER = 'spica';

export async function startPostgres(log: (line: string) => void = () => undefined): Promise<PostgresServer> {
  const bin = postgresBinDir(log);
  const user = serverUser();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'spica-pg-'));
  if (user) chownSync(dataDir, user.uid, user.gid);
  const as = (cmd: string, args: string[]) => (user ? ['runuser', ['-u', user.name, '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  const run = (cmd: string, args: string[]) => {
    const [c, a] = as(cmd, args);
    const r = spawnSync(c, a, { encoding: 'utf8', cwd: dataDir });
    if (r.status !== 0) throw new Error(`${path.basename(cmd)} failed (${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').slice(-3).join(' | ')}`);
  };
  const pgdata = path.join(dataDir, 'data');
  run(path.join(bin, 'initdb'), ['-D', pgdata, '-U', SUPERUSER, '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => run(path.join(bin, 'pg_ctl'), ['-D', pgdata, '-l', path.join(dataDir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
  start();
  const halt = (mode = 'fast') => run(path.join(bin, 'pg_ctl'), ['-D', pgdata, '-m', mode, '-w', 'stop']);
  const urlFor = (db: string) => `postgresql://${SUPERUSER}@127.0.0.1:${port}/${db}`;
  let stopped = false;
  return {
    url: urlFor('postgres'),
    port,
    dataDir,
    urlFor,
    halt: () => halt(),
    restart: start,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        if (existsSync(path.join(pgdata, 'postmaster.pid'))) halt('immediate'); // not after a halt()
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

let databases = 0;

/** A fresh, empty database on the server at `serverUrl` (one per test file or test); returns its URL. */
export async function createTestDatabase(serverUrl: string, prefix = 'spica_test'): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${process.pid}_${++databases}_${Date.now() % 100_000}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
