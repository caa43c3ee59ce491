#!/usr/bin/env bash
# Makes sure what levelkit builds and tests with is installed:
#  * Debian packages: as root it installs what is missing; otherwise it prints the one apt-get
#    line needed and fails;
#  * the Khronos glTF-Validator (npm gltf-validator, pinned) in ../npm next to the checkout, where
#    the glTF corpus test looks for it (tests/convert/gltf_corpus_test.cpp; it skips the
#    validation when node or the validator is missing). Node and npm come from Debian (nodejs,
#    npm) unless a node with npm is already on PATH. LEVELKIT_NO_NPM=1 skips this part.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(cmake make g++ clang libclang-rt-14-dev lld liblzma-dev zlib1g-dev libcli11-dev libfmt-dev
          nlohmann-json3-dev libspng-dev pkg-config googletest libgtest-dev libgmock-dev
          libbenchmark-dev libtinyobjloader-dev libmeshoptimizer-dev libtinygltf-dev
          python3-dev pybind11-dev python3-numpy python3-pytest python3-setuptools python3-venv
          python3-pip python3-dask python3-distributed
          "$@")
npm_wanted=1
[ "${LEVELKIT_NO_NPM:-0}" = 1 ] && npm_wanted=0

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
# A node installed some other way (e.g. NodeSource, which bundles npm) is fine as it is.
if [ $npm_wanted = 1 ] && ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
    missing+=(nodejs npm)
fi

if [ ${#missing[@]} -ne 0 ]; then
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
fi

if [ $npm_wanted = 1 ]; then
    validator_version=2.0.0-dev.3.10
    prefix="$root/../npm"
    installed="$prefix/node_modules/gltf-validator/package.json"
    if ! grep -q "\"version\": \"$validator_version\"" "$installed" 2>/dev/null; then
        echo "installing gltf-validator $validator_version into $prefix" >&2
        mkdir -p "$prefix"
        npm install --prefix "$prefix" --no-audit --no-fund --no-save \
            "gltf-validator@$validator_version" >/dev/null
    fi
fi
