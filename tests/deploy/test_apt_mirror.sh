#!/usr/bin/env bash
# test_apt_mirror.sh - deploy/podman-setup.sh takes its Debian mirror from
# the machine's apt sources (apt_mirrors, pick_mirrors), here from sample
# files in a temporary directory: the one-line format and deb822 .sources,
# comments, options, disabled entries, other repositories, reading order,
# and a clear failure when there is no mirror. Sourcing the script runs
# nothing but defines its functions: no root, network or podman needed.
# Host names are all under example.org (reserved, RFC 2606): none can be a real mirror.
# Usage: test_apt_mirror.sh [PATH-TO-DDZ] (ignored: ctest passes it)
# shellcheck disable=SC2015 # `ok` never fails
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../deploy/podman-setup.sh disable=SC1091
source "$src/deploy/podman-setup.sh"
fails=0 passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset DDZ_MIRROR DDZ_SECURITY_MIRROR

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect "description" DIR "wanted output of apt_mirrors" "wanted mirror" "wanted security mirror"
expect() {
    local what=$1 dir=$2 want=$3 want_m=$4 want_s=$5 got
    got=$(apt_mirrors "$dir")
    [ "$got" = "$want" ] && ok || no "$what: apt_mirrors printed
$got
want
$want"
    mirror=unset security_mirror=unset
    if pick_mirrors "$dir" 2>"$tmp/err"; then
        [ "$mirror" = "$want_m" ] && ok || no "$what: mirror '$mirror', want '$want_m'"
        [ "$security_mirror" = "$want_s" ] && ok || no "$what: security '$security_mirror', want '$want_s'"
        [ -s "$tmp/err" ] && no "$what: pick_mirrors wrote: $(cat "$tmp/err")" || ok
    else
        no "$what: pick_mirrors failed: $(cat "$tmp/err")"
    fi
}

# ---- the one-line format, in sources.list ----
d=$tmp/oneline
mkdir -p "$d/sources.list.d"
cat >"$d/sources.list" <<'X'
# deb http://commented.example.org/debian bookworm main
deb-src http://src.example.org/debian bookworm main

deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb http://one.example.org/debian/ bookworm main contrib non-free-firmware
deb http://one.example.org/debian bookworm-updates main   # trailing comment
deb http://one.example.org/debian-security bookworm-security main
X
expect "one-line sources.list" "$d" "archive http://one.example.org/debian
archive http://one.example.org/debian
security http://one.example.org/debian-security" http://one.example.org/debian http://one.example.org/debian-security

# ---- deb822, as Debian 12's own images ship it ----
d=$tmp/deb822
mkdir -p "$d/sources.list.d"
cat >"$d/sources.list.d/debian.sources" <<'X'
Types: deb
# a comment inside the entry
URIs: https://two.example.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: https://two.example.org/debian-security/
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
X
expect "deb822 debian.sources" "$d" "archive https://two.example.org/debian
archive https://two.example.org/debian
security https://two.example.org/debian-security" https://two.example.org/debian https://two.example.org/debian-security

# ---- deb822 details: disabled, deb-src only, field case, continuation ----
d=$tmp/details
mkdir -p "$d/sources.list.d"
cat >"$d/sources.list.d/debian.sources" <<'X'
Types: deb
URIs: http://disabled.example.org/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src
URIs: http://src.example.org/debian
Suites: bookworm
Components: main

types: deb deb-src
uris: file:/srv/mirror/debian http://second-uri.example.org/debian
suites:
 bookworm
Components: main contrib
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NlOlAHwRO5ZCkZ
 -----END PGP PUBLIC KEY BLOCK-----
X
expect "deb822 details" "$d" "archive file:/srv/mirror/debian" file:/srv/mirror/debian ""

# ---- other repositories first; [options]; apt's reading order ----
d=$tmp/order
mkdir -p "$d/sources.list.d"
echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/x.gpg] https://third.example.org/linux/debian bookworm stable' \
    >"$d/sources.list.d/a-third-party.list"
cat >"$d/sources.list.d/b-flat.sources" <<'X'
Types: deb
URIs: https://flat.example.org/repo
Suites: ./
X
echo 'deb [ arch=amd64 ] http://three.example.org/debian bookworm main' >"$d/sources.list.d/c.list"
cat >"$d/sources.list.d/d-debian.sources" <<'X'
Types: deb
URIs: http://four.example.org/debian
Suites: bookworm-security
Components: main
X
echo 'deb mirror+file:/etc/apt/mirrors.txt bookworm main' >"$d/sources.list.d/e.list"
echo 'deb http://ignored.example.org/debian bookworm main' >"$d/sources.list.d/f.list.disabled"
expect "order and options" "$d" "archive http://three.example.org/debian
security http://four.example.org/debian" http://three.example.org/debian http://four.example.org/debian
echo 'deb http://five.example.org/debian bookworm main' >"$d/sources.list"
got=$(apt_mirrors "$d" | head -1)
[ "$got" = "archive http://five.example.org/debian" ] && ok || no "sources.list is read first: $got"

# ---- the environment wins ----
DDZ_MIRROR=http://env.example.org/debian DDZ_SECURITY_MIRROR=http://env.example.org/sec pick_mirrors "$d"
[ "$mirror $security_mirror" = "http://env.example.org/debian http://env.example.org/sec" ] && ok ||
    no "DDZ_MIRROR and DDZ_SECURITY_MIRROR: $mirror $security_mirror"

# ---- no mirror at all: a clear failure ----
for case in empty nothing-usable; do
    d=$tmp/$case
    mkdir -p "$d"
    if [ $case = nothing-usable ]; then
        mkdir -p "$d/sources.list.d"
        printf '%s\n' '# deb http://commented.example.org/debian bookworm main' \
            'deb-src http://src.example.org/debian bookworm main' >"$d/sources.list"
        cp "$tmp/order/sources.list.d/a-third-party.list" "$d/sources.list.d/"
    fi
    [ -z "$(apt_mirrors "$d")" ] && ok || no "$case: apt_mirrors printed $(apt_mirrors "$d")"
    if pick_mirrors "$d" 2>"$tmp/err"; then
        no "$case: pick_mirrors succeeded with mirror '$mirror'"
    else
        grep -q "no Debian mirror in $d/sources.list" "$tmp/err" && grep -q 'DDZ_MIRROR' "$tmp/err" &&
            ok || no "$case: unclear message: $(cat "$tmp/err")"
    fi
done

# ---- the script itself names no mirror: not one URL in it ----
hits=$(grep -nE '(https?|ftp)://' "$src/deploy/podman-setup.sh")
[ -z "$hits" ] && ok || no "podman-setup.sh names a URL: $hits"

echo "test_apt_mirror: $passes passed, $fails failed"
[ $fails -eq 0 ]
