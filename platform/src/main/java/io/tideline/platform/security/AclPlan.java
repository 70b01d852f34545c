package io.tideline.platform.security;

import io.tideline.platform.security.AclRule.Operation;
import io.tideline.platform.security.AclRule.Pattern;
import io.tideline.platform.security.AclRule.Resource;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The ACLs of a secured cluster, derived from the topic catalogue's {@code producer -> consumers}
 * column and nothing else (ADR 0023). Pure: no Kafka call, no clock; {@link KafkaAcls} turns the
 * plan into the Admin client's bindings.
 *
 * <ul>
 *   <li>a producer of a topic gets {@code WRITE} on it (literal), a consumer {@code READ} (literal):
 *       one rule per (identity, topic, direction), whatever the number of words naming it;
 *   <li>a Kafka Streams service gets {@code READ} on the groups, {@code WRITE} on the
 *       transactional ids starting with its {@code application.id}, and CREATE, READ, WRITE,
 *       DELETE (repartition purges) and DESCRIBE_CONFIGS on its internal topics,
 *       {@code <application.id>-*} (prefixed);
 *   <li>an identity with a consumer group of its own ({@code notifier-svc}, the executor) gets
 *       {@code READ} on groups starting with it;
 *   <li>nothing else: no {@code All}, no wildcard, no cluster-wide right. Everything not allowed
 *       is denied ({@code allow.everyone.if.no.acl.found=false}).
 * </ul>
 */
public final class AclPlan {

  private final List<AclRule> rules;

  private AclPlan(List<AclRule> rules) {
    this.rules = List.copyOf(rules);
  }

  /** The plan of the catalogue on the classpath ({@code tideline/topics.csv}). */
  public static AclPlan fromCatalogue() {
    return of(TopicCatalogue.all());
  }

  /** The plan of these topics. */
  public static AclPlan of(List<TopicSpec> topics) {
    Set<AclRule> out = new LinkedHashSet<>();
    for (TopicSpec t : topics) {
      String where = "topics.csv " + t.name();
      Flow flow = Flow.parse(t.flow(), where);
      for (Identity i : identities(flow.producers(), where)) {
        out.add(new AclRule(i, Resource.TOPIC, t.name(), Pattern.LITERAL, Operation.WRITE,
            "produces " + t.name()));
      }
      for (Identity i : identities(flow.consumers(), where)) {
        out.add(new AclRule(i, Resource.TOPIC, t.name(), Pattern.LITERAL, Operation.READ,
            "consumes " + t.name()));
      }
    }
    for (Identity i : Identity.values()) {
      i.streamsApplicationId().ifPresent(app -> {
        String internal = app + "-";
        for (Operation op : List.of(Operation.CREATE, Operation.READ, Operation.WRITE,
            Operation.DELETE, Operation.DESCRIBE_CONFIGS)) {
          out.add(new AclRule(i, Resource.TOPIC, internal, Pattern.PREFIXED, op,
              "Kafka Streams internal topics of " + app));
        }
        out.add(new AclRule(i, Resource.TRANSACTIONAL_ID, app, Pattern.PREFIXED, Operation.WRITE,
            "exactly-once transactions of " + app));
      });
      i.groupPrefix().ifPresent(g -> out.add(new AclRule(i, Resource.GROUP, g, Pattern.PREFIXED,
          Operation.READ, "its consumer group")));
    }
    List<AclRule> sorted = new ArrayList<>(out);
    sorted.sort(Comparator.comparing((AclRule r) -> r.identity().ordinal())
        .thenComparing(r -> r.resource().ordinal()).thenComparing(AclRule::name)
        .thenComparing(r -> r.operation().ordinal()));
    return new AclPlan(sorted);
  }

  private static Set<Identity> identities(List<String> words, String where) {
    Set<Identity> out = new LinkedHashSet<>();
    for (String w : words) {
      out.addAll(Identity.named(w, where));
    }
    return out;
  }

  /** Every rule, by identity. */
  public List<AclRule> rules() {
    return rules;
  }

  /** The rules of one identity. */
  public List<AclRule> of(Identity identity) {
    return rules.stream().filter(r -> r.identity() == identity).toList();
  }

  /** Whether the identity may do that on the topic (literal or prefixed rule). */
  public boolean allows(Identity identity, String topic, Operation operation) {
    return rules.stream().anyMatch(r -> r.identity() == identity && r.resource() == Resource.TOPIC
        && r.operation() == operation && (r.pattern() == Pattern.LITERAL
            ? r.name().equals(topic) : topic.startsWith(r.name())));
  }

  /** The topics an identity may write (literal rules only), in plan order. */
  public List<String> writes(Identity identity) {
    return literalTopics(identity, Operation.WRITE);
  }

  /** The topics an identity may read (literal rules only), in plan order. */
  public List<String> reads(Identity identity) {
    return literalTopics(identity, Operation.READ);
  }

  private List<String> literalTopics(Identity identity, Operation op) {
    return of(identity).stream().filter(r -> r.resource() == Resource.TOPIC
        && r.pattern() == Pattern.LITERAL && r.operation() == op).map(AclRule::name).toList();
  }

  /** One line per rule, for people ({@code tideline acls}). */
  public String table() {
    StringBuilder sb = new StringBuilder();
    for (AclRule r : rules) {
      sb.append(String.format("%-26s %-16s %-16s %-9s %-34s %s%n", r.identity().principal(),
          r.operation(), r.resource(), r.pattern(), r.name(), r.reason()));
    }
    return sb.toString();
  }
}
