// Debian packages that `npm start` / `npm test` may install by themselves: only on Debian or Ubuntu,
// only as root or with passwordless sudo, never with NO_INSTALL=1, and always with the list printed
// first. Everywhere else the caller prints the exact command instead.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

/** Whether apt-get may be run here, and through what (nothing as root, `sudo -n` otherwise). */
export function aptAccess() {
  if (process.env.NO_INSTALL === "1") return { ok: false, reason: "NO_INSTALL=1 is set" };
  if (process.platform !== "linux" || !existsSync("/etc/debian_version") || !has("apt-get"))
    return { ok: false, reason: "this is not a Debian or Ubuntu system" };
  if (process.getuid?.() === 0) return { ok: true, prefix: [] };
  if (has("sudo") && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0)
    return { ok: true, prefix: ["sudo", "-n"] };
  return { ok: false, reason: "this user is not root and sudo asks for a password" };
}

/** The packages of `pkgs` that dpkg does not list as installed (all of them off Debian). */
export function missingPackages(pkgs) {
  if (!has("dpkg-query")) return [...pkgs];
  return pkgs.filter((p) => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    const r = spawnSync("dpkg-query", ["-W", "-f=${Status}", p], { encoding: "utf8" });
    return r.status !== 0 || !r.stdout.includes("install ok installed");
  });
}

export const installCommand = (pkgs) => `sudo apt-get install -y --no-install-recommends ${pkgs.join(" ")}`;

let listsUpdated = false;

/**
 * Installs the missing ones of `pkgs` with apt-get when allowed. Returns true when they are all
 * installed afterwards; false (after logging why and the command to run) when not allowed or failed.
 */
export function aptInstall(pkgs, { log, warn = log, why }) {
  const missing = missingPackages(pkgs);
  if (missing.length === 0) return true;
  const access = aptAccess();
  if (!access.ok) {
    warn(
      `${why} needs: ${missing.join(" ")} (not installed automatically: ${access.reason}). Run:\n    ${installCommand(missing)}`,
    );
    return false;
  }
  log(`${why}: installing Debian packages: ${missing.join(" ")}   (NO_INSTALL=1 refuses this)`);
  const [cmd, ...pre] = [...access.prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"];
  const run = (args) => spawnSync(cmd, [...pre, ...args], { stdio: "inherit" }).status === 0;
  if (!listsUpdated) {
    if (!run(["update", "-qq"])) warn("apt-get update failed; trying the install with the package lists as they are");
    listsUpdated = true;
  }
  if (!run(["install", "-y", "-qq", "--no-install-recommends", ...missing])) {
    warn(`apt-get install failed. Run:\n    ${installCommand(missing)}`);
    return false;
  }
  return missingPackages(missing).length === 0;
}
