#!/usr/bin/env bash
# A secured single-node KRaft broker's files (ADR 0022), used by `./tideline up --secure` and by the
# testkit's SecureKafkaBroker, so the tests prove the very configuration the launcher runs.
#
#   secure-broker.sh DIR KAFKA_PORT CONTROLLER_PORT KAFKA_LIBS USER...
#
# Writes under DIR (created; it must not hold an earlier run's files):
#   pki/ca.p12, pki/broker.p12, pki/truststore.p12   a throwaway CA, the broker's key pair signed
#                                                    by it (SAN 127.0.0.1, localhost), the clients'
#                                                    truststore (keytool from the JDK only)
#   credentials.properties                           user=password, random, for tideline-broker,
#                                                    tideline-admin and every USER (mode 600)
#   clients/<user>.properties                        Kafka client settings of each user: SASL_SSL,
#                                                    SCRAM-SHA-512, its password, the truststore
#   server.properties                                client listener SASL_SSL (SCRAM-SHA-512),
#                                                    controller listener SSL with client
#                                                    authentication, StandardAuthorizer, deny by
#                                                    default, super users: the broker, tideline-admin
#   data/                                            formatted storage, the SCRAM credentials of
#                                                    every user already in its metadata
# Start the broker with: java -cp "KAFKA_LIBS/*" kafka.Kafka DIR/server.properties
set -euo pipefail
umask 077

[[ $# -ge 4 ]] || { echo "usage: $0 DIR KAFKA_PORT CONTROLLER_PORT KAFKA_LIBS USER..." >&2; exit 2; }
DIR="$1" PORT="$2" CPORT="$3" LIBS="$4"; shift 4
JAVA_BIN="${JAVA_HOME:+$JAVA_HOME/bin/}"
KEYTOOL="${JAVA_BIN}keytool"
JAVA="${JAVA_BIN}java"
command -v "$KEYTOOL" >/dev/null || { echo "keytool not found (set JAVA_HOME)" >&2; exit 1; }
[[ -d "$LIBS" ]] || { echo "no Kafka libraries at $LIBS (./mvnw -B -ntp install -pl deploy/local)" >&2; exit 1; }
[[ ! -e "$DIR/server.properties" ]] || { echo "$DIR already holds a broker; use a fresh folder" >&2; exit 1; }

mkdir -p "$DIR/pki" "$DIR/clients"
DIR="$(cd "$DIR" && pwd)"
PKI="$DIR/pki"
secret() { head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24; }

# --- throwaway PKI ------------------------------------------------------------------------
STOREPASS="$(secret)"
kt() { "$KEYTOOL" -noprompt "$@" >/dev/null 2>>"$PKI/keytool.log"; }
kt -genkeypair -alias ca -dname "CN=tideline-local-ca" -keyalg EC -groupname secp256r1 \
  -validity 30 -ext bc:c -keystore "$PKI/ca.p12" -storetype PKCS12 -storepass "$STOREPASS"
kt -exportcert -rfc -alias ca -keystore "$PKI/ca.p12" -storepass "$STOREPASS" -file "$PKI/ca.pem"
kt -genkeypair -alias broker -dname "CN=tideline-broker" -keyalg EC -groupname secp256r1 \
  -validity 30 -keystore "$PKI/broker.p12" -storetype PKCS12 -storepass "$STOREPASS"
kt -certreq -alias broker -keystore "$PKI/broker.p12" -storepass "$STOREPASS" -file "$PKI/broker.csr"
kt -gencert -rfc -alias ca -keystore "$PKI/ca.p12" -storepass "$STOREPASS" -validity 30 \
  -ext "san=ip:127.0.0.1,dns:localhost" -ext "eku=serverAuth,clientAuth" \
  -infile "$PKI/broker.csr" -outfile "$PKI/broker.pem"
kt -importcert -trustcacerts -alias ca -file "$PKI/ca.pem" -keystore "$PKI/broker.p12" -storepass "$STOREPASS"
kt -importcert -alias broker -file "$PKI/broker.pem" -keystore "$PKI/broker.p12" -storepass "$STOREPASS"
kt -importcert -trustcacerts -alias ca -file "$PKI/ca.pem" -keystore "$PKI/truststore.p12" \
  -storetype PKCS12 -storepass "$STOREPASS"
rm -f "$PKI/broker.csr"

# --- SCRAM users and their client settings -----------------------------------------------
USERS=(tideline-broker tideline-admin)
for u in "$@"; do [[ " ${USERS[*]} " == *" $u "* ]] || USERS+=("$u"); done
: > "$DIR/credentials.properties"
SCRAM_ARGS=()
for u in "${USERS[@]}"; do
  [[ "$u" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "bad user name: $u" >&2; exit 1; }
  p="$(secret)"
  echo "$u=$p" >> "$DIR/credentials.properties"
  SCRAM_ARGS+=(--add-scram "SCRAM-SHA-512=[name=$u,password=$p]")
  cat > "$DIR/clients/$u.properties" <<PROPS
bootstrap.servers=127.0.0.1:$PORT
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$u" password="$p";
ssl.truststore.location=$PKI/truststore.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$STOREPASS
PROPS
done
BROKER_PASSWORD="$(grep '^tideline-broker=' "$DIR/credentials.properties" | cut -d= -f2)"

# --- the broker ----------------------------------------------------------------------------
cat > "$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$CPORT
listeners=SASL_SSL://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=SASL_SSL://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:SSL
inter.broker.listener.name=SASL_SSL
# Clients and the broker itself: SCRAM-SHA-512 over TLS. KRaft controllers cannot use SCRAM (its
# credentials live in the metadata they serve): the controller listener is TLS with client
# authentication, and only the broker's CA-signed key pair gets in.
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="tideline-broker" password="$BROKER_PASSWORD";
listener.name.controller.ssl.client.auth=required
ssl.keystore.location=$PKI/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$STOREPASS
ssl.key.password=$STOREPASS
ssl.truststore.location=$PKI/truststore.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$STOREPASS
# Deny by default; the generated ACLs (tideline acls, ADR 0023) allow each principal its topics.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:tideline-broker;User:CN=tideline-broker;User:tideline-admin
log.dirs=$DIR/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
group.initial.rebalance.delay.ms=0
log.retention.ms=-1
log.message.timestamp.after.max.ms=3600000
PROPS

CLUSTER_ID="$("$JAVA" -cp "$LIBS/*" kafka.tools.StorageTool random-uuid 2>/dev/null)"
"$JAVA" -cp "$LIBS/*" kafka.tools.StorageTool format --standalone -t "$CLUSTER_ID" \
  -c "$DIR/server.properties" "${SCRAM_ARGS[@]}" > "$DIR/format.log" 2>&1 \
  || { cat "$DIR/format.log" >&2; echo "could not format the secured broker's storage" >&2; exit 1; }
echo "secured broker prepared in $DIR: ${#USERS[@]} SCRAM users, CA $PKI/ca.pem"
