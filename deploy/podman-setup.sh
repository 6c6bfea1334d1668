#!/usr/bin/env bash
# podman-setup.sh - makes a Debian 12 machine able to build and run the ddz
# image without Docker and without any image registry. Run as root.
#
#   1. installs podman, buildah, runc and debootstrap from Debian's packages;
#   2. writes /etc/containers/containers.conf: the runc runtime, and
#      default ulimits no higher than this machine's hard limits (podman's
#      own default, nofile=1048576, is refused where the hard limit is lower);
#   3. makes the two base images the Dockerfile names, if they are missing:
#        localhost/debian:12       debootstrap --variant=minbase bookworm
#        localhost/debian:12-slim  the same tree without docs, man pages and
#                                  locales (what Docker Hub's -slim drops)
#      and imports them with `podman import`.
#
# Idempotent: packages, the config and each image are left alone when
# already right. The first run takes a few minutes (debootstrap fetches about
# 90 packages); later runs take a second.
#
# The Debian mirror is this machine's own: the first `deb` entry with the
# `main` component in its apt sources (/etc/apt/sources.list, then
# /etc/apt/sources.list.d/*.list and *.sources in name order, one-line and
# deb822 formats alike), and the security suite's mirror likewise (the image
# is left without one, with a warning, if the machine has none). No mirror
# is named here; with none configured the script stops and says so.
# Options, as environment variables:
#   DDZ_MIRROR           Debian mirror for debootstrap and the image's
#                        sources (default: the machine's, as above)
#   DDZ_SECURITY_MIRROR  mirror of bookworm-security (default: the machine's)
#   DDZ_REBUILD=1        make the base images again even if they exist
#   DDZ_CACHE            where downloaded .debs are kept (default /var/cache/ddz-debootstrap)
#
# Sourcing this file (as tests/deploy/test_apt_mirror.sh does) only defines
# the functions below; nothing runs.

# apt_mirrors [ETC_APT]: prints "archive URI" or "security URI", one line
# per usable entry of the apt sources under ETC_APT (default /etc/apt), in
# the order apt reads them: type `deb` (not deb-src), component `main`, an
# http, https, ftp or file URI (debootstrap fetches no other kind), and not
# disabled (deb822 `Enabled: no`). A suite ending in -security (or the old
# /updates) makes a security entry. URIs are printed without a trailing /.
apt_mirrors() {
    local etc=${1:-/etc/apt} f deb822
    local files=()
    [ -f "$etc/sources.list" ] && files+=("$etc/sources.list")
    for f in "$etc"/sources.list.d/*; do
        case $f in *.list | *.sources) [ -f "$f" ] && files+=("$f") ;; esac
    done
    for f in "${files[@]}"; do
        case $f in *.sources) deb822=1 ;; *) deb822=0 ;; esac
        awk -v deb822="$deb822" '
            function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
            function has_word(list, w) { return (" " list " ") ~ ("[ \t]" w "[ \t]") }
            function emit(uri, suite) {
                if (uri !~ /^(https?|ftp|file):/)
                    return
                sub(/\/+$/, "", uri)
                print ((suite ~ /-security$/ || suite ~ /\/updates$/) ? "security" : "archive"), uri
            }
            function flush(   k, n, i, u, s) {
                if (has_word(v["types"], "deb") && has_word(v["components"], "main") &&
                    tolower(trim(v["enabled"])) != "no") {
                    split(trim(v["uris"]), u, /[ \t]+/)
                    n = split(trim(v["suites"]), s, /[ \t]+/)
                    for (i = 1; i <= n; i++)
                        emit(u[1], s[i])
                }
                for (k in v)
                    delete v[k]
                field = ""
            }
            !deb822 {
                sub(/#.*/, "")
                if ($1 != "deb")
                    next
                i = 2
                if ($i ~ /^\[/) { # [options], maybe with spaces inside
                    while (i <= NF && $i !~ /\]$/)
                        i++
                    i++
                }
                for (j = i + 2; j <= NF; j++)
                    if ($j == "main")
                        emit($i, $(i + 1))
                next
            }
            /^#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]/ { if (field != "") v[field] = v[field] " " $0; next }
            {
                p = index($0, ":")
                if (p) {
                    field = tolower(trim(substr($0, 1, p - 1)))
                    v[field] = substr($0, p + 1)
                }
            }
            END { if (deb822) flush() }
        ' "$f"
    done
    return 0
}

# pick_mirrors [ETC_APT]: sets `mirror` and `security_mirror` from
# DDZ_MIRROR and DDZ_SECURITY_MIRROR, or else from the first archive and
# security entries of apt_mirrors. Returns 1, after a message on stderr, if
# there is no archive mirror; security_mirror may be left empty.
pick_mirrors() {
    local etc=${1:-/etc/apt} found
    found=$(apt_mirrors "$etc")
    mirror=${DDZ_MIRROR:-$(awk '$1 == "archive" { print $2; exit }' <<<"$found")}
    security_mirror=${DDZ_SECURITY_MIRROR:-$(awk '$1 == "security" { print $2; exit }' <<<"$found")}
    if [ -z "$mirror" ]; then
        printf 'podman-setup: no Debian mirror in %s/sources.list or %s/sources.list.d/ (no "deb URI SUITE main" line, no .sources entry with URIs: and main); set DDZ_MIRROR=URI\n' "$etc" "$etc" >&2
        return 1
    fi
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
    return 0 # sourced: the functions only
fi

set -euo pipefail

cache=${DDZ_CACHE:-/var/cache/ddz-debootstrap}
img_full=localhost/debian:12
img_slim=localhost/debian:12-slim

log() { printf 'podman-setup: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
    log "run as root"
    exit 1
fi

# ---- 1. packages ----
pkgs=(podman buildah runc debootstrap)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- 2. containers.conf ----
# Without CAP_SYS_RESOURCE (as in this project's sandboxes) a container's
# limits may not exceed those of the conmon process that starts it: the hard
# nofile limit of this shell, and an nproc limit that podman 4.3 caps at
# 32768 for conmon whatever the shell's is (seen here: 32769 is refused with
# "error setting rlimit type 6: operation not permitted").
cap() { local v=$1 max=$2; if [ "$v" = unlimited ] || [ "$v" -gt "$max" ]; then echo "$max"; else echo "$v"; fi; }
nofile=$(cap "$(ulimit -Hn)" 65536)
nproc=$(cap "$(ulimit -Hu)" 32768)
conf=/etc/containers/containers.conf
want=$(cat <<EOF
# Written by ddz deploy/podman-setup.sh.
[containers]
default_ulimits = [
  "nofile=${nofile}:${nofile}",
  "nproc=${nproc}:${nproc}",
]

[engine]
runtime = "runc"
EOF
)
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
    if [ -f "$conf" ] && ! grep -q 'ddz deploy/podman-setup.sh' "$conf"; then
        cp "$conf" "$conf.before-ddz"
        log "kept the old $conf as $conf.before-ddz"
    fi
    mkdir -p /etc/containers
    printf '%s\n' "$want" >"$conf"
    log "wrote $conf (runc, nofile=$nofile, nproc=$nproc)"
fi

# ---- 3. base images ----
check() { # a container starts with these settings
    local out
    if ! out=$(podman run --rm --net=none "$img_slim" true 2>&1); then
        log "a container does not start: $out"
        log "edit $conf (lower default_ulimits) and run this again"
        exit 1
    fi
}
if [ "${DDZ_REBUILD:-0}" != 1 ] && podman image exists "$img_full" &&
    podman image exists "$img_slim"; then
    check
    log "base images present: $img_full, $img_slim"
    exit 0
fi

pick_mirrors /etc/apt || exit 1
if [ -z "$security_mirror" ]; then
    log "warning: no bookworm-security mirror in this machine's apt sources (nor DDZ_SECURITY_MIRROR): the images will get no security updates"
fi
work=$(mktemp -d /var/tmp/ddz-rootfs.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$cache"
log "debootstrap bookworm (minbase) from $mirror; this takes a few minutes"
debootstrap --variant=minbase --cache-dir="$cache" bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log" >&2
    exit 1
}

# What the official images carry: all of bookworm's suites, apt that keeps
# no package files and fetches no translations, and no host leftovers.
{
    echo "deb $mirror bookworm main"
    echo "deb $mirror bookworm-updates main"
    [ -z "$security_mirror" ] || echo "deb $security_mirror bookworm-security main"
} >"$root/etc/apt/sources.list"
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/docker-no-recommends"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/log/* "$root"/tmp/* "$root"/root/.bash_history
: >"$root/etc/hostname"
: >"$root/etc/resolv.conf"
rm -f "$root/etc/machine-id" && : >"$root/etc/machine-id"

import() { # import DIR NAME
    tar --numeric-owner --xattrs --acls -C "$1" -c . |
        podman import --quiet --change 'CMD ["bash"]' \
            --message "ddz deploy/podman-setup.sh: debootstrap minbase bookworm" - "$2" >/dev/null
    log "imported $2 ($(podman image inspect --format '{{.Size}}' "$2") bytes)"
}

podman image rm -f "$img_full" "$img_slim" >/dev/null 2>&1 || true
import "$root" "$img_full"

# Slim: what Docker Hub's debian:12-slim leaves out, and tells dpkg to keep
# leaving out when packages are installed later.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
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
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root"/usr/share/{man,groff,info,lintian,linda}/*
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
import "$root" "$img_slim"
check
