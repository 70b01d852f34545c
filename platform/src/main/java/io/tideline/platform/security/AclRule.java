package io.tideline.platform.security;

/**
 * One allow rule of the generated plan (ADR 0023): {@code principal} may do {@code operation} on
 * the {@code resource} named {@code name} (exactly, or every name starting with it).
 *
 * @param identity whom it allows
 * @param resource what kind of Kafka resource
 * @param name the resource's name, or the prefix for {@link Pattern#PREFIXED}
 * @param pattern whether {@code name} is the name or a prefix; never a wildcard
 * @param operation what it allows; never {@code All}
 * @param reason why, in words (the catalogue row or the Streams rule it comes from)
 */
public record AclRule(Identity identity, Resource resource, String name, Pattern pattern,
    Operation operation, String reason) {

  /** The Kafka resource types Tideline's plan uses. */
  public enum Resource { TOPIC, GROUP, TRANSACTIONAL_ID }

  /** How {@link #name()} matches. There is no wildcard pattern on purpose. */
  public enum Pattern { LITERAL, PREFIXED }

  /** The operations Tideline's plan grants; {@code All} is not one of them on purpose. */
  public enum Operation { READ, WRITE, CREATE, DELETE, DESCRIBE_CONFIGS }

  public AclRule {
    if (name == null || name.isBlank() || name.contains("*")) {
      throw new IllegalArgumentException("an ACL names its resource, never a wildcard: " + name);
    }
  }

  @Override
  public String toString() {
    return identity.principal() + " " + operation + " " + resource + " " + name
        + (pattern == Pattern.PREFIXED ? "*" : "") + " (" + reason + ")";
  }
}
