#!/usr/bin/env bash
# Checks that vendor/bellperson differs from the published bellperson 0.27.0 exactly by
# vendor/bellperson.diff (vendor/bellperson/PATCH.md says why it differs).
#
#   scripts/vendor-check.sh                  download the crate from crates.io and compare
#   scripts/vendor-check.sh FILE.crate       compare against a crate file already downloaded
#   scripts/vendor-check.sh --update [FILE]  rewrite vendor/bellperson.diff from the comparison (review it!)
#
# Files of the published crate that the vendored copy leaves out (tests, benches, CI files, the lock file)
# are listed, and allowed only outside src/ and build.rs. Exit status: 0 when the copy matches, 1 when it
# differs, 2 when the crate cannot be had. tests/suite/vendor_patch.rs checks the diff itself without a network.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=0.27.0
url="https://crates.io/api/v1/crates/bellperson/$version/download"
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  shift
fi
crate=${1:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ -z $crate ]]; then
  crate="$tmp/bellperson-$version.crate"
  if ! curl -sSfL --max-time 120 -o "$crate" "$url"; then
    echo "vendor-check: cannot download $url (pass a downloaded .crate file as the argument)" >&2
    exit 2
  fi
fi
if [[ ! -f $crate ]]; then
  echo "vendor-check: $crate: no such file (expected bellperson-$version.crate)" >&2
  exit 2
fi
echo "vendor-check: bellperson-$version.crate sha256 $(sha256sum "$crate" | cut -d' ' -f1)"
mkdir "$tmp/up"
if ! tar -xzf "$crate" -C "$tmp/up" || [[ ! -d $tmp/up/bellperson-$version ]]; then
  echo "vendor-check: $crate is not the bellperson-$version crate (a gzipped tar of bellperson-$version/)" >&2
  exit 2
fi

# Both trees under the same two names, so the diff's paths do not depend on where this runs.
mv "$tmp/up/bellperson-$version" "$tmp/a"
cp -a "$root/vendor/bellperson" "$tmp/b"
rm -f "$tmp/b/PATCH.md"

cd "$tmp"
# Upstream-only entries are reported apart and taken out of the comparison; the rest (changed files,
# vendored-only files, in full) is the patch.
{ diff -rq a b || true; } | grep '^Only in a' | sed -E 's|^Only in a/?([^:]*): (.*)$|\1/\2|; s|^/||' >dropped.txt || true
while read -r path; do
  [[ -n $path ]] && rm -rf "a/$path"
done <dropped.txt
set +e
diff -ruN a b >raw.diff
status=$?
set -e
if ((status > 1)); then
  echo "vendor-check: diff failed" >&2
  exit 2
fi
sed -E 's/^(---|\+\+\+) ([^\t]+)\t.*$/\1 \2/' raw.diff >patch.diff

bad=0
while read -r path; do
  [[ -z $path ]] && continue
  case $path in
    src | src/* | build.rs | Cargo.toml)
      echo "vendor-check: the vendored copy lacks $path, which the build needs" >&2
      bad=1
      ;;
    *) echo "vendor-check: left out (as intended): $path" ;;
  esac
done <dropped.txt

if ((update)); then
  cp patch.diff "$root/vendor/bellperson.diff"
  echo "vendor-check: wrote vendor/bellperson.diff ($(grep -c '^+++ ' patch.diff) files); review it and PATCH.md"
  exit "$bad"
fi

if ! cmp -s patch.diff "$root/vendor/bellperson.diff"; then
  echo "vendor-check: vendor/bellperson differs from bellperson $version otherwise than vendor/bellperson.diff says:" >&2
  diff -u "$root/vendor/bellperson.diff" patch.diff >&2 || true
  bad=1
fi
if ((bad)); then
  exit 1
fi
echo "vendor-check: vendor/bellperson = bellperson $version + vendor/bellperson.diff"
