package io.tideline.platform.security;

import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/** The plan as the Admin client's {@link AclBinding}s: allow rules, from any host. */
public final class KafkaAcls {

  private KafkaAcls() {}

  /** One binding per rule. */
  public static List<AclBinding> bindings(AclPlan plan) {
    return plan.rules().stream().map(KafkaAcls::binding).toList();
  }

  static AclBinding binding(AclRule r) {
    ResourceType type = switch (r.resource()) {
      case TOPIC -> ResourceType.TOPIC;
      case GROUP -> ResourceType.GROUP;
      case TRANSACTIONAL_ID -> ResourceType.TRANSACTIONAL_ID;
    };
    PatternType pattern = switch (r.pattern()) {
      case LITERAL -> PatternType.LITERAL;
      case PREFIXED -> PatternType.PREFIXED;
    };
    AclOperation op = switch (r.operation()) {
      case READ -> AclOperation.READ;
      case WRITE -> AclOperation.WRITE;
      case CREATE -> AclOperation.CREATE;
      case DELETE -> AclOperation.DELETE;
      case DESCRIBE_CONFIGS -> AclOperation.DESCRIBE_CONFIGS;
    };
    return new AclBinding(new ResourcePattern(type, r.name(), pattern),
        new AccessControlEntry(r.identity().principal(), "*", op, AclPermissionType.ALLOW));
  }
}
