#!/usr/bin/env bash
# A throw-away Kubernetes control plane to try executor-svc by hand (executor-svc/README.md): etcd,
# kube-apiserver and, when built, kube-controller-manager (so Jobs and Deployments create pods), on
# loopback, from the binaries build.sh made. No kubelet runs: nodes are objects you create, pods
# stay Pending once bound. Writes <dir>/kubeconfig (admin token) and <dir>/pids.
#
#   local-cluster.sh <tideline-home> <dir> [api-port (6443)] [etcd-port (2379)]
#   kill $(cat <dir>/pids)      # stops it
#
# Build the extra tools once: build.sh <tideline-home> k8s.io/kubernetes/cmd/kubectl
#   k8s.io/kubernetes/cmd/kube-controller-manager
set -euo pipefail
HOME_DIR="${1:?usage: local-cluster.sh <tideline-home> <dir> [api-port] [etcd-port]}"
DIR="${2:?usage: local-cluster.sh <tideline-home> <dir> [api-port] [etcd-port]}"
API_PORT="${3:-6443}"
ETCD_PORT="${4:-2379}"
BIN="$HOME_DIR/kube/bin"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
[[ -f "$DIR/sa.key" ]] || openssl genrsa -out "$DIR/sa.key" 2048 2>/dev/null
TOKEN="$(cat "$DIR/token" 2>/dev/null || (head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' | tee "$DIR/token"))"
echo "$TOKEN,admin,admin-uid,\"system:masters\"" > "$DIR/tokens.csv"
: > "$DIR/pids"
"$BIN/etcd" --data-dir="$DIR/etcd" --listen-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-advertise-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-cluster="default=http://127.0.0.1:$((ETCD_PORT + 1))" --log-level=warn > "$DIR/etcd.log" 2>&1 &
echo $! >> "$DIR/pids"
"$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" --bind-address=127.0.0.1 \
  --secure-port="$API_PORT" --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
  --cert-dir="$DIR/certs" --service-account-issuer=https://kubernetes.default.svc \
  --service-account-key-file="$DIR/sa.key" --service-account-signing-key-file="$DIR/sa.key" \
  --token-auth-file="$DIR/tokens.csv" --authorization-mode=RBAC \
  --disable-admission-plugins=ServiceAccount --service-cluster-ip-range=10.96.0.0/24 > "$DIR/apiserver.log" 2>&1 &
echo $! >> "$DIR/pids"
for _ in $(seq 1 240); do [[ -f "$DIR/certs/apiserver.crt" ]] && break; sleep 0.5; done
cat > "$DIR/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$DIR/certs/apiserver.crt"}
users:
- name: admin
  user: {token: "$TOKEN"}
contexts:
- name: local
  context: {cluster: local, user: admin, namespace: default}
current-context: local
KUBECONFIG
for _ in $(seq 1 240); do
  curl -fsS --cacert "$DIR/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" \
    "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done
KCM="$HOME_DIR/kube/tools/kube-controller-manager"
if [[ -x "$KCM" ]]; then
  "$KCM" --kubeconfig="$DIR/kubeconfig" --bind-address=127.0.0.1 --secure-port=0 \
    --controllers=job,replicaset,deployment,garbagecollector,disruption,namespace,serviceaccount-token \
    --service-account-private-key-file="$DIR/sa.key" --root-ca-file="$DIR/certs/apiserver.crt" \
    --leader-elect=false > "$DIR/controller-manager.log" 2>&1 &
  echo $! >> "$DIR/pids"
fi
echo "Kubernetes control plane on https://127.0.0.1:$API_PORT; KUBECONFIG=$DIR/kubeconfig; stop: kill \$(cat $DIR/pids)"
