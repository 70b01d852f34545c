package io.tideline.platform.security;

import java.util.Set;

/**
 * Who calls a REST endpoint, as the verified bearer token says (ADR 0026): the user id is the
 * token's {@code sub}, the groups its {@code groups} claim ({@code tenant:<name>} memberships,
 * the operators' group).
 *
 * @param subject the caller's user id
 * @param groups the caller's groups
 */
public record RestCaller(String subject, Set<String> groups) {

  public RestCaller {
    if (subject == null || subject.isBlank()) {
      throw new IllegalArgumentException("a caller has a subject");
    }
    groups = groups == null ? Set.of() : Set.copyOf(groups);
  }

  /** A caller with these groups. */
  public static RestCaller of(String subject, String... groups) {
    return new RestCaller(subject, Set.of(groups));
  }
}
