# Sourced by ./tideline: the secured local stack (issue #18, ADR 0022/0023). Kept apart from the
# launcher's other parts so both can change independently.
#
#   ./tideline up --secure   the broker speaks SASL/SCRAM-SHA-512 over TLS only (controller: mTLS),
#                            StandardAuthorizer, deny by default; a throwaway CA and random SCRAM
#                            passwords under .tideline/run/secure (deploy/local/secure-broker.sh);
#                            topics created and the ACLs generated from topics.csv applied as the
#                            provisioning identity (tideline-admin); every service started with its
#                            own principal; ./tideline submit uses tideline-submitter's, the other
#                            CLI commands tideline-operator's (TIDELINE_CLI_CONFIG overrides).
#                            REST: every service in tideline.rest.auth.mode=TOKEN, verifying bearer
#                            JWTs with a throwaway key pair under .tideline/run/secure/rest
#                            (./tideline token mints them; ADR 0026).
#                            The schema registry takes writes only from the registrar (ADR 0027):
#                            a key pair under .tideline/run/secure/registry; the registry verifies
#                            the registrar's signed token with the public half, anonymous clients
#                            (the services) only read, version deletes are off, BACKWARD is its
#                            global rule; `tideline schemas register` signs with the private half.
#   ./tideline up            the open default: prints open_banner first.

SECURE_DIR="$RUN/secure"
# Every principal of io.tideline.platform.security.Identity gets SCRAM credentials at format time.
SECURE_PRINCIPALS=(gpu-telemetry-svc forecaster-svc quota-svc placement-svc preemption-svc
  notifier-svc console tideline-executor tideline-submitter tideline-operator tideline-simulator)

# Whether the stack `up` started last is the secured one.
secure_on() { [[ -f "$SECURE_DIR/server.properties" ]]; }

open_banner() {
  say "################################################################################"
  say "#  WARNING: this stack is OPEN. The broker on 127.0.0.1:$KAFKA_PORT takes any client:"
  say "#  no authentication, no encryption, no ACLs; the registry and every REST endpoint"
  say "#  are open too. Anyone who reaches these ports can forge decisions: evict running"
  say "#  jobs, zero a team's quota, free another user's GPUs, add phantom nodes, redirect"
  say "#  notices. Use it only on a machine you alone use. For SCRAM over TLS with ACLs"
  say "#  generated from topics.csv: ./tideline up --secure  (docs/adr/0022)"
  say "################################################################################"
}

# Prepares (PKI, SCRAM users at format time, server.properties) and starts the secured broker.
start_kafka_secure() {
  rm -rf "$SECURE_DIR"
  JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(java_bin)")")")}" \
    bash "$ROOT/deploy/local/secure-broker.sh" "$SECURE_DIR" "$KAFKA_PORT" "$CONTROLLER_PORT" \
    "$KAFKA_LIBS" "${SECURE_PRINCIPALS[@]}" > "$LOGS/kafka-format.log" 2>&1 \
    || { cat "$LOGS/kafka-format.log" >&2; die "could not prepare the secured broker"; }
  secure_service_configs
  start_process kafka "$LOGS/kafka.log" "$(java_bin)" -Xms256m -Xmx512m \
    -Dlog4j2.configurationFile="$ROOT/deploy/local/log4j2.properties" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$SECURE_DIR/server.properties"
}

# Every service runs with the Kafka client settings of the Kubernetes deployment,
# deploy/k8s/services/kafka-client.properties (the same file, so this stack proves it), and a file
# of its own, readable only by the user who runs the stack, with the three values that file expands:
# its SCRAM login, the truststore and its password (on Kubernetes: its KafkaUser Secret and the
# cluster CA Secret).
secure_service_configs() {
  local s key value
  mkdir -p "$SECURE_DIR/services"
  for s in "${SERVICES[@]}"; do
    : > "$SECURE_DIR/services/$s.properties"
    chmod 600 "$SECURE_DIR/services/$s.properties"
    while IFS='=' read -r key value; do
      case "$key" in
        sasl.jaas.config) printf 'KAFKA_SASL_JAAS_CONFIG=%s\n' "$value" ;;
        ssl.truststore.location) printf 'KAFKA_SSL_TRUSTSTORE_LOCATION=%s\n' "$value" ;;
        ssl.truststore.password) printf 'KAFKA_SSL_TRUSTSTORE_PASSWORD=%s\n' "$value" ;;
      esac
    done < "$SECURE_DIR/clients/$s.properties" >> "$SECURE_DIR/services/$s.properties"
    secure_rest_opts >> "$SECURE_DIR/services/$s.properties"
  done
}

# REST in TOKEN mode (ADR 0026): the services verify bearer JWTs with the public half of a
# throwaway key pair made here; its private half signs ./tideline token's dev tokens.
SECURE_REST_DIR="$SECURE_DIR/rest"
SECURE_REST_ISSUER="https://tideline.local/dev-idp"

secure_rest_opts() {
  [[ -f "$SECURE_REST_DIR/rest-jwt-public.pem" ]] || cli_java token keygen \
    --dir "$SECURE_REST_DIR" --issuer "$SECURE_REST_ISSUER" > "$LOGS/rest-keys.log" 2>&1 \
    || { cat "$LOGS/rest-keys.log" >&2; die "could not make the REST token key pair"; }
  printf 'tideline.rest.auth.mode=TOKEN\nmp.jwt.verify.publickey.location=file:%s\nmp.jwt.verify.issuer=%s\n' \
    "$SECURE_REST_DIR/rest-jwt-public.pem" "$SECURE_REST_ISSUER"
}

# ./tideline token --sub <user> [--group …] [--ttl PT8H]: a dev token of the running secured stack.
secure_token() {
  secure_on && [[ -f "$SECURE_REST_DIR/rest-jwt-private.pem" ]] \
    || die "no secured stack: ./tideline token signs with the key of ./tideline up --secure (elsewhere, tokens come from your IdP)"
  cli_java token mint --dir "$SECURE_REST_DIR" --issuer "$SECURE_REST_ISSUER" "$@"
}

# The JVM options that give a service its credentials (files, so no password is on a command line).
secure_service_opts() {
  echo "-Dquarkus.config.locations=file:$ROOT/deploy/k8s/services/kafka-client.properties,file:$SECURE_DIR/services/$1.properties"
}

secure_client_config() { echo "$SECURE_DIR/clients/$1.properties"; }

kafka_ready_secure() {
  "$(java_bin)" -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.ClusterTool cluster-id \
    --bootstrap-server "127.0.0.1:$KAFKA_PORT" --config "$(secure_client_config tideline-admin)"
}

# Applies the ACLs generated from topics.csv (tideline acls apply) as the provisioning identity.
secure_apply_acls() {
  TIDELINE_CLI_CONFIG="$(secure_client_config tideline-admin)" \
  KAFKA_BOOTSTRAP_SERVERS="127.0.0.1:$KAFKA_PORT" TIDELINE_REGISTRY_URL="http://127.0.0.1:$REGISTRY_PORT" \
    cli_java acls apply > "$LOGS/acls.log" 2>&1
}

# The CLI's credentials while a secured local stack runs, unless TIDELINE_CLI_CONFIG names others:
# submit runs as the submitter, everything else as the operator.
secure_cli_env() {
  secure_on && alive kafka || return 0
  [[ -n "${TIDELINE_CLI_CONFIG:-}" ]] && return 0
  if [[ "${1:-}" == submit ]]; then
    export TIDELINE_CLI_CONFIG="$(secure_client_config tideline-submitter)"
  else
    export TIDELINE_CLI_CONFIG="$(secure_client_config tideline-operator)"
  fi
}

# The registrar's key pair and the registry settings that make it the only writer (ADR 0027).
secure_registry_prepare() {
  cli_java schemas keygen --dir "$SECURE_DIR/registry" > "$LOGS/registry-keygen.log" 2>&1 \
    || { cat "$LOGS/registry-keygen.log" >&2; die "could not make the registrar key"; }
}

# The registry's JVM options on a secured stack: every line of the keygen's registry.properties.
secure_registry_opts() {
  local key value
  while IFS='=' read -r key value; do
    [[ -z "$key" || "$key" == \#* ]] && continue
    printf -- '-D%s=%s\n' "$key" "$value"
  done < "$SECURE_DIR/registry/registry.properties"
}

secure_registrar_key() { echo "$SECURE_DIR/registry/registrar.key"; }

secure_summary() {
  say "Secured: SASL/SCRAM-SHA-512 over TLS on 127.0.0.1:$KAFKA_PORT (CA $SECURE_DIR/pki/ca.pem),"
  say "  $(tail -n1 "$LOGS/acls.log"); one principal per service; clients' settings in $SECURE_DIR/clients/"
  say "  ./tideline submit runs as tideline-submitter, other commands as tideline-operator."
  say "  Refused operations are logged by the broker: grep Denied $LOGS/kafka.log"
  say "  REST: bearer JWTs required (health and metrics open); a token: ./tideline token --sub <user> --group tenant:<t>"
  say "  Registry: anonymous reads; writes only by the registrar ($(secure_registrar_key)); no version"
  say "  deletes; global rule BACKWARD (ADR 0027)."
}
