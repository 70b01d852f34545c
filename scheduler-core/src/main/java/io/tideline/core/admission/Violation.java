package io.tideline.core.admission;

/**
 * One reason a submission is invalid: the field at fault and what is wrong with it, in words a
 * submitter can act on (they end up in the dead-letter envelope and the CLI's error).
 */
public record Violation(String field, String reason) {

  @Override
  public String toString() {
    return field + ": " + reason;
  }
}
