// Runs the command-line tools that Fauna users already have (fauna-shell 0.x, 1.x and 4.x,
// fauna-schema-migrate, fauna-gql-upload) as child processes, from the pinned dev dependencies, in a
// throwaway project folder that is also their HOME, so that nothing on the machine leaks in or out.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../helpers/server';

/** The package (as named in package.json, aliases included) and bin of each tool. */
const TOOL_BINS = {
  shell0: ['fauna-shell-0', 'fauna'],
  shell1: ['fauna-shell-1', 'fauna'],
  shell4: ['fauna-shell-4', 'fauna'],
  schemaMigrate: ['@fauna-labs/fauna-schema-migrate', 'fauna-schema-migrate'],
  fgu: ['fauna-gql-upload', 'fgu'],
} as const;

export type Tool = keyof typeof TOOL_BINS;

/** Absolute path of a tool's bin script, read from its package.json as npm would link it. */
export function toolBin(tool: Tool): string {
  const [pkg, bin] = TOOL_BINS[tool];
  const pkgJson = require.resolve(`${pkg}/package.json`, { paths: [ROOT] });
  const bins = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { bin: string | Record<string, string> }).bin;
  return path.join(path.dirname(pkgJson), typeof bins === 'string' ? bins : bins[bin]);
}

/**
 * esbuild 0.8's JS API (fgu and schema-migrate bundle users' .js/.ts resource files with it) needs a
 * native binary that its install script would download; the repo installs the same version's binary
 * from the registry instead, as an optional package for this platform. Returns the environment that
 * points esbuild at it, or why resource files cannot be built here.
 */
export function esbuildEnv(): { env: Record<string, string> } | { skip: string } {
  const candidates = [`esbuild-${process.platform}-${process.arch === 'x64' ? '64' : process.arch}`];
  for (const pkg of candidates) {
    try {
      const dir = path.dirname(require.resolve(`${pkg}/package.json`, { paths: [ROOT] }));
      const bin = path.join(dir, 'bin', 'esbuild');
      if (existsSync(bin)) return { env: { ESBUILD_BINARY_PATH: bin } };
    } catch {
      // not installed on this platform
    }
  }
  // esbuild installed with its install script (scripts enabled): its own bin is the real binary.
  const own = path.join(path.dirname(require.resolve('esbuild/package.json', { paths: [ROOT] })), 'bin', 'esbuild');
  if (existsSync(own) && !readFileSync(own).subarray(0, 2).equals(Buffer.from('#!'))) return { env: {} };
  return { skip: `no esbuild 0.8.57 binary for ${process.platform}-${process.arch} (optional package not installed)` };
}

export interface Project {
  /** The folder: the tools' cwd and HOME. */
  dir: string;
  /** Writes a file (creating folders) relative to the project. */
  write(rel: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

/**
 * A fresh project folder. Its node_modules links to the repo's, as a user's project has faunadb
 * installed next to the tools: resource files `require("faunadb")` and the tools resolve it from there.
 */
export async function tempProject(): Promise<Project> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-compat-'));
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return {
    dir,
    async write(rel, text) {
      const file = path.join(dir, rel);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface RunOptions {
  /** Extra environment (on top of a cleaned copy of this process's). */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed; stdin is closed at once without it. */
  input?: string;
  /** Node `--require` modules loaded before the tool. */
  preload?: string[];
  /** Ends the tool (SIGKILL) after this long; the run then fails with what it printed. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout + stderr, for assertion messages. */
  output: string;
}

/** The environment a tool starts with: this process's, without anything that configures a tool. */
function baseEnv(project: Project, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(FAUNA|FGU_|ESBUILD_|NODE_OPTIONS$|NODE_PATH$)/.test(k)) continue;
    env[k] = v;
  }
  // No colours or spinners: plain text to assert on.
  return { ...env, HOME: project.dir, USERPROFILE: project.dir, NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true', ...extra };
}

/** Runs a tool to completion in the project folder. */
export function runTool(tool: Tool, args: string[], project: Project, opts: RunOptions = {}): Promise<RunResult> {
  const nodeArgs = (opts.preload ?? []).flatMap((m) => ['--require', m]);
  const child = spawn(process.execPath, [...nodeArgs, toolBin(tool), ...args], {
    cwd: project.dir,
    env: baseEnv(project, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(opts.input);
  const limit = opts.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limit);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') {
        reject(new Error(`${tool} ${args.join(' ')}: still running after ${limit} ms\n${stdout}${stderr}`));
        return;
      }
      resolve({ code: code ?? -1, stdout, stderr, output: `--- stdout\n${stdout}--- stderr\n${stderr}` });
    });
  });
}

/** Runs a tool and requires exit code 0. */
export async function mustRun(tool: Tool, args: string[], project: Project, opts: RunOptions = {}): Promise<RunResult> {
  const res = await runTool(tool, args, project, opts);
  if (res.code !== 0) throw new Error(`${tool} ${args.join(' ')} exited with ${res.code}\n${res.output}`);
  return res;
}

/**
 * An interactive run: lines go to stdin one at a time, each after the previous one's answer has been
 * printed (tools whose REPL exits at end of input, or reads the first piped bytes as an argument,
 * see the input as a person typing would give it).
 */
export interface Session {
  /** Resolves once stdout (since the session began) matches; rejects if the tool exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Writes one line to stdin. */
  send(line: string): void;
  /** Closes stdin and resolves the exit code. */
  end(): Promise<RunResult>;
  stdout(): string;
}

export function startSession(tool: Tool, args: string[], project: Project, opts: Omit<RunOptions, 'input' | 'preload'> = {}): Session {
  const child = spawn(process.execPath, [toolBin(tool), ...args], {
    cwd: project.dir,
    env: baseEnv(project, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    for (const w of [...waiters]) w();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const limit = opts.timeoutMs ?? 60_000;
  const timer = setTimeout(() => child.kill('SIGKILL'), limit);
  const closed = new Promise<RunResult>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const w of [...waiters]) w();
      resolve({ code: code ?? -1, stdout, stderr, output: `--- stdout\n${stdout}--- stderr\n${stderr}` });
    });
  });
  let exited = false;
  void closed.then(() => (exited = true));
  return {
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(stdout)) {
            waiters.delete(check);
            resolve();
          } else if (exited || child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`${tool} exited before printing ${pattern}\n--- stdout\n${stdout}--- stderr\n${stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    send(line) {
      child.stdin.write(`${line}\n`);
    },
    end() {
      child.stdin.end();
      return closed;
    },
    stdout: () => stdout,
  };
}
