#!/usr/bin/env bash
# Image smoke for CI (called from .ci/run), also runnable by hand: `bash scripts/ci-images.sh`.
#   1. makes sure a Docker daemon runs (installs Debian's docker.io when missing and root; starts dockerd);
#      where Docker cannot run, prints one line saying so and exits 0;
#   2. makes the local Node base image when it is missing (Docker Hub cannot be reached from CI:
#      a Debian bookworm minbase with this machine's Node and npm, slimmed like debian:bookworm-slim);
#   3. builds the four targets of infra/Dockerfile on it and prints their sizes, failing when one is
#      over its budget (billing and the text worker 300 MB, the gateway and the transcription
#      worker 600 MB);
#   4. runs them on the host network against the test PostgreSQL (127.0.0.1:5432) and Redis
#      (127.0.0.1:6379) and the embedded S3 store (scripts/objectstore.mjs), migrates with the
#      gateway image, and pushes one short two-voice recording through (upload -> corrected text)
#      with scripts/lib/image-smoke.ts.
# Environment: KIKITORI_BASE_IMAGE (default kikitori-node-base:<node major>), KIKITORI_TAG (default
# smoke), SMOKE_KEEP=1 leaves the containers running for a look.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "[images] $*"; }
skip() {
  echo "[images] SKIPPED: $* (the image build and smoke need a Docker daemon)"
  exit 0
}
t0=$(date +%s)

# --- 1. Docker --------------------------------------------------------------------------------------
if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing docker.io"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null; } ||
      skip "docker.io could not be installed"
  fi
fi
command -v docker >/dev/null 2>&1 || skip "no docker command and not root to install docker.io"
if ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v dockerd >/dev/null 2>&1; then
    say "starting dockerd (log: /tmp/kikitori-dockerd.log)"
    nohup dockerd >/tmp/kikitori-dockerd.log 2>&1 &
    for _ in $(seq 1 30); do docker info >/dev/null 2>&1 && break; sleep 1; done
  fi
  docker info >/dev/null 2>&1 || skip "no Docker daemon could be reached or started"
fi

# --- 2. The local base image -------------------------------------------------------------------------
node_major=$(node -p 'process.versions.node.split(".")[0]')
BASE=${KIKITORI_BASE_IMAGE:-kikitori-node-base:$node_major}
if docker image inspect "$BASE" >/dev/null 2>&1; then
  say "base image $BASE present"
else
  command -v debootstrap >/dev/null 2>&1 || {
    [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  } || skip "no debootstrap to make the base image $BASE"
  say "making base image $BASE (debootstrap minbase bookworm + node $(node --version))"
  root=$(mktemp -d /var/tmp/kikitori-base.XXXXXX)
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/tmp/kikitori-debootstrap.log 2>&1 ||
    { tail -n 20 /tmp/kikitori-debootstrap.log; exit 1; }
  # Slim like debian:bookworm-slim: no docs, man pages or translations now or from later apt installs.
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
  rm -rf "$root"/usr/share/{man,groff,info,lintian,linda}/* "$root"/var/cache/apt/*.bin \
    "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  # This machine's Node and npm, where the official node images keep them; the `node` user (uid 1000).
  node_bin=$(readlink -f "$(command -v node)")
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  install -m 0755 "$node_bin" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # This machine's trust store, so npm inside the build trusts the registry as the host does (CI reaches
  # it through a TLS-inspecting proxy whose CA is only in the host's bundle).
  host_ca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
  ca_env=()
  if [ -f "$host_ca" ]; then
    mkdir -p "$root/etc/ssl/certs"
    cp "$host_ca" "$root/etc/ssl/certs/ca-certificates.crt"
    ca_env=(-c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' -c 'ENV npm_config_cafile=/etc/ssl/certs/ca-certificates.crt')
  fi
  chroot "$root" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  tar -C "$root" -c . | docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "${ca_env[@]}" -c 'CMD ["node"]' \
    - "$BASE" >/dev/null
  rm -rf "$root"
  trap - EXIT
  say "base image $BASE made ($(docker image inspect "$BASE" --format '{{.Size}}' | awk '{printf "%d MB", $1/1e6}'))"
fi
[ "${1:-}" = "base" ] && exit 0

# --- 3. The four images -------------------------------------------------------------------------------
TAG=${KIKITORI_TAG:-smoke}
export KIKITORI_TAG=$TAG
declare -A BUDGET_MB=([billing]=300 [text-worker]=300 [gateway]=600 [transcription-worker]=600)
# The legacy builder (no BuildKit needed) on the host network (npm and Debian's mirror, as the host reaches
# them). Stages shared by the targets are built once and cached: a warm run only redoes what changed.
over=()
for target in gateway transcription-worker text-worker billing; do
  s=$(date +%s)
  if ! DOCKER_BUILDKIT=0 docker build --network host --build-arg NODE_IMAGE="$BASE" \
    -f infra/Dockerfile --target "$target" -t "kikitori/$target:$TAG" . >"/tmp/kikitori-build-$target.log" 2>&1; then
    tail -n 40 "/tmp/kikitori-build-$target.log"
    echo "[images] FAILED: building $target (log: /tmp/kikitori-build-$target.log)"
    exit 1
  fi
  mb=$(docker image inspect "kikitori/$target:$TAG" --format '{{.Size}}' | awk '{printf "%d", $1/1e6}')
  say "built $target in $(($(date +%s) - s)) s: $mb MB (budget ${BUDGET_MB[$target]} MB)"
  [ "$mb" -le "${BUDGET_MB[$target]}" ] || over+=("$target $mb MB > ${BUDGET_MB[$target]} MB")
done
if [ ${#over[@]} -gt 0 ]; then
  echo "[images] FAILED: over budget: ${over[*]}"
  exit 1
fi
# Earlier builds of these tags, now untagged (only ours: the images carry the Kikitori vendor label).
docker image prune -f --filter label=org.opencontainers.image.vendor=Kikitori >/dev/null 2>&1 || true

# --- 4. Run them: migrate, start, one recording through ------------------------------------------------
node --import tsx scripts/lib/image-smoke.ts
say "done in $(($(date +%s) - t0)) s"
