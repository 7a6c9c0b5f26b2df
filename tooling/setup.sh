#!/usr/bin/env bash
# Sets up a fresh machine for Weft: a WebGPU adapter (the software Vulkan driver when there is no GPU),
# pnpm, and the workspace's dependencies. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'setup: %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

# 1. Vulkan. Dawn (the `webgpu` package) runs on Vulkan in Linux. A GPU driver's ICD is used when present;
#    otherwise Mesa's lavapipe. Debian bookworm's own Mesa 22.3 is too old for Dawn, so it comes from backports.
icds() { ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json /usr/local/nvidia/share/vulkan/icd.d/*.json 2>/dev/null || true; }
lavapipe_ok() {
  local v
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 25 && ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1'
}
if icds | grep -qi nvidia; then
  say "GPU Vulkan driver found: $(icds | grep -i nvidia | head -1)"
elif [ "$(uname -s)" = Linux ] && ! lavapipe_ok; then
  if [ -f /etc/debian_version ]; then
    . /etc/os-release
    say "no usable Vulkan driver: installing the software one (Mesa lavapipe) from ${VERSION_CODENAME}-backports"
    if [ "${VERSION_CODENAME}" = bookworm ] && [ ! -f /etc/apt/sources.list.d/backports.sources ]; then
      as_root tee /etc/apt/sources.list.d/backports.sources >/dev/null <<X
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
X
    fi
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq || { say "apt-get needs root: run this script as root or with sudo"; exit 1; }
    as_root apt-get install -y -qq --no-install-recommends libvulkan1 >/dev/null
    if [ "${VERSION_CODENAME}" = bookworm ]; then
      as_root apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers >/dev/null
    else
      as_root apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers >/dev/null
    fi
    lavapipe_ok || { say "lavapipe install failed"; exit 1; }
  else
    say "warning: no Vulkan driver found and this is not Debian; install Mesa >= 25 (lavapipe) or a GPU driver"
  fi
else
  say "software Vulkan driver (lavapipe) present"
fi

# 2. Chromium for the browser end-to-end test of the bench page (WebGPU on its bundled SwiftShader).
if [ "$(uname -s)" = Linux ] && [ -f /etc/debian_version ] && [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's chromium (browser test of the bench page)"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
    { as_root apt-get update -qq && as_root apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
fi

# 3. pnpm, pinned by package.json's packageManager field.
want=$(node -p "require('./package.json').packageManager.split('@')[1]")
if [ "$(pnpm --version 2>/dev/null || true)" != "$want" ]; then
  say "installing pnpm $want"
  npm install -g --silent "pnpm@$want" >/dev/null 2>&1 || as_root npm install -g --silent "pnpm@$want" >/dev/null
fi

# 4. Dependencies, exactly as locked.
pnpm install --frozen-lockfile --reporter=silent
say "ready (node $(node --version), pnpm $(pnpm --version))"
