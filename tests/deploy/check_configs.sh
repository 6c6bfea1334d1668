#!/usr/bin/env bash
# check_configs.sh - checks the files of deploy/ with the tools that will
# read them, inside a throw-away container (so nothing is installed on this
# host, and no nginx or caddy service is started here):
#
#   deploy/nginx.conf       nginx -t, as /etc/nginx/conf.d/ddz.conf of Debian's
#                           nginx-light (with a self-signed certificate at
#                           the paths it names)
#   deploy/Caddyfile        caddy validate (Debian's caddy)
#   deploy/ddz.service      systemd-analyze verify (with a stub /usr/local/bin/ddz)
#   deploy/compose.yaml     docker-compose config (Debian's docker-compose,
#                           which validates against the compose schema)
#   deploy/k8s/*.yaml       YAML syntax (python3-yaml), and that the objects
#                           refer to each other: selector and labels, the
#                           claim, the Service's target port, the probes' port,
#                           kustomization's list of files
#   deploy/cluster/compose.yaml   docker-compose config (two nodes, PostgreSQL,
#                           nginx), and that each node's public path is a
#                           location of the nginx.conf that goes to it
#   deploy/cluster/nginx.conf     nginx -t, as the main nginx.conf (the nodes'
#                           names resolving, as in the compose network;
#                           run for real by tests/deploy/test_cluster_proxy.sh)
#   deploy/k8s-cluster/*.yaml     YAML, and what refers to what: the
#                           StatefulSet's headless Service, selectors,
#                           ports, the Secret's key, the Ingress's backends,
#                           the node proxy's ConfigMap (nginx -t of its
#                           server block) and that a node's public path
#                           (/n/NODE/ws) reaches that node's pod through it
#   deploy/*.sh, tests/deploy/*.sh   bash -n
#
# Not part of ctest, like check_container.sh: run it as root with podman set
# up (bash deploy/podman-setup.sh):  bash tests/deploy/check_configs.sh
# Prints "N passed, N failed" last; exits non-zero if anything failed.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
base=${DDZ_CHECK_IMAGE:-localhost/debian:12-slim}

podman image exists "$base" || {
    echo "FAIL no image $base (run: bash deploy/podman-setup.sh)"
    echo "0 passed, 1 failed"
    exit 1
}

# shellcheck disable=SC2016 # expanded inside the container
podman run --rm -i -v "$src":/src:ro "$base" bash -s <<'EOS'
set -uo pipefail
passed=0 failed=0
ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$*"; }
bad() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
run() { # run NAME COMMAND...: ok if it succeeds, else its output
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then ok "$name"; else bad "$name"; printf '%s\n' "$out" | sed 's/^/   /'; fi
}

export DEBIAN_FRONTEND=noninteractive
echo "-- installing the checkers in the container"
apt-get update -qq >/dev/null &&
    apt-get install -y -qq --no-install-recommends nginx-light openssl caddy systemd \
        python3-yaml docker-compose >/dev/null 2>&1 || { echo "FAIL apt-get install"; exit 1; }

for f in /src/deploy/*.sh /src/tests/deploy/*.sh; do
    run "bash -n ${f#/src/}" bash -n "$f"
done

# nginx: the file as a conf.d fragment, with a certificate where it says.
cp /src/deploy/nginx.conf /etc/nginx/conf.d/ddz.conf
rm -f /etc/nginx/sites-enabled/default
for crt in $(awk '$1 == "ssl_certificate" {sub(";", "", $2); print $2}' /src/deploy/nginx.conf); do
    key=${crt%/*}/privkey.pem
    mkdir -p "${crt%/*}"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ddz.example.org \
        -keyout "$key" -out "$crt" >/dev/null 2>&1
done
run "nginx -t with deploy/nginx.conf" nginx -t
grep -q 'proxy_set_header Upgrade $http_upgrade' /src/deploy/nginx.conf &&
    grep -q 'proxy_set_header Connection $ddz_connection_upgrade' /src/deploy/nginx.conf &&
    ok "deploy/nginx.conf forwards the WebSocket upgrade" || bad "no Upgrade/Connection headers"

run "caddy validate deploy/Caddyfile" caddy validate --adapter caddyfile --config /src/deploy/Caddyfile
run "caddy validate deploy/Caddyfile (DDZ_DOMAIN=ddz.example.org)" \
    env DDZ_DOMAIN=ddz.example.org caddy validate --adapter caddyfile --config /src/deploy/Caddyfile

# systemd: a stub where the binary goes, and the user the unit names.
printf '#!/bin/sh\nexit 0\n' >/usr/local/bin/ddz && chmod 755 /usr/local/bin/ddz
useradd --system --home-dir /var/lib/ddz --no-create-home --shell /usr/sbin/nologin ddz
# verify exits 0 on unknown keys and bad values, and only says so: any
# output is a failure.
quiet() { local out; out=$("$@" 2>&1) && [ -z "$out" ] || { printf '%s\n' "$out"; return 1; }; }
run "systemd-analyze verify deploy/ddz.service" quiet systemd-analyze verify /src/deploy/ddz.service

run "docker-compose config deploy/compose.yaml" \
    docker-compose --project-directory /src/deploy -f /src/deploy/compose.yaml config -q

run "k8s manifests: YAML and cross-references" python3 - <<'EOF'
import glob, os, sys, yaml
d = "/src/deploy/k8s"
objs = {}
for f in sorted(glob.glob(d + "/*.yaml")):
    for doc in yaml.safe_load_all(open(f)):
        assert doc and doc.get("apiVersion") and doc.get("kind"), f"{f}: no apiVersion/kind"
        objs[doc["kind"]] = doc
kust = objs.pop("Kustomization")
for r in kust["resources"]:
    assert os.path.exists(os.path.join(d, r)), f"kustomization: {r} missing"
assert len(kust["resources"]) == len(glob.glob(d + "/*.yaml")) - 1, "kustomization misses a file"
dep, svc, pvc, ing = objs["Deployment"], objs["Service"], objs["PersistentVolumeClaim"], objs["Ingress"]
spec = dep["spec"]
assert spec["replicas"] == 1 and spec["strategy"]["type"] == "Recreate", "one replica, Recreate"
labels = spec["template"]["metadata"]["labels"]
assert all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items()), "selector"
assert all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()), "service selector"
pod = spec["template"]["spec"]
assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
c = pod["containers"][0]
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
assert svc["spec"]["ports"][0]["targetPort"] in ports, "service targetPort"
for probe in ("readinessProbe", "livenessProbe"):
    g = c[probe]["httpGet"]
    assert g["path"] == "/healthz" and g["port"] in ports, probe
claims = [v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v]
assert claims == [pvc["metadata"]["name"]], "claimName"
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
assert any(v["name"] in mounts and mounts[v["name"]] == "/data" for v in pod["volumes"] if "persistentVolumeClaim" in v)
env = {e["name"]: e.get("value") for e in c["env"]}
assert env["DDZ_DB"].startswith("/data/"), "DDZ_DB on the volume"
b = ing["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
assert b["name"] == svc["metadata"]["name"] and b["port"]["name"] in [p["name"] for p in svc["spec"]["ports"]]
EOF

run "docker-compose config deploy/cluster/compose.yaml" \
    docker-compose --project-directory /src/deploy/cluster -f /src/deploy/cluster/compose.yaml config -q
run "deploy/cluster: each node's public path is a location of its nginx.conf" python3 - <<'EOF'
import re, yaml
c = yaml.safe_load(open("/src/deploy/cluster/compose.yaml"))
conf = open("/src/deploy/cluster/nginx.conf").read()
nodes = [n for n, s in c["services"].items() if "DDZ_NODE" in s.get("environment", {})]
assert len(nodes) >= 2, "two nodes"
for n in nodes:
    env = c["services"][n]["environment"]
    assert env["DDZ_DB"].startswith("postgres://"), f"{n}: DDZ_DB"
    node = env["DDZ_NODE"]
    assert env["DDZ_PUBLIC_URL"].endswith(f"/n/{node}/ws"), f"{n}: DDZ_PUBLIC_URL"
    m = re.search(r"location /n/%s/ \{\s*proxy_pass http://([^:/]+):8080/;" % node, conf)
    assert m and m.group(1) == n, f"nginx.conf: /n/{node}/ does not go to {n}"
    assert re.search(r"server %s:8080" % n, conf), f"nginx.conf: {n} not in the upstream"
EOF

# nginx for the cluster: the main configuration, its upstream names
# resolving as in the compose network (here to loopback: -t resolves, it
# does not connect); then the k8s node proxy's server block as a conf.d file
printf '127.0.0.1 ddz1\n127.0.0.1 ddz2\n127.0.0.1 kube-dns.kube-system.svc.cluster.local\n' >>/etc/hosts
run "nginx -t with deploy/cluster/nginx.conf" nginx -t -c /src/deploy/cluster/nginx.conf
rm -f /etc/nginx/conf.d/ddz.conf
python3 -c 'import yaml, sys
for d in yaml.safe_load_all(open("/src/deploy/k8s-cluster/node-proxy.yaml")):
    if d["kind"] == "ConfigMap":
        sys.stdout.write(d["data"]["default.conf"])' >/etc/nginx/conf.d/node-proxy.conf
run "nginx -t with deploy/k8s-cluster's node proxy" nginx -t

run "k8s-cluster manifests: YAML and cross-references" python3 - <<'EOF'
import glob, os, re, yaml
d = "/src/deploy/k8s-cluster"
objs = {}
files = sorted(glob.glob(d + "/*.yaml"))
for f in files:
    for doc in yaml.safe_load_all(open(f)):
        assert doc and doc.get("apiVersion") and doc.get("kind"), f"{f}: no apiVersion/kind"
        objs[(doc["kind"], doc.get("metadata", {}).get("name", ""))] = doc
kust = objs.pop(("Kustomization", ""))
ns = kust["namespace"]
for r in kust["resources"]:
    assert os.path.exists(os.path.join(d, r)), f"kustomization: {r} missing"
assert len(kust["resources"]) == len(files) - 1, "kustomization misses a file"
def one(kind):
    found = [o for (k, _), o in objs.items() if k == kind]
    assert len(found) == 1, f"{len(found)} {kind}"
    return found[0]
def named(kind, name):
    assert (kind, name) in objs, f"no {kind} {name}"
    return objs[(kind, name)]
def labels_match(sel, labels):
    return all(labels.get(k) == v for k, v in sel.items())

sts = one("StatefulSet")
headless = named("Service", sts["spec"]["serviceName"])
assert headless["spec"].get("clusterIP") == "None", "the StatefulSet's service is headless"
tmpl = sts["spec"]["template"]
assert labels_match(sts["spec"]["selector"]["matchLabels"], tmpl["metadata"]["labels"]), "selector"
pod = tmpl["spec"]
assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
c = pod["containers"][0]
ports = {p["name"] for p in c["ports"]}
for probe in ("readinessProbe", "livenessProbe"):
    g = c[probe]["httpGet"]
    assert g["path"] == "/healthz" and g["port"] in ports, probe
env = {e["name"]: e for e in c["env"]}
ref = env["DDZ_DB"]["valueFrom"]["secretKeyRef"]
secret = named("Secret", ref["name"])["stringData"]
assert secret.get(ref["key"], "").startswith("postgres://"), "the DB URL's Secret and key"
for (k, name), svc in objs.items():
    if k != "Service":
        continue
    sel = svc["spec"]["selector"]
    targets = [o for (kk, _), o in objs.items() if kk in ("StatefulSet", "Deployment")
               and labels_match(sel, o["spec"]["template"]["metadata"]["labels"])]
    assert targets, f"Service {name} selects nothing"
    for t in targets:
        tports = {p["name"] for p in t["spec"]["template"]["spec"]["containers"][0]["ports"]}
        for p in svc["spec"]["ports"]:
            assert p["targetPort"] in tports, f"Service {name}: targetPort {p['targetPort']}"
ing = one("Ingress")
for path in ing["spec"]["rules"][0]["http"]["paths"]:
    b = path["backend"]["service"]
    svc = named("Service", b["name"])
    assert b["port"]["name"] in [p["name"] for p in svc["spec"]["ports"]], f"Ingress -> {b['name']}"
proxy = named("Deployment", "ddz-node-proxy")
vols = proxy["spec"]["template"]["spec"]["volumes"]
cm = named("ConfigMap", [v["configMap"]["name"] for v in vols if "configMap" in v][0])
conf = cm["data"]["default.conf"]
# a node's public path, as the pod's command makes it, reaches that pod
args = " ".join(c["args"])
assert "tr -d -" in args and "/n/$node/ws" in args, "DDZ_NODE and DDZ_PUBLIC_URL as expected"
node = f"{sts['metadata']['name']}-2".replace("-", "")
m = re.search(r"location ~ (\S+) \{\s*proxy_pass (\S+);", conf)
assert m, "the node proxy's location"
got = re.match(m.group(1), f"/n/{node}/ws")
assert got, f"/n/{node}/ws does not reach the node proxy's location"
target = m.group(2).replace("$1", got.group(1)).replace("$2", got.group(2))
want = f"http://{sts['metadata']['name']}-2.{headless['metadata']['name']}.{ns}.svc.cluster.local:8080/ws"
assert target.startswith(want), f"/n/{node}/ws goes to {target}, not {want}"
assert "/n/" in [p["path"] for p in ing["spec"]["rules"][0]["http"]["paths"]], "the Ingress sends /n/ to the node proxy"
EOF

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
EOS
