package io.tideline.platform.security;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Tideline's Kafka identities (ADR 0022): one principal per service, and the roles the topic
 * catalogue names as producers or consumers. The catalogue's words ({@code "quota"},
 * {@code "operators; CLI"}, {@code "users"}) are mapped here, and only here, onto principals; a
 * word no identity claims (and not an outside channel such as Slack) makes the ACL generator fail,
 * so the catalogue cannot name a reader or writer nobody is.
 *
 * <p>A Kafka Streams service uses its {@code application.id} as consumer group, as the prefix of
 * its transactional ids (exactly-once) and of the internal topics it creates
 * ({@code <application.id>-…-changelog|repartition}); the principal is named like it.
 */
public enum Identity {
  /** gpu-telemetry-svc: samples, inventory, clock ticks. Produces only. */
  TELEMETRY("gpu-telemetry-svc", Kind.SERVICE, null, null, "telemetry"),
  /** forecaster-svc (Kafka Streams). */
  FORECASTER("forecaster-svc", Kind.SERVICE, "forecaster-svc", null, "forecaster",
      Roles.ANY_STREAMS),
  /** quota-svc (Kafka Streams); time-slot pricing and billing are its job (B1). */
  QUOTA("quota-svc", Kind.SERVICE, "quota-svc", null, "quota", "pricing", Roles.ANY_STREAMS),
  /** placement-svc (Kafka Streams, the allocation ledger's single writer). */
  PLACEMENT("placement-svc", Kind.SERVICE, "placement-svc", null, "placement", Roles.ANY_STREAMS),
  /** preemption-svc (Kafka Streams). */
  PREEMPTION("preemption-svc", Kind.SERVICE, "preemption-svc", null, "preemption",
      Roles.ANY_STREAMS),
  /** notifier-svc: plain consumers in group {@code notifier-svc} ({@code notifier.group-id}). */
  NOTIFIER("notifier-svc", Kind.SERVICE, null, "notifier-svc", "notifier"),
  /**
   * The operator console (console/, ADR 0032): reads the topics its views fold, from their
   * beginning, with partitions assigned directly (no consumer group, nothing committed); writes
   * nothing. (Grafana's dashboards read Prometheus, not Kafka.)
   */
  CONSOLE("console", Kind.SERVICE, null, null, "console"),
  /**
   * The executor (the Kubernetes adapter, or the simulator acting as one): carries out placements
   * and evictions, reports {@code jobs.lifecycle}. Its consumer groups start with its name.
   */
  EXECUTOR("tideline-executor", Kind.ROLE, null, "tideline-executor", "executor"),
  /** People submitting jobs ({@code ./tideline submit}): write {@code jobs.submitted}, nothing else. */
  SUBMITTER("tideline-submitter", Kind.ROLE, null, null, "users"),
  /**
   * Operators and their tools: the CLI's reads ({@code queue}, {@code quota}, {@code explain},
   * {@code tail}, {@code audit replay}), quota and holiday documents.
   * The CLI reads without a consumer group, so it has none.
   */
  OPERATOR("tideline-operator", Kind.ROLE, null, null, "operators", "CLI", "audit",
      "audit replay", "reports"),
  /** The digital twin as the cluster's clock (the catalogue's {@code telemetry/simulator}). */
  SIMULATOR("tideline-simulator", Kind.ROLE, null, null, "simulator");

  /** A service of this repository, or a role played by people or outside systems. */
  public enum Kind { SERVICE, ROLE }

  /** Catalogue words that are not Kafka clients: the notifier delivers to them over HTTP/SMTP. */
  public static final Set<String> OUTSIDE_KAFKA = Set.of("Slack", "e-mail");

  private final String user;
  private final Kind kind;
  private final String applicationId;
  private final String groupPrefix;
  private final List<String> roles;

  Identity(String user, Kind kind, String applicationId, String groupPrefix, String... roles) {
    this.user = user;
    this.kind = kind;
    this.applicationId = applicationId;
    this.groupPrefix = groupPrefix;
    this.roles = List.of(roles);
  }

  /** The SCRAM user name; the principal is {@code User:<name>}. */
  public String user() {
    return user;
  }

  /** {@code User:<name>}, as ACLs name it. */
  public String principal() {
    return "User:" + user;
  }

  public Kind kind() {
    return kind;
  }

  /** The Kafka Streams {@code application.id}, for a Streams service. */
  public Optional<String> streamsApplicationId() {
    return Optional.ofNullable(applicationId);
  }

  /** The prefix of the consumer groups it may join, if any (Streams: its application id). */
  public Optional<String> groupPrefix() {
    return Optional.ofNullable(groupPrefix != null ? groupPrefix : applicationId);
  }

  /** The catalogue's words for it. */
  public List<String> roles() {
    return roles;
  }

  /** The identities a catalogue word names (empty for an outside channel); fails on an unknown word. */
  public static List<Identity> named(String role, String where) {
    if (OUTSIDE_KAFKA.contains(role)) {
      return List.of();
    }
    List<Identity> found = Arrays.stream(values()).filter(i -> i.roles.contains(role)).toList();
    if (found.isEmpty()) {
      throw new IllegalStateException(where + ": no Kafka identity plays \"" + role
          + "\"; name it in io.tideline.platform.security.Identity or fix the catalogue");
    }
    return found;
  }

  /** The identity of that SCRAM user name. */
  public static Optional<Identity> ofUser(String user) {
    return Arrays.stream(values()).filter(i -> i.user.equals(user)).findFirst();
  }

  private static final class Roles {
    static final String ANY_STREAMS = "any Streams service";
  }
}
