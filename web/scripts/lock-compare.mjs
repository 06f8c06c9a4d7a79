#!/usr/bin/env node
// lock-compare.mjs COMMITTED REGENERATED
//
// Decides whether a lock that npm regenerated (from the same package.json, against the registry
// as it answers today) differs from the committed lock only in ways that cannot change what is
// installed on this machine. Exit 0: the regenerated lock only adds or drops optional packages
// whose os/cpu/libc exclude this platform (npm ci skips those without fetching them). Exit 1:
// any package this machine installs was added, removed or changed (version, resolved URL,
// integrity, dependencies) — the lock must be regenerated and reviewed. Exit 2: bad input.
// Every difference is printed, one line each, either way.
import { readFileSync } from 'node:fs';
import process from 'node:process';

/** @typedef {{ version?: string, optional?: boolean, os?: string[], cpu?: string[], libc?: string[], [key: string]: unknown }} LockEntry */

/** @param {string} path @returns {Record<string, LockEntry>} */
function load(path) {
  try {
    const lock = JSON.parse(readFileSync(path, 'utf8'));
    if (!lock.packages || typeof lock.packages !== 'object') {
      throw new Error('no "packages" map (lockfileVersion 2 or 3 expected)');
    }
    return lock.packages;
  } catch (e) {
    console.error(`lock-compare: ${path}: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  }
}

// npm's own rule for os/cpu/libc lists: entries may be negated with '!'.
/** @param {string[] | undefined} list @param {string} value */
function listAllows(list, value) {
  if (!Array.isArray(list) || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  const positives = list.filter((v) => !v.startsWith('!'));
  return positives.length === 0 || positives.includes(value);
}

function libcHere() {
  if (process.platform !== 'linux') return null;
  const report = /** @type {{ header?: { glibcVersionRuntime?: string } } | undefined} */ (
    process.report?.getReport?.());
  return report?.header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

const here = { os: process.platform, cpu: process.arch, libc: libcHere() };

/** @param {LockEntry} entry */
export function installedHere(entry) {
  if (!listAllows(entry.os, here.os)) return false;
  if (!listAllows(entry.cpu, here.cpu)) return false;
  if (here.libc && !listAllows(entry.libc, here.libc)) return false;
  return true;
}

// The fields that decide what npm ci puts on disk for one package.
const KEYS = ['version', 'resolved', 'integrity', 'dependencies', 'optionalDependencies',
  'peerDependencies', 'bin', 'os', 'cpu', 'libc', 'dev', 'optional', 'link'];

/** @param {LockEntry} a @param {LockEntry} b */
function same(a, b) {
  return KEYS.every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));
}

/** @param {string[]} argv */
function main(argv) {
  if (argv.length !== 2 || !argv[0] || !argv[1]) {
    console.error('usage: lock-compare.mjs COMMITTED_LOCK REGENERATED_LOCK');
    process.exit(2);
  }
  const before = load(argv[0]);
  const after = load(argv[1]);
  let harmless = 0;
  let harmful = 0;
  /** @param {boolean} ok @param {string} what */
  const say = (ok, what) => {
    if (ok) harmless += 1; else harmful += 1;
    console.log(`lock-compare: ${ok ? 'other platform' : 'INSTALLED HERE'}: ${what}`);
  };
  for (const [path, entry] of Object.entries(after)) {
    const old = before[path];
    if (old === undefined) {
      const ok = entry.optional === true && !installedHere(entry);
      say(ok, `added ${path}@${entry.version}${ok ? '' : ` (optional=${!!entry.optional})`}`);
    } else if (!same(old, entry)) {
      // A change to an entry this machine never installs is still a change worth a line,
      // but it cannot alter this install.
      const ok = old.optional === true && entry.optional === true &&
        !installedHere(old) && !installedHere(entry);
      say(ok, `changed ${path} ${old.version} -> ${entry.version}`);
    }
  }
  for (const [path, entry] of Object.entries(before)) {
    if (!(path in after)) {
      const ok = entry.optional === true && !installedHere(entry);
      say(ok, `removed ${path}@${entry.version}`);
    }
  }
  console.log(`lock-compare: ${harmless} difference(s) for other platforms, ` +
    `${harmful} affecting this install (${here.os}-${here.cpu}${here.libc ? `-${here.libc}` : ''})`);
  process.exit(harmful === 0 ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
