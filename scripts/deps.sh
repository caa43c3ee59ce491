#!/usr/bin/env bash
# Makes sure the Debian packages levelkit builds with are installed.
# As root it installs what is missing; otherwise it prints the one apt-get line needed and fails.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

packages=(cmake make g++ clang libclang-rt-14-dev liblzma-dev zlib1g-dev libcli11-dev libfmt-dev
          nlohmann-json3-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
          libmeshoptimizer-dev libpng-dev libtinygltf-dev "$@")

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    echo "installing: ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $line >/dev/null
else
    echo "missing Debian packages; run as root:" >&2
    echo "  sudo $line" >&2
    exit 1
fi
