#!/usr/bin/env bash
# Checks that a vendored crate (vendor/bellperson: bellperson 0.27.0; vendor/neptune: neptune 11.0.0)
# differs from the published crate exactly by vendor/<name>.diff (vendor/<name>/PATCH.md says why).
#
#   scripts/vendor-check.sh [NAME]                  download the crate from crates.io and compare
#   scripts/vendor-check.sh [NAME] FILE.crate       compare against a crate file already downloaded
#   scripts/vendor-check.sh --update [NAME] [FILE]  rewrite vendor/<name>.diff from the comparison (review it!)
#
# NAME is bellperson (the default) or neptune; `all` checks both (downloading them).
# Files of the published crate that the vendored copy leaves out (tests, benches, CI files, the lock file)
# are listed, and allowed only outside src/ and build.rs. Exit status: 0 when the copy matches, 1 when it
# differs, 2 when the crate cannot be had. tests/suite/vendor_patch.rs checks the diffs themselves without a
# network.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  shift
fi
name=bellperson
case ${1:-} in
  bellperson | neptune)
    name=$1
    shift
    ;;
  all)
    "$0" bellperson && "$0" neptune
    exit
    ;;
esac
case $name in
  bellperson) version=0.27.0 ;;
  neptune) version=11.0.0 ;;
esac
url="https://crates.io/api/v1/crates/$name/$version/download"
crate=${1:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ -z $crate ]]; then
  crate="$tmp/$name-$version.crate"
  if ! curl -sSfL --max-time 120 -o "$crate" "$url"; then
    echo "vendor-check: cannot download $url (pass a downloaded .crate file as the argument)" >&2
    exit 2
  fi
fi
if [[ ! -f $crate ]]; then
  echo "vendor-check: $crate: no such file (expected $name-$version.crate)" >&2
  exit 2
fi
echo "vendor-check: $name-$version.crate sha256 $(sha256sum "$crate" | cut -d' ' -f1)"
mkdir "$tmp/up"
if ! tar -xzf "$crate" -C "$tmp/up" || [[ ! -d $tmp/up/$name-$version ]]; then
  echo "vendor-check: $crate is not the $name-$version crate (a gzipped tar of $name-$version/)" >&2
  exit 2
fi

# Both trees under the same two names, so the diff's paths do not depend on where this runs.
mv "$tmp/up/$name-$version" "$tmp/a"
cp -a "$root/vendor/$name" "$tmp/b"
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
  cp patch.diff "$root/vendor/$name.diff"
  echo "vendor-check: wrote vendor/$name.diff ($(grep -c '^+++ ' patch.diff) files); review it and PATCH.md"
  exit "$bad"
fi

if ! cmp -s patch.diff "$root/vendor/$name.diff"; then
  echo "vendor-check: vendor/$name differs from $name $version otherwise than vendor/$name.diff says:" >&2
  diff -u "$root/vendor/$name.diff" patch.diff >&2 || true
  bad=1
fi
if ((bad)); then
  exit 1
fi
echo "vendor-check: vendor/$name = $name $version + vendor/$name.diff"
