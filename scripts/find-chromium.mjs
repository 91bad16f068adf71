// Finds the Chromium every browser test uses.
// Order: $CHROMIUM_PATH, then /usr/bin/chromium; when neither exists and we are root with
// apt-get, install Debian's `chromium`. Otherwise exit with one clear line.
// We never run `playwright install`: it downloads a browser build, which cannot work here.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';

const DEBIAN_PATH = '/usr/bin/chromium';

/** @param {string} path */
function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function canInstall() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return isRoot && isExecutable('/usr/bin/apt-get');
}

/**
 * Returns the path of a usable Chromium, installing Debian's package when allowed.
 * Throws an Error whose message is the one line to print when none can be had.
 * @returns {string}
 */
export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`toolwire: CHROMIUM_PATH=${fromEnv} is not an executable file.`);
  }
  if (isExecutable(DEBIAN_PATH)) return DEBIAN_PATH;
  if (!canInstall()) {
    throw new Error(
      'toolwire: no Chromium found; set CHROMIUM_PATH or run `apt-get install -y chromium` as root.',
    );
  }
  process.stderr.write('toolwire: Chromium not found; installing Debian chromium with apt-get…\n');
  // Two checkouts may get here at once (and so may any other apt user): take our own lock,
  // look again once we hold it, and let apt wait for its locks instead of failing on them.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const wait = '-o DPkg::Lock::Timeout=600';
  const install = [
    `[ -x ${DEBIAN_PATH} ] && exit 0`,
    `apt-get ${wait} update -qq || { sleep 5; apt-get ${wait} update -qq; }`,
    `apt-get ${wait} install -y -qq chromium`,
  ].join('\n');
  if (isExecutable('/usr/bin/flock')) {
    execFileSync('flock', ['-w', '900', '/var/lock/toolwire-chromium.lock', 'sh', '-ec', install], {
      stdio: 'inherit',
      env,
    });
  } else {
    execFileSync('sh', ['-ec', install], { stdio: 'inherit', env });
  }
  if (isExecutable(DEBIAN_PATH)) return DEBIAN_PATH;
  throw new Error('toolwire: apt-get installed chromium but /usr/bin/chromium is still missing.');
}

/** Launch flags for this machine: no sandbox (root), no GPU, no background traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.stdout.write(`toolwire: using Chromium at ${findChromium()}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
